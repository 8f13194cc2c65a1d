import ArgumentParser
import Foundation
import NestoryDomain
import NestoryServices
import NestoryStore

/// `nestory token create|list|revoke`: personal API tokens from the command line (the same service as Settings).
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Personal API tokens (Authorization: Bearer, for /api/v1 and /mcp).",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a token for an account; it is printed once and never stored (only its SHA-256 is).",
            discussion: "The token acts as the account in its first household. It ends when revoked, when it expires, or when the account leaves the household.")

        @OptionGroup var data: DataOptions

        @Argument(help: "The account's email address.")
        var email: String

        @Option(help: "What the token is for (shown in the list).")
        var name: String

        @Option(help: "read (GET only) or write.")
        var scope: String = "read"

        @Option(help: "The last day it works (YYYY-MM-DD, UTC); none: until revoked.")
        var expires: String?

        func run() async throws {
            let date = try reportingErrors { try expires.map { try CalendarDate(iso: $0) } }
            let made = try await data.withDatabase(.readCurrent) { database in
                try await tokenService(database).create(email: email, name: name, scope: scope, expires: date)
            }
            FileHandle.standardError.write(Data("Made token \(made.summary.id) (\(made.summary.scope.rawValue)) for \(email) in \(made.household.name). It is shown only now:\n".utf8))
            print(made.token)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "An account's tokens: id, scope, expiry and last use.")

        @OptionGroup var data: DataOptions

        @Argument(help: "The account's email address.")
        var email: String

        func run() async throws {
            let tokens = try await data.withDatabase(.readCurrent) { try await tokenService($0).tokens(email: email) }
            let iso = ISO8601DateFormatter()
            if tokens.isEmpty { print("No tokens.") }
            for token in tokens {
                print([token.id, token.scope.rawValue, token.name, "expires: " + (token.expiresAt.map(iso.string(from:)) ?? "never"),
                       "last used: " + (token.lastUsedAt.map(iso.string(from:)) ?? "never")].joined(separator: "\t"))
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a token: a running server refuses it at its next request.")

        @OptionGroup var data: DataOptions

        @Argument(help: "The account's email address.")
        var email: String

        @Argument(help: "The token's id (from `nestory token list`).")
        var id: String

        func run() async throws {
            try await data.withDatabase(.readCurrent) { try await tokenService($0).revoke(email: email, id: id) }
            print("Revoked token \(id).")
        }
    }
}

private func tokenService(_ database: OpenDatabase) -> TokenService {
    TokenService(stores: database.stores)
}
