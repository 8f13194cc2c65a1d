import Foundation
internal import GRDB
import NestoryDomain
import NestoryStoreInterfaces

/// This server's id and its licences on SQLite, as the async interface the services call: each call runs the store's
/// own method off the caller's thread (`AppDatabase.offload`).
public struct SQLiteLicenceStore: LicenceStore {
    public let database: AppDatabase

    public init(_ database: AppDatabase) { self.database = database }

    public func instanceID() async throws -> String { try await database.offload { try $0.instanceID() } }
    public func installLicence(key: String, keyID: String, household: HouseholdID?, now: Date) async throws {
        try await database.offload { try $0.installLicence(key: key, keyID: keyID, household: household, now: now) }
    }
    public func licences(for household: HouseholdID?) async throws -> [InstalledLicence] {
        try await database.offload { try $0.licences(for: household) }
    }
    public func itemCount(_ householdID: HouseholdID) async throws -> Int { try await database.offload { try $0.itemCount(householdID) } }
}

extension AppDatabase {
    /// This server's id, made once by the migration (a licence for a whole server names it).
    public func instanceID() throws -> String {
        try read { db in try String.fetchOne(db, sql: "SELECT id FROM instance LIMIT 1") ?? "" }
    }

    /// Keeps a licence key (already verified by the caller); installing the same key again changes nothing.
    public func installLicence(key: String, keyID: String, household: HouseholdID?, now: Date) throws {
        try write { db in
            try db.execute(sql: "INSERT INTO licence (key, household_id, key_id, installed_at) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO NOTHING",
                           arguments: [key, household?.description, keyID, now.millis])
        }
    }

    /// The licences that may apply to a household: its own and the whole server's, newest first; with no
    /// household, every licence on the server.
    public func licences(for household: HouseholdID?) throws -> [InstalledLicence] {
        try read { db in
            let rows = if let household {
                try Row.fetchAll(db, sql: """
                    SELECT key, household_id, installed_at FROM licence WHERE household_id = ? OR household_id IS NULL ORDER BY installed_at DESC
                    """, arguments: [household.description])
            } else {
                try Row.fetchAll(db, sql: "SELECT key, household_id, installed_at FROM licence ORDER BY installed_at DESC")
            }
            return rows.map { row in
                InstalledLicence(key: row["key"], householdID: (row["household_id"] as String?).flatMap(HouseholdID.init(string:)),
                                 installedAt: Date(millis: row["installed_at"]))
            }
        }
    }

    /// How many items the household has (the counter the triggers keep).
    public func itemCount(_ householdID: HouseholdID) throws -> Int {
        try read { db in try Self.itemsIn(db, householdID.description) }
    }

    static func itemsIn(_ db: Database, _ householdID: String) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT items FROM item_stats WHERE household_id = ?"), arguments: [householdID]) ?? 0
    }
}
