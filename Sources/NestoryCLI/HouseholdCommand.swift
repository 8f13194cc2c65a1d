import ArgumentParser
import Foundation
import NestoryDomain
import NestoryServices
import NestoryStore

/// The households on this server, for whoever runs it: which there are, and deleting one with everything in it (a
/// household that asked to be forgotten).
struct HouseholdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "household", abstract: "List the households on this server, or delete one with everything in it.",
        subcommands: [List.self, Delete.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Each household: its id, name, currency, time zone, items and members.")

        @OptionGroup var data: DataOptions

        func run() async throws {
            let lines = try await data.withDatabase(.readCurrent) { database in
                var lines: [String] = []
                for household in try await database.stores.accounts.allHouseholds() {
                    lines.append(try await HouseholdCommand.describe(household, members: try await database.stores.accounts.members(of: household.id),
                                                                     database))
                }
                return lines
            }
            print(lines.isEmpty ? "There is no household yet." : lines.joined(separator: "\n"))
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a household and everything in it, with the accounts of its members who are in no other household.",
            discussion: """
                Its items, rooms, categories, photos, receipts, reports, values, tokens and settings go, in one transaction; \
                the stored files no other household uses are removed after it. It cannot be undone: write a backup first \
                (`nestory backup --household ...`). Without --yes, prints what would be deleted and changes nothing. A running \
                server signs the deleted accounts out at their next request.
                """)

        @OptionGroup var data: DataOptions

        @Argument(help: "The household's name or id.")
        var household: String

        @Flag(help: "Delete it (without this, only say what would be deleted).")
        var yes = false

        func run() async throws {
            let outcome = try await data.withDatabase(.readCurrent) { database -> (String, [String]?) in
                let target = try await resolveHousehold(database.stores.accounts, household)
                let members = try await database.stores.accounts.members(of: target.id)
                let description = try await HouseholdCommand.describe(target, members: members, database)
                guard yes else { return (description, nil) }
                let removed = Set(try await accountService(database, tmp: data.folder.tmpURL).deleteHousehold(target.id))
                return (description, members.map(\.user).filter { removed.contains($0.id) }.map(\.email))
            }
            guard let removed = outcome.1 else {
                print("Would delete:\n\(outcome.0)\nNothing was changed; run again with --yes to delete it.")
                return
            }
            print("Deleted:\n\(outcome.0)\n" + (removed.isEmpty ? "No account was deleted (every member is in another household)."
                : "Accounts deleted with it: \(removed.joined(separator: ", "))."))
        }
    }

    /// "ID  Name · USD · Europe/London · 12 items", then a line per member.
    static func describe(_ household: Household, members: [(user: User, role: MemberRole)], _ database: OpenDatabase) async throws -> String {
        let items = try await database.stores.items.summary(household.id).itemCount
        let head = "\(household.id)  \(household.name) · \(household.currency.code) · \(household.timeZone ?? "the server's clock") · "
            + "\(items) item\(items == 1 ? "" : "s")"
        return ([head] + members.map { "    \($0.user.email) (\($0.role.rawValue))" }).joined(separator: "\n")
    }
}
