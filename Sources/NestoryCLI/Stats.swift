import ArgumentParser
import Foundation
import NestoryDomain
import NestoryStore

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print a household's summary figures.")

    @OptionGroup var data: DataOptions

    @Option(help: "The household's name or id (not needed when there is only one).")
    var household: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        try reportingErrors {
            let database = try AppDatabase.open(data.folder, mode: .readCurrent)
            let target = try resolveHousehold(database, household)
            let summary = try database.summary(target.id)
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

    struct StatsJSON: Encodable {
        let householdID: String
        let household: String
        let itemCount: Int
        let roomsInUse: Int
        let estimatedValue: [Amount]
        let documentedCount: Int
        let documentationScorePercent: Int?
        let needsPhoto: Int
        let needsReceipt: Int
        let needsValue: Int
        let highValueCount: Int
        let highValueThreshold: Amount

        struct Amount: Encodable {
            let currency: String
            let amount: String
            let minorUnits: Int64
            init(_ money: Money) {
                currency = money.currency.code
                amount = money.plainAmount
                minorUnits = money.minorUnits
            }
        }

        init(household h: Household, summary s: InventorySummary) {
            householdID = h.id.description
            household = h.name
            itemCount = s.itemCount
            roomsInUse = s.roomsInUse
            estimatedValue = s.estimatedValue.map(Amount.init)
            documentedCount = s.score.documented
            documentationScorePercent = s.score.percent
            needsPhoto = s.needsPhoto
            needsReceipt = s.needsReceipt
            needsValue = s.needsValue
            highValueCount = s.highValueCount
            highValueThreshold = Amount(s.highValueThreshold)
        }
    }
}
