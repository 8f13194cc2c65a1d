import Foundation
internal import GRDB
import NestoryDomain
import NestoryStoreInterfaces

/// What the server keeps beside its households' archives, on SQLite (`ServerRecordStore`), for `nestory copy`: each
/// call runs the store's own method off the caller's thread (`AppDatabase.offload`).
public struct SQLiteServerRecordStore: ServerRecordStore {
    public let database: AppDatabase

    public init(_ database: AppDatabase) { self.database = database }

    public func serverRecords() async throws -> ServerRecords { try await database.offload { try $0.serverRecords() } }
    public func applyServerRecords(put: ServerRecords, delete: ServerRecords) async throws {
        try await database.offload { try $0.applyServerRecords(put: put, delete: delete) }
    }
}

extension AppDatabase {
    /// Every account, passkey, API token, calendar feed, webhook, sent event, licence and product row, and the server's
    /// id, in one snapshot, each kind in its key's order.
    public func serverRecords() throws -> ServerRecords {
        try read { db in
            var records = ServerRecords(instanceID: try String.fetchOne(db, sql: "SELECT id FROM instance LIMIT 1"))
            records.accounts = try Row.fetchAll(db, sql: """
                SELECT id, email, display_name, password_hash, created_at, theme, lock_minutes, tips_dismissed, warranty_reminders, weekly_nudge
                FROM user
                """).map { row in
                ServerRecords.Account(id: row["id"], email: row["email"], displayName: row["display_name"], passwordHash: row["password_hash"],
                                      createdAt: row["created_at"], theme: row["theme"], lockMinutes: row["lock_minutes"],
                                      tipsDismissed: row["tips_dismissed"], warrantyReminders: row["warranty_reminders"], weeklyNudge: row["weekly_nudge"])
            }
            records.passkeys = try Row.fetchAll(db, sql: "SELECT * FROM passkey").map { row in
                ServerRecords.Passkey(id: row["id"], credentialID: row["credential_id"], userID: row["user_id"], name: row["name"],
                                      publicKey: row["public_key"], signCount: row["sign_count"], backupEligible: row["backup_eligible"],
                                      createdAt: row["created_at"], lastUsedAt: row["last_used_at"])
            }
            records.apiTokens = try Row.fetchAll(db, sql: "SELECT * FROM api_token").map { row in
                ServerRecords.APIToken(id: row["id"], tokenHash: row["token_hash"], userID: row["user_id"], householdID: row["household_id"],
                                       name: row["name"], scope: row["scope"], createdAt: row["created_at"], expiresAt: row["expires_at"],
                                       lastUsedAt: row["last_used_at"])
            }
            records.calendarFeeds = try Row.fetchAll(db, sql: "SELECT * FROM calendar_feed").map { row in
                ServerRecords.CalendarFeed(userID: row["user_id"], token: row["token"], tokenHash: row["token_hash"], createdAt: row["created_at"])
            }
            records.webhooks = try Row.fetchAll(db, sql: "SELECT * FROM household_webhook").map { row in
                ServerRecords.Webhook(householdID: row["household_id"], url: row["url"], secret: row["secret"], createdAt: row["created_at"],
                                      lastAttemptAt: row["last_attempt_at"], lastStatus: row["last_status"], lastError: row["last_error"])
            }
            records.sentEvents = try Row.fetchAll(db, sql: "SELECT * FROM reminder_sent").map { row in
                ServerRecords.SentEvent(householdID: row["household_id"], eventID: row["event_id"], sentAt: row["sent_at"])
            }
            records.licences = try Row.fetchAll(db, sql: "SELECT * FROM licence").map { row in
                ServerRecords.Licence(key: row["key"], householdID: row["household_id"], keyID: row["key_id"], installedAt: row["installed_at"])
            }
            records.products = try Row.fetchAll(db, sql: "SELECT * FROM product").map { row in
                ServerRecords.Product(code: row["code"], source: row["source"], found: row["found"], name: row["name"], brand: row["brand"],
                                      category: row["category"], imageURL: row["image_url"], fetchedAt: row["fetched_at"])
            }
            return records.sortedByKey()
        }
    }

    /// In one transaction: deletes `delete`'s rows by key, then inserts `put`'s or replaces the rows with their keys,
    /// keeping the ids and times given. A changed password hash ends that account's sessions; a given `instanceID`
    /// becomes the server's id.
    public func applyServerRecords(put: ServerRecords, delete: ServerRecords) throws {
        try write { db in
            for row in delete.products {
                try db.execute(sql: "DELETE FROM product WHERE code = ? AND source = ?", arguments: [row.code, row.source])
            }
            for row in delete.licences { try db.execute(sql: "DELETE FROM licence WHERE key = ?", arguments: [row.key]) }
            for row in delete.sentEvents {
                try db.execute(sql: "DELETE FROM reminder_sent WHERE household_id = ? AND event_id = ?", arguments: [row.householdID, row.eventID])
            }
            for row in delete.webhooks { try db.execute(sql: "DELETE FROM household_webhook WHERE household_id = ?", arguments: [row.householdID]) }
            for row in delete.calendarFeeds { try db.execute(sql: "DELETE FROM calendar_feed WHERE user_id = ?", arguments: [row.userID]) }
            for row in delete.apiTokens { try db.execute(sql: "DELETE FROM api_token WHERE id = ?", arguments: [row.id]) }
            for row in delete.passkeys { try db.execute(sql: "DELETE FROM passkey WHERE id = ?", arguments: [row.id]) }
            for row in delete.accounts { try db.execute(sql: "DELETE FROM user WHERE id = ?", arguments: [row.id]) }

            if let id = put.instanceID { try db.execute(sql: "UPDATE instance SET id = ?", arguments: [id]) }
            for row in put.accounts {
                try db.execute(sql: "DELETE FROM session WHERE user_id IN (SELECT id FROM user WHERE id = ? AND password_hash <> ?)",
                               arguments: [row.id, row.passwordHash])
                try db.execute(sql: """
                    INSERT INTO user (id, email, display_name, password_hash, created_at, theme, lock_minutes, tips_dismissed, warranty_reminders,
                                      weekly_nudge)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET email = excluded.email, display_name = excluded.display_name,
                        password_hash = excluded.password_hash, created_at = excluded.created_at, theme = excluded.theme,
                        lock_minutes = excluded.lock_minutes, tips_dismissed = excluded.tips_dismissed,
                        warranty_reminders = excluded.warranty_reminders, weekly_nudge = excluded.weekly_nudge
                    """, arguments: [row.id, row.email, row.displayName, row.passwordHash, row.createdAt, row.theme, row.lockMinutes,
                                     row.tipsDismissed, row.warrantyReminders, row.weeklyNudge])
            }
            for row in put.passkeys {
                try db.execute(sql: """
                    INSERT INTO passkey (id, credential_id, user_id, name, public_key, sign_count, backup_eligible, created_at, last_used_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET credential_id = excluded.credential_id, user_id = excluded.user_id, name = excluded.name,
                        public_key = excluded.public_key, sign_count = excluded.sign_count, backup_eligible = excluded.backup_eligible,
                        created_at = excluded.created_at, last_used_at = excluded.last_used_at
                    """, arguments: [row.id, row.credentialID, row.userID, row.name, row.publicKey, row.signCount, row.backupEligible,
                                     row.createdAt, row.lastUsedAt])
            }
            for row in put.apiTokens {
                try db.execute(sql: """
                    INSERT INTO api_token (id, token_hash, user_id, household_id, name, scope, created_at, expires_at, last_used_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET token_hash = excluded.token_hash, user_id = excluded.user_id,
                        household_id = excluded.household_id, name = excluded.name, scope = excluded.scope, created_at = excluded.created_at,
                        expires_at = excluded.expires_at, last_used_at = excluded.last_used_at
                    """, arguments: [row.id, row.tokenHash, row.userID, row.householdID, row.name, row.scope, row.createdAt, row.expiresAt,
                                     row.lastUsedAt])
            }
            for row in put.calendarFeeds {
                try db.execute(sql: """
                    INSERT INTO calendar_feed (user_id, token, token_hash, created_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (user_id) DO UPDATE SET token = excluded.token, token_hash = excluded.token_hash, created_at = excluded.created_at
                    """, arguments: [row.userID, row.token, row.tokenHash, row.createdAt])
            }
            for row in put.webhooks {
                try db.execute(sql: """
                    INSERT INTO household_webhook (household_id, url, secret, created_at, last_attempt_at, last_status, last_error)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (household_id) DO UPDATE SET url = excluded.url, secret = excluded.secret, created_at = excluded.created_at,
                        last_attempt_at = excluded.last_attempt_at, last_status = excluded.last_status, last_error = excluded.last_error
                    """, arguments: [row.householdID, row.url, row.secret, row.createdAt, row.lastAttemptAt, row.lastStatus, row.lastError])
            }
            for row in put.sentEvents {
                try db.execute(sql: """
                    INSERT INTO reminder_sent (household_id, event_id, sent_at) VALUES (?, ?, ?)
                    ON CONFLICT (household_id, event_id) DO UPDATE SET sent_at = excluded.sent_at
                    """, arguments: [row.householdID, row.eventID, row.sentAt])
            }
            for row in put.licences {
                try db.execute(sql: """
                    INSERT INTO licence (key, household_id, key_id, installed_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (key) DO UPDATE SET household_id = excluded.household_id, key_id = excluded.key_id,
                        installed_at = excluded.installed_at
                    """, arguments: [row.key, row.householdID, row.keyID, row.installedAt])
            }
            for row in put.products {
                try db.execute(sql: """
                    INSERT INTO product (code, source, found, name, brand, category, image_url, fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (code, source) DO UPDATE SET found = excluded.found, name = excluded.name, brand = excluded.brand,
                        category = excluded.category, image_url = excluded.image_url, fetched_at = excluded.fetched_at
                    """, arguments: [row.code, row.source, row.found, row.name, row.brand, row.category, row.imageURL, row.fetchedAt])
            }
        }
    }
}
