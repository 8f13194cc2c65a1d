import ArgumentParser
import Foundation
import NestoryDomain
import NestoryServices
import NestoryStore

/// `nestory licence show|install`: the operator's view of Free and Pro on this server.
struct LicenceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "licence", abstract: "Nestory Pro licences: show this server's id and each household's plan, or install a key.",
        subcommands: [Show.self, Install.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print this server's id (an instance licence is issued for it), the licences installed and each household's plan.")

        @OptionGroup var data: DataOptions

        func run() async throws {
            let plan = try await data.settings()
            try await data.withDatabase(.createAndMigrate) { database in
                let plan = plan.plan(database.stores.licences)
                print("This server's id: \(try await database.stores.licences.instanceID())")
                for household in try await database.stores.accounts.allHouseholds() {
                    let overview = try await plan.overview(household.id)
                    let source: String = switch overview.entitlement.source {
                    case .free: "Free (\(overview.itemCount) of \(PlanLimits.freeItems) items)"
                    case .instanceSetting: "Pro (licence.instancePro)"
                    case .licence(let licence):
                        "Pro, licensed to \(licence.licensee)\(licence.expires.map { " until \($0.iso)" } ?? ""), \(overview.itemCount) items"
                    }
                    print("\(household.name) (\(household.id)): \(source)")
                    for entry in overview.licences where entry.problem != nil {
                        print("  not in force: \(entry.summary?.licensee ?? "a key"): \(entry.problem!)")
                    }
                }
            }
        }
    }

    struct Install: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Install a licence key: for the household it names (which may be restored later) or for this whole server.",
            discussion: "The key is the argument, or read from standard input when the argument is -.")

        @OptionGroup var data: DataOptions

        @Argument(help: "The licence key (nestory1.…), or - to read it from standard input.")
        var key: String

        func run() async throws {
            let text = key == "-" ? (Swift.readLine(strippingNewline: true) ?? "") : key
            let settings = try await data.settings()
            let licence = try await data.withDatabase(.createAndMigrate) { database in
                try await settings.plan(database.stores.licences).install(text, by: .operatorCLI)
            }
            let scope: String = switch licence.scope {
            case .household(let id): "household \(id)"
            case .instance: "every household on this server"
            }
            print("Installed: Nestory Pro for \(scope), licensed to \(licence.licensee)\(licence.expires.map { " until \($0.iso)" } ?? "").")
        }
    }
}
