import ArgumentParser
import Foundation
import NestoryDemo
import NestoryDomain
import NestoryStore

struct Demo: ParsableCommand {
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

    func validate() throws {
        guard (0...10_000_000).contains(items) else { throw ValidationError("--items must be between 0 and 10,000,000.") }
    }

    func run() throws {
        try reportingErrors {
            let database = try AppDatabase.open(data.folder, mode: .createAndMigrate)
            let start = Date()
            let household = try DemoSeeder.seed(database, name: name, currency: try CurrencyCode(currency), count: items,
                                                seed: seed, now: start) { written in
                if items >= 20_000, written % 20_000 == 0 || written == items {
                    FileHandle.standardError.write(Data("  \(written) of \(items) items\n".utf8))
                }
            }
            let seconds = Date().timeIntervalSince(start)
            print("Created \(household.name) (household \(household.id)) with \(items) items in \(String(format: "%.1f", seconds)) s.")
        }
    }
}
