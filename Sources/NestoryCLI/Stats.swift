import ArgumentParser
import Foundation
import NestoryDomain
import NestoryStore
import NestoryWeb

struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print a household's summary figures.")

    @OptionGroup var data: DataOptions

    @Option(help: "The household's name or id (not needed when there is only one).")
    var household: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() async throws {
        let (target, summary) = try await data.withDatabase(.readCurrent) { database in
            let target = try await resolveHousehold(database.stores.accounts, household)
            return (target, try await database.stores.items.summary(target.id))
        }
        try reportingErrors {
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try encoder.encode(StatsJSON(household: target, summary: summary)), as: UTF8.self))
            } else {
                print(Self.text(target, summary))
            }
        }
    }

    static func text(_ household: Household, _ s: InventorySummary) -> String {
        let value = s.estimatedValue.isEmpty ? Money.zero(household.currency).formatted : s.estimatedValue.map(\.formatted).joined(separator: " + ")
        let score = s.score.percent.map { "\($0)%" } ?? "—"
        return """
            \(household.name)
              Items                  \(s.itemCount) across \(s.roomsInUse) room\(s.roomsInUse == 1 ? "" : "s")
              Estimated value        \(value)
              Documentation score    \(score) (\(s.score.documented) of \(s.score.total) documented: photo, value, category and room)
              Needing a photo        \(s.needsPhoto)
              Needing a receipt      \(s.needsReceipt)
              Needing a value        \(s.needsValue)
              High value (> \(s.highValueThreshold.formatted))  \(s.highValueCount)
            """
    }

    /// `{"household": {"id", "name"}, "summary": {…the API's /summary…}}`.
    struct StatsJSON: Encodable {
        struct HouseholdJSON: Encodable {
            let id: String
            let name: String
        }
        let household: HouseholdJSON
        let summary: SummaryJSON

        init(household h: Household, summary s: InventorySummary) {
            household = HouseholdJSON(id: h.id.description, name: h.name)
            summary = SummaryJSON(s)
        }
    }
}
