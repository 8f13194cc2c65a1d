import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

extension PostgresStore: LicenceStore {
    public func instanceID() async throws -> String {
        try await withStoreErrors {
            for try await id in try await client.query("SELECT id FROM instance ORDER BY created_at LIMIT 1", logger: logger).decode(String.self) {
                return id
            }
            return ""
        }
    }

    public func installLicence(key: String, keyID: String, household: HouseholdID?, now: Date) async throws {
        try await withStoreErrors {
            try await client.query("""
                INSERT INTO licence (key, household_id, key_id, installed_at) VALUES (\(key), \(household?.rawValue), \(keyID), \(now.millis))
                ON CONFLICT (key) DO NOTHING
                """, logger: logger)
        }
    }

    public func licences(for household: HouseholdID?) async throws -> [InstalledLicence] {
        try await withStoreErrors {
            let query: PostgresQuery = if let household {
                """
                SELECT key, household_id, installed_at FROM licence WHERE household_id = \(household.rawValue) OR household_id IS NULL
                ORDER BY installed_at DESC, key
                """
            } else {
                "SELECT key, household_id, installed_at FROM licence ORDER BY installed_at DESC, key"
            }
            var licences: [InstalledLicence] = []
            for try await (key, householdID, installed) in try await client.query(query, logger: logger).decode((String, UUID?, Int64).self) {
                licences.append(InstalledLicence(key: key, householdID: householdID.map(HouseholdID.init), installedAt: Date(millis: installed)))
            }
            return licences
        }
    }

    public func itemCount(_ householdID: HouseholdID) async throws -> Int {
        try await withStoreErrors {
            for try await count in try await client.query("SELECT items FROM item_stats WHERE household_id = \(householdID.rawValue)", logger: logger)
                .decode(Int64.self) {
                return Int(count)
            }
            return 0
        }
    }
}
