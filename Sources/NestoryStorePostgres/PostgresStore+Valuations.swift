import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

extension PostgresStore: ValuationStore {
    static let valuationColumns = """
        v.id, v.currency, v.rcv_minor, v.rcv_low_minor, v.rcv_high_minor, v.acv_minor, v.acv_low_minor, v.acv_high_minor, v.method, v.confidence,
        v.valued_on, v.sources, v.explanation, v.created_at
        """

    /// A valuation from `valuationColumns`, starting at `first`.
    static func valuationFrom(_ c: PostgresRandomAccessRow, at first: Int, itemID: ItemID) throws -> Valuation? {
        let currency = (try? CurrencyCode(try c[first + 1].decode(String.self))) ?? .usd
        func money(_ index: Int) throws -> Money? {
            try c[first + index].decode(Int64?.self).flatMap { try? Money(minorUnits: $0, currency: currency) }
        }
        func range(_ index: Int) throws -> ValueRange? {
            guard let value = try money(index) else { return nil }
            let low = try money(index + 1) ?? value, high = try money(index + 2) ?? value
            return (try? ValueRange(value: value, low: low, high: high)) ?? ValueRange(exactly: value)
        }
        let sources = (try? JSONDecoder.valuationSources.decode([ValuationSource].self, from: Data(try c[first + 11].decode(String.self).utf8))) ?? []
        return try? Valuation(id: try c[first].decode(UUID.self), itemID: itemID, replacementCost: try range(2), actualCashValue: try range(5),
                              method: ValuationMethod(rawValue: try c[first + 8].decode(String.self)) ?? .manual,
                              confidence: Valuation.Confidence(rawValue: try c[first + 9].decode(String.self)) ?? .low,
                              valuedOn: (try? CalendarDate(iso: try c[first + 10].decode(String.self))) ?? CalendarDate(Date(), in: .current),
                              sources: sources, explanation: try c[first + 12].decode(String?.self),
                              createdAt: Date(millis: try c[first + 13].decode(Int64.self)))
    }

    static func itemSeq(_ connection: PostgresConnection, _ householdID: HouseholdID, _ itemID: ItemID, logger: Logger) async throws -> Int64 {
        for try await seq in try await connection.query("""
            SELECT seq FROM item WHERE household_id = \(householdID.rawValue) AND id = \(itemID.rawValue)
            """, logger: logger).decode(Int64.self) {
            return seq
        }
        throw DomainError.notFound("The item")
    }

    public func addValuation(_ householdID: HouseholdID, _ valuation: Valuation) async throws {
        let sources = String(decoding: try JSONEncoder.valuationSources.encode(valuation.sources), as: UTF8.self)
        let r = valuation.replacementCost, a = valuation.actualCashValue
        try await transaction { connection in
            let seq = try await Self.itemSeq(connection, householdID, valuation.itemID, logger: logger)
            try await connection.query("""
                INSERT INTO valuation (id, household_id, item_seq, currency, rcv_minor, rcv_low_minor, rcv_high_minor,
                                       acv_minor, acv_low_minor, acv_high_minor, method, confidence, valued_on, sources, explanation, created_at)
                VALUES (\(valuation.id), \(householdID.rawValue), \(seq), \(valuation.currency.code),
                        \(r?.value.minorUnits), \(r?.low.minorUnits), \(r?.high.minorUnits),
                        \(a?.value.minorUnits), \(a?.low.minorUnits), \(a?.high.minorUnits),
                        \(valuation.method.rawValue), \(valuation.confidence.rawValue), \(valuation.valuedOn.iso), \(sources),
                        \(valuation.explanation), \(valuation.createdAt.millis))
                """, logger: logger)
        }
    }

    public func valuations(_ householdID: HouseholdID, item itemID: ItemID, limit: Int) async throws -> [Valuation] {
        try await withStoreErrors {
            try await client.withConnection { connection in
                let seq = try await Self.itemSeq(connection, householdID, itemID, logger: logger)
                var found: [Valuation] = []
                for try await row in try await connection.query(PostgresQuery(unsafeSQL: """
                    SELECT \(Self.valuationColumns) FROM valuation v WHERE v.item_seq = $1 ORDER BY v.created_at DESC, v.seq DESC LIMIT $2
                    """, binds: try Self.binds(seq, Int64(limit))), logger: logger) {
                    if let valuation = try Self.valuationFrom(row.makeRandomAccess(), at: 0, itemID: itemID) { found.append(valuation) }
                }
                return found
            }
        }
    }

    public func valuationHistory(_ householdID: HouseholdID, maxDays: Int) async throws -> [ValuationDay] {
        try await withStoreErrors {
            var totals: [(day: CalendarDate, currency: CurrencyCode, count: Int, replacementCost: Int64?, actualCashValue: Int64?)] = []
            // Sums of bigint are numeric in PostgreSQL: back to bigint, exact (a sum past 2^63 minor units fails loudly).
            for try await (dayText, currencyText, count, rcv, acv) in try await client.query("""
                SELECT valued_on, currency, count(*), sum(rcv_minor)::bigint, sum(acv_minor)::bigint
                FROM valuation WHERE household_id = \(householdID.rawValue)
                GROUP BY valued_on, currency ORDER BY valued_on DESC, currency COLLATE "C"
                """, logger: logger).decode((String, String, Int64, Int64?, Int64?).self) {
                guard let day = try? CalendarDate(iso: dayText) else { continue }
                totals.append((day, (try? CurrencyCode(currencyText)) ?? .usd, Int(count), rcv, acv))
            }
            return ValuationDay.days(totals, maxDays: maxDays)
        }
    }

    public func valuations(_ householdID: HouseholdID, on day: CalendarDate, limit: Int) async throws -> [(valuation: Valuation, itemName: String)] {
        try await withStoreErrors {
            var found: [(valuation: Valuation, itemName: String)] = []
            for try await row in try await client.query(PostgresQuery(unsafeSQL: """
                SELECT i.id, i.name, \(Self.valuationColumns) FROM valuation v JOIN item i ON i.seq = v.item_seq
                WHERE v.household_id = $1 AND v.valued_on = $2 ORDER BY v.created_at DESC, v.seq DESC LIMIT $3
                """, binds: try Self.binds(householdID.rawValue, day.iso, Int64(limit))), logger: logger) {
                let c = row.makeRandomAccess()
                if let valuation = try Self.valuationFrom(c, at: 2, itemID: ItemID(try c[0].decode(UUID.self))) {
                    found.append((valuation, try c[1].decode(String.self)))
                }
            }
            return found
        }
    }

    public func itemsWithoutValuation(_ householdID: HouseholdID, limit: Int) async throws -> [ItemID] {
        try await withStoreErrors {
            var items: [ItemID] = []
            for try await id in try await client.query("""
                SELECT id FROM item WHERE household_id = \(householdID.rawValue)
                  AND NOT EXISTS (SELECT 1 FROM valuation WHERE valuation.item_seq = item.seq)
                ORDER BY name_key, seq LIMIT \(Int64(limit))
                """, logger: logger).decode(UUID.self) {
                items.append(ItemID(id))
            }
            return items
        }
    }

    public func latestValuations(_ householdID: HouseholdID, items: [ItemID]) async throws -> [ItemID: Valuation] {
        guard !items.isEmpty else { return [:] }
        return try await withStoreErrors {
            var found: [ItemID: Valuation] = [:]
            for chunk in stride(from: 0, to: items.count, by: 500).map({ Array(items[$0..<min($0 + 500, items.count)]) }) {
                for try await row in try await client.query(PostgresQuery(unsafeSQL: """
                    SELECT i.id, \(Self.valuationColumns) FROM item i
                    JOIN LATERAL (SELECT * FROM valuation WHERE valuation.item_seq = i.seq ORDER BY created_at DESC, seq DESC LIMIT 1) v ON true
                    WHERE i.household_id = $1 AND i.id = ANY($2)
                    """, binds: try Self.binds(householdID.rawValue, chunk.map(\.rawValue))), logger: logger) {
                    let c = row.makeRandomAccess()
                    let id = ItemID(try c[0].decode(UUID.self))
                    if let valuation = try Self.valuationFrom(c, at: 1, itemID: id) { found[id] = valuation }
                }
            }
            return found
        }
    }

    public func valuationSettings(_ householdID: HouseholdID) async throws -> StoredValuationSettings {
        try await withStoreErrors {
            for try await row in try await client.query("""
                SELECT analysis_base_url, analysis_model, analysis_key, analysis_key_hint, search_key, search_key_hint, search_country,
                       exchange_rates, depreciation_table
                FROM valuation_settings WHERE household_id = \(householdID.rawValue)
                """, logger: logger) {
                let c = row.makeRandomAccess()
                func text(_ index: Int) throws -> String? { try c[index].decode(String?.self) }
                return StoredValuationSettings(analysisBaseURL: try text(0), analysisModel: try text(1), analysisKey: try text(2),
                                               analysisKeyHint: try text(3), searchKey: try text(4), searchKeyHint: try text(5),
                                               searchCountry: try text(6), exchangeRates: try text(7), depreciationTable: try text(8))
            }
            return StoredValuationSettings()
        }
    }

    public func saveValuationSettings(_ householdID: HouseholdID, _ s: StoredValuationSettings, now: Date) async throws {
        try await transaction { connection in
            _ = try await Self.fetchHousehold(connection, householdID, logger: logger)
            try await connection.query("""
                INSERT INTO valuation_settings (household_id, analysis_base_url, analysis_model, analysis_key, analysis_key_hint, search_key,
                    search_key_hint, search_country, exchange_rates, depreciation_table, updated_at)
                VALUES (\(householdID.rawValue), \(s.analysisBaseURL), \(s.analysisModel), \(s.analysisKey), \(s.analysisKeyHint), \(s.searchKey),
                        \(s.searchKeyHint), \(s.searchCountry), \(s.exchangeRates), \(s.depreciationTable), \(now.millis))
                ON CONFLICT (household_id) DO UPDATE SET analysis_base_url = EXCLUDED.analysis_base_url, analysis_model = EXCLUDED.analysis_model,
                    analysis_key = EXCLUDED.analysis_key, analysis_key_hint = EXCLUDED.analysis_key_hint, search_key = EXCLUDED.search_key,
                    search_key_hint = EXCLUDED.search_key_hint, search_country = EXCLUDED.search_country, exchange_rates = EXCLUDED.exchange_rates,
                    depreciation_table = EXCLUDED.depreciation_table, updated_at = EXCLUDED.updated_at
                """, logger: logger)
        }
    }
}
