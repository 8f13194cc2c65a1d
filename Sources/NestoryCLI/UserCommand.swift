import ArgumentParser
import Foundation
import NestoryAuth
import NestoryDomain
import NestoryStore

struct UserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "Manage accounts.", subcommands: [Add.self, SetPassword.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an account and put it in a household.",
            discussion: """
                The password is read from the first line of standard input (e.g. `echo "$PW" | nestory user add ...`) \
                or from NESTORY_PASSWORD; it is never taken as an argument, which other users could see.
                The household is created (with default rooms and categories) if none has that name; the first \
                person in a new household is its owner.
                """)

        @OptionGroup var data: DataOptions

        @Argument(help: "The email address to sign in with.")
        var email: String

        @Option(help: "The name shown in the app.")
        var name: String?

        @Option(help: "The household's name (or id) to join or create.")
        var household: String

        @Option(help: "The currency of a new household (ISO code).")
        var currency: String = "USD"

        @Option(help: "owner or member (a new household's first account is always its owner).")
        var role: MemberRole?

        func run() throws {
            let password = try readPassword()
            try reportingErrors {
                try PasswordPolicy.validate(password)
                let currencyCode = try CurrencyCode(currency)
                _ = try User.normalizedEmail(email)
                let database = try AppDatabase.open(data.folder, mode: .createAndMigrate)
                let now = Date()
                let existing: Household?
                if let id = HouseholdID(string: household) {
                    existing = try database.household(id)
                } else {
                    let named = try database.households(named: household)
                    guard named.count <= 1 else {
                        throw CLIError("Several households are called \(household); pass its id instead.")
                    }
                    existing = named.first
                }
                let hash = try BcryptPasswordHasher().hash(password)
                let user = try database.createUser(email: email, displayName: name ?? "", passwordHash: hash, now: now)
                let target = try existing ?? database.createHousehold(name: household, currency: currencyCode, now: now)
                let memberRole: MemberRole = existing == nil ? .owner : (role ?? .member)
                try database.addMember(target.id, user: user.id, role: memberRole, now: now)
                print("Added \(user.email) as \(memberRole.rawValue) of \(target.name) (household \(target.id)).")
            }
        }

    }

    struct SetPassword: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "password",
            abstract: "Set an account's password (for example one restored from a web export, which has none).",
            discussion: "The password is read from standard input or NESTORY_PASSWORD, as for `user add`. The account's sessions end.")

        @OptionGroup var data: DataOptions

        @Argument(help: "The account's email address.")
        var email: String

        func run() throws {
            let password = try readPassword()
            try reportingErrors {
                try PasswordPolicy.validate(password)
                let database = try AppDatabase.open(data.folder, mode: .readCurrent)
                guard let (user, _) = try database.userCredentials(email: try User.normalizedEmail(email)) else {
                    throw CLIError("There is no account \(email).")
                }
                try database.changePasswordHash(user.id, to: try BcryptPasswordHasher().hash(password))
                print("Set a new password for \(user.email).")
            }
        }
    }
}

private func readPassword() throws -> String {
    if let fromEnvironment = ProcessInfo.processInfo.environment["NESTORY_PASSWORD"], !fromEnvironment.isEmpty {
        return fromEnvironment
    }
    guard let line = Swift.readLine(strippingNewline: true), !line.isEmpty else {
        throw CLIError("No password given: pipe it on standard input or set NESTORY_PASSWORD.")
    }
    return line
}

extension MemberRole: ExpressibleByArgument {}
