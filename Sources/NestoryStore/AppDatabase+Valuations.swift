import Foundation
internal import GRDB
import NestoryDomain
import NestoryStoreInterfaces

/// Valuations and their settings on SQLite, as the async interface the services call: each call runs the store's own
/// method off the caller's thread (`AppDatabase.offload`).
public struct SQLiteValuationStore: ValuationStore {
    public let database: AppDatabase

    public init(_ database: AppDatabase) { self.database = database }

    private func run<T: Sendable>(_ body: @escaping @Sendable (AppDatabase) throws -> T) async throws -> T {
        try await database.offload(body)
    }

    public func addValuation(_ householdID: HouseholdID, _ valuation: Valuation) async throws { try await run { try $0.addValuation(householdID, valuation) } }
    public func valuations(_ householdID: HouseholdID, item itemID: ItemID, limit: Int) async throws -> [Valuation] {
        try await run { try $0.valuations(householdID, item: itemID, limit: limit) }
    }
    public func valuationHistory(_ householdID: HouseholdID, maxDays: Int) async throws -> [ValuationDay] {
        try await run { try $0.valuationHistory(householdID, maxDays: maxDays) }
    }
    public func valuations(_ householdID: HouseholdID, on day: CalendarDate, limit: Int) async throws -> [(valuation: Valuation, itemName: String)] {
        try await run { try $0.valuations(householdID, on: day, limit: limit) }
    }
    public func itemsWithoutValuation(_ householdID: HouseholdID, limit: Int) async throws -> [ItemID] {
        try await run { try $0.itemsWithoutValuation(householdID, limit: limit) }
    }
    public func latestValuations(_ householdID: HouseholdID, items: [ItemID]) async throws -> [ItemID: Valuation] {
        try await run { try $0.latestValuations(householdID, items: items) }
    }
    public func valuationSettings(_ householdID: HouseholdID) async throws -> StoredValuationSettings {
        try await run { try $0.valuationSettings(householdID) }
    }
    public func saveValuationSettings(_ householdID: HouseholdID, _ settings: StoredValuationSettings, now: Date) async throws {
        try await run { try $0.saveValuationSettings(householdID, settings, now: now) }
    }
}

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
            return ValuationDay.days(rows.compactMap { row in
                guard let day = row.calendarDate("valued_on") else { return nil }
                return (day, row.currency("currency"), row["count"], row["rcv"], row["acv"])
            }, maxDays: maxDays)
        }
    }

    /// The valuations for one day of the history (the day each value is for), with their items' names, newest first.
    public func valuations(_ householdID: HouseholdID, on day: CalendarDate, limit: Int = 500) throws -> [(valuation: Valuation, itemName: String)] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT valuation.*, item.id AS item_id, item.name AS item_name FROM valuation JOIN item ON item.seq = valuation.item_seq
                WHERE valuation.household_id = ? AND valued_on = ? ORDER BY valuation.created_at DESC, valuation.rowid DESC LIMIT ?
                """, arguments: [householdID.description, day.iso, limit]).compactMap { row in
                guard let itemID = ItemID(string: row["item_id"]), let valuation = Self.valuation(row, itemID: itemID) else { return nil }
                return (valuation, row["item_name"])
            }
        }
    }

    /// Items that have no valuation yet, by name (for "value everything that lacks a value").
    public func itemsWithoutValuation(_ householdID: HouseholdID, limit: Int) throws -> [ItemID] {
        try read { db in
            try String.fetchAll(db, sql: """
                SELECT id FROM item WHERE household_id = ? AND NOT EXISTS (SELECT 1 FROM valuation WHERE valuation.item_seq = item.seq)
                ORDER BY name_key, seq LIMIT ?
                """, arguments: [householdID.description, limit]).compactMap(ItemID.init(string:))
        }
    }

    /// Each item's latest valuation, for the reports and exports (items without one are absent).
    public func latestValuations(_ householdID: HouseholdID, items: [ItemID]) throws -> [ItemID: Valuation] {
        guard !items.isEmpty else { return [:] }
        return try read { db in
            var found: [ItemID: Valuation] = [:]
            for chunk in stride(from: 0, to: items.count, by: 500).map({ Array(items[$0..<min($0 + 500, items.count)]) }) {
                let marks = chunk.map { _ in "?" }.joined(separator: ",")
                let rows = try Row.fetchAll(db, sql: """
                    SELECT valuation.*, item.id AS item_id FROM item JOIN valuation ON valuation.rowid = (
                        SELECT v.rowid FROM valuation v WHERE v.item_seq = item.seq ORDER BY v.created_at DESC, v.rowid DESC LIMIT 1)
                    WHERE item.household_id = ? AND item.id IN (\(marks))
                    """, arguments: StatementArguments([householdID.description] + chunk.map(\.description)))
                for row in rows {
                    if let id = ItemID(string: row["item_id"]), let valuation = Self.valuation(row, itemID: id) { found[id] = valuation }
                }
            }
            return found
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
