import ArgumentParser
import Foundation
import NestoryDemo
import NestoryAuth
import NestoryDomain
import NestoryServices
import NestoryStore

struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create a demo household with realistic items (some deliberately undocumented).")

    @OptionGroup var data: DataOptions

    @Option(help: "How many items.")
    var items: Int = 250

    @Option(help: "The same seed always gives the same items.")
    var seed: UInt64 = 1

    @Option(help: "The household's name.")
    var name: String = "Demo Household"

    @Option(help: "The household's currency (ISO code).")
    var currency: String = "USD"

    @Option(help: ArgumentHelp("The owner's email, to sign in to the demo.",
                               discussion: "The password is NESTORY_PASSWORD, or one made up and printed once. An existing account becomes the demo's owner with its own password."))
    var owner: String = "demo@example.com"

    func validate() throws {
        guard (0...10_000_000).contains(items) else { throw ValidationError("--items must be between 0 and 10,000,000.") }
    }

    func run() async throws {
        let code = try reportingErrors { try CurrencyCode(currency) }
        try await data.withDatabase(.createAndMigrate) { database in
            let stores = database.stores
            let start = Date()
            let items = items
            let household = try await DemoSeeder.seed(stores, name: name, currency: code, count: items, seed: seed, now: start) { written in
                if items >= 20_000, written % 20_000 == 0 || written == items {
                    FileHandle.standardError.write(Data("  \(written) of \(items) items\n".utf8))
                }
            }
            let seconds = Date().timeIntervalSince(start)
            print("Created \(household.name) (household \(household.id)) with \(items) items in \(String(format: "%.1f", seconds)) s.")
            // An owner, so the demo can be signed in to and backed up from the web app.
            if let (user, _) = try await stores.accounts.userCredentials(email: owner) {
                try await stores.accounts.addMember(household.id, user: user.id, role: .owner, now: Date())
                print("Sign in as \(user.email) (its own password): it owns the demo.")
                return
            }
            let given = ProcessInfo.processInfo.environment["NESTORY_PASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
            let password = given ?? String(SessionToken.generate().prefix(16))
            let accounts = AccountService(stores: stores, passwordHasher: BcryptPasswordHasher(), blocking: BlockingPool(label: "nestory.cli", width: 1))
            let made = try await accounts.addUser(email: owner, displayName: "Demo owner", password: password, household: .id(household.id), role: .owner)
            print("Sign in as \(made.user.email) with " + (given == nil ? "the password \(password) (shown once)." : "the password in NESTORY_PASSWORD."))
        }
    }
}
