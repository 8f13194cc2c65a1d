import Foundation
internal import GRDB
import NestoryDomain

extension AppDatabase {
    /// Adds a valuation to the item's history (the item must be the household's).
    public func addValuation(_ householdID: HouseholdID, _ valuation: Valuation) throws {
        let sources = String(decoding: try JSONEncoder.valuationSources.encode(valuation.sources), as: UTF8.self)
        try write { db in
            let seq = try Self.itemSeq(db, householdID, valuation.itemID)
            let r = valuation.replacementCost, a = valuation.actualCashValue
            try db.execute(sql: """
                INSERT INTO valuation (id, household_id, item_seq, currency, rcv_minor, rcv_low_minor, rcv_high_minor,
                                       acv_minor, acv_low_minor, acv_high_minor, method, confidence, valued_on, sources, explanation, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [valuation.id.uuidString.lowercased(), householdID.description, seq, valuation.currency.code,
                                 r?.value.minorUnits, r?.low.minorUnits, r?.high.minorUnits,
                                 a?.value.minorUnits, a?.low.minorUnits, a?.high.minorUnits,
                                 valuation.method.rawValue, valuation.confidence.rawValue, valuation.valuedOn.iso, sources,
                                 valuation.explanation, valuation.createdAt.millis])
        }
    }

    /// An item's valuations, newest first.
    public func valuations(_ householdID: HouseholdID, item itemID: ItemID, limit: Int = 100) throws -> [Valuation] {
        try read { db in
            let seq = try Self.itemSeq(db, householdID, itemID)
            return try Row.fetchAll(db, sql: """
                SELECT * FROM valuation WHERE item_seq = ? ORDER BY created_at DESC, rowid DESC LIMIT ?
                """, arguments: [seq, limit]).compactMap { Self.valuation($0, itemID: itemID) }
        }
    }

    /// The household's valuation history by day (the day each value is for), newest first, with the day's
    /// totals per currency.
    public func valuationHistory(_ householdID: HouseholdID, maxDays: Int = 365) throws -> [ValuationDay] {
        try read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT valued_on, currency, COUNT(*) AS count, SUM(rcv_minor) AS rcv, SUM(acv_minor) AS acv
                FROM valuation WHERE household_id = ?
                GROUP BY valued_on, currency ORDER BY valued_on DESC, currency
                """, arguments: [householdID.description])
            var days: [ValuationDay] = []
            for row in rows {
                guard let day = row.calendarDate("valued_on") else { continue }
                let currency = row.currency("currency")
                let rcv = (row["rcv"] as Int64?).map { Money(uncheckedMinorUnits: $0, currency: currency) }
                let acv = (row["acv"] as Int64?).map { Money(uncheckedMinorUnits: $0, currency: currency) }
                if let last = days.last, last.day == day {
                    days[days.count - 1] = ValuationDay(day: day, count: last.count + row["count"],
                                                        replacementCost: last.replacementCost + (rcv.map { [$0] } ?? []),
                                                        actualCashValue: last.actualCashValue + (acv.map { [$0] } ?? []))
                } else {
                    days.append(ValuationDay(day: day, count: row["count"], replacementCost: rcv.map { [$0] } ?? [], actualCashValue: acv.map { [$0] } ?? []))
                }
            }
            return Array(days.prefix(maxDays))
        }
    }

    static func valuation(_ row: Row, itemID: ItemID) -> Valuation? {
        let currency = row.currency("currency")
        func range(_ prefix: String) -> ValueRange? {
            guard let value = row.money("\(prefix)_minor", currency: currency) else { return nil }
            let low = row.money("\(prefix)_low_minor", currency: currency) ?? value
            let high = row.money("\(prefix)_high_minor", currency: currency) ?? value
            return (try? ValueRange(value: value, low: low, high: high)) ?? ValueRange(exactly: value)
        }
        let sources = (try? JSONDecoder.valuationSources.decode([ValuationSource].self, from: Data((row["sources"] as String).utf8))) ?? []
        return try? Valuation(id: UUID(uuidString: row["id"]) ?? UUID(), itemID: itemID, replacementCost: range("rcv"),
                              actualCashValue: range("acv"), method: ValuationMethod(rawValue: row["method"]) ?? .manual,
                              confidence: Valuation.Confidence(rawValue: row["confidence"]) ?? .low,
                              valuedOn: row.calendarDate("valued_on") ?? CalendarDate(Date(), in: .current), sources: sources,
                              explanation: row["explanation"], createdAt: row.date("created_at"))
    }
}

extension JSONEncoder {
    static var valuationSources: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

extension JSONDecoder {
    static var valuationSources: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }
}
