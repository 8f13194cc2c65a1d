import ArgumentParser
import Foundation
import NestoryAuth
import NestoryDomain
import NestoryServices
import NestoryStore

struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "Manage accounts.", subcommands: [Add.self, SetPassword.self, SignOut.self])

    struct Add: AsyncParsableCommand {
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

        @Option(help: "The time zone of a new household, as an IANA name (Europe/London); its days follow it. Default: the server's clock.")
        var timeZone: String?

        @Option(help: "owner or member (a new household's first account is always its owner).")
        var role: MemberRole?

        func run() async throws {
            let password = try readPassword()
            let currencyCode = try reportingErrors { try CurrencyCode(currency) }
            let zone = try reportingErrors { try Household.validatedTimeZone(timeZone ?? "") }
            let choice: AccountService.HouseholdChoice = HouseholdID(string: household).map { .id($0) }
                ?? .name(household, currency: currencyCode, timeZone: zone)
            let made = try await data.withDatabase(.createAndMigrate) { database in
                try await accountService(database).addUser(email: email, displayName: name ?? "", password: password, household: choice,
                                                           role: role)
            }
            print("Added \(made.user.email) as \(made.role.rawValue) of \(made.household.name) (household \(made.household.id)).")
        }

    }

    struct SetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "password",
            abstract: "Set an account's password (for example one restored from a web export, which has none).",
            discussion: "The password is read from standard input or NESTORY_PASSWORD, as for `user add`. The account's sessions end.")

        @OptionGroup var data: DataOptions

        @Argument(help: "The account's email address.")
        var email: String

        func run() async throws {
            let password = try readPassword()
            let user = try await data.withDatabase(.readCurrent) { try await accountService($0).setPassword(email: email, to: password) }
            print("Set a new password for \(user.email).")
        }
    }
}

extension UserCommand {
    struct SignOut: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "signout",
            abstract: "Sign an account out on every device (a lost or stolen phone); --passkeys also removes its passkeys.",
            discussion: "A running server stops accepting those sessions at their next request. The password stays as it is.")

        @OptionGroup var data: DataOptions

        @Argument(help: "The account's email address.")
        var email: String

        @Flag(help: "Also remove the account's passkeys (register them again afterwards).")
        var passkeys = false

        func run() async throws {
            let done = try await data.withDatabase(.readCurrent) { database in
                try await SecurityService(accounts: accountService(database)).signOutEverywhere(email: email, passkeys: passkeys)
            }
            print("Signed \(done.user.email) out of \(done.sessions) session\(done.sessions == 1 ? "" : "s")"
                  + (passkeys ? " and removed \(done.passkeys) passkey\(done.passkeys == 1 ? "" : "s")." : "."))
        }
    }
}

/// The account service as the command line uses it: bcrypt on a pool of one thread.
func accountService(_ database: OpenDatabase, tmp: URL? = nil) -> AccountService {
    AccountService(stores: database.stores, passwordHasher: BcryptPasswordHasher(), blocking: BlockingPool(label: "nestory.cli", width: 1), tmp: tmp)
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
