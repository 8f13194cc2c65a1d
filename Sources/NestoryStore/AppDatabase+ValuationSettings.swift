import Foundation
internal import GRDB
import NestoryDomain
import NestoryStoreInterfaces

extension AppDatabase {
    public func valuationSettings(_ householdID: HouseholdID) throws -> StoredValuationSettings {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM valuation_settings WHERE household_id = ?", arguments: [householdID.description]) else {
                return StoredValuationSettings()
            }
            return StoredValuationSettings(analysisBaseURL: row["analysis_base_url"], analysisModel: row["analysis_model"], analysisKey: row["analysis_key"],
                                           analysisKeyHint: row["analysis_key_hint"], searchKey: row["search_key"], searchKeyHint: row["search_key_hint"],
                                           searchCountry: row["search_country"], exchangeRates: row["exchange_rates"],
                                           depreciationTable: row["depreciation_table"])
        }
    }

    public func saveValuationSettings(_ householdID: HouseholdID, _ s: StoredValuationSettings, now: Date) throws {
        try write { db in
            _ = try Self.fetchHousehold(db, householdID)
            try db.execute(sql: """
                INSERT INTO valuation_settings (household_id, analysis_base_url, analysis_model, analysis_key, analysis_key_hint, search_key,
                    search_key_hint, search_country, exchange_rates, depreciation_table, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (household_id) DO UPDATE SET analysis_base_url = excluded.analysis_base_url, analysis_model = excluded.analysis_model,
                    analysis_key = excluded.analysis_key, analysis_key_hint = excluded.analysis_key_hint, search_key = excluded.search_key,
                    search_key_hint = excluded.search_key_hint, search_country = excluded.search_country, exchange_rates = excluded.exchange_rates,
                    depreciation_table = excluded.depreciation_table, updated_at = excluded.updated_at
                """, arguments: [householdID.description, s.analysisBaseURL, s.analysisModel, s.analysisKey, s.analysisKeyHint, s.searchKey,
                                 s.searchKeyHint, s.searchCountry, s.exchangeRates, s.depreciationTable, now.millis])
        }
    }
}
