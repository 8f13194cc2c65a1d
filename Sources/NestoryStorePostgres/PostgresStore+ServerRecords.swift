import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

extension PostgresStore: ServerRecordStore {
    public func serverRecords() async throws -> ServerRecords {
        let logger = logger
        let records = try await transaction { c in
            // One snapshot for every table, whatever is written meanwhile.
            try await c.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            var records = ServerRecords()
            for try await id in try await c.query("SELECT id FROM instance ORDER BY created_at LIMIT 1", logger: logger).decode(String.self) {
                records.instanceID = id
            }
            for try await row in try await c.query("""
                SELECT id::text, email, display_name, password_hash, created_at, theme, lock_minutes, tips_dismissed, warranty_reminders, weekly_nudge
                FROM app_user
                """, logger: logger) {
                let r = row.makeRandomAccess()
                records.accounts.append(.init(id: try r[0].decode(String.self), email: try r[1].decode(String.self), displayName: try r[2].decode(String.self),
                                              passwordHash: try r[3].decode(String.self), createdAt: try r[4].decode(Int64.self),
                                              theme: try r[5].decode(String.self), lockMinutes: Int(try r[6].decode(Int32.self)),
                                              tipsDismissed: try r[7].decode(Int64.self), warrantyReminders: try r[8].decode(Bool.self),
                                              weeklyNudge: try r[9].decode(Bool.self)))
            }
            for try await row in try await c.query("""
                SELECT id::text, credential_id, user_id::text, name, public_key, sign_count, backup_eligible, created_at, last_used_at FROM passkey
                """, logger: logger) {
                let (id, credential, user, name, key, count, eligible, created, used) =
                    try row.decode((String, Data, String, String, Data, Int64, Bool, Int64, Int64?).self)
                records.passkeys.append(.init(id: id, credentialID: credential, userID: user, name: name, publicKey: key, signCount: count,
                                              backupEligible: eligible, createdAt: created, lastUsedAt: used))
            }
            for try await row in try await c.query("""
                SELECT id::text, token_hash, user_id::text, household_id::text, name, scope, created_at, expires_at, last_used_at FROM api_token
                """, logger: logger) {
                let (id, hash, user, household, name, scope, created, expires, used) =
                    try row.decode((String, String, String, String, String, String, Int64, Int64?, Int64?).self)
                records.apiTokens.append(.init(id: id, tokenHash: hash, userID: user, householdID: household, name: name, scope: scope,
                                               createdAt: created, expiresAt: expires, lastUsedAt: used))
            }
            for try await (user, token, hash, created) in try await c.query(
                "SELECT user_id::text, token, token_hash, created_at FROM calendar_feed", logger: logger).decode((String, String, String, Int64).self) {
                records.calendarFeeds.append(.init(userID: user, token: token, tokenHash: hash, createdAt: created))
            }
            for try await (household, url, secret, created, attempt, status, error) in try await c.query("""
                SELECT household_id::text, url, secret, created_at, last_attempt_at, last_status, last_error FROM household_webhook
                """, logger: logger).decode((String, String, String, Int64, Int64?, Int32?, String?).self) {
                records.webhooks.append(.init(householdID: household, url: url, secret: secret, createdAt: created, lastAttemptAt: attempt,
                                              lastStatus: status.map(Int.init), lastError: error))
            }
            for try await (household, event, sent) in try await c.query(
                "SELECT household_id::text, event_id, sent_at FROM reminder_sent", logger: logger).decode((String, String, Int64).self) {
                records.sentEvents.append(.init(householdID: household, eventID: event, sentAt: sent))
            }
            for try await (key, household, keyID, installed) in try await c.query(
                "SELECT key, household_id::text, key_id, installed_at FROM licence", logger: logger).decode((String, String?, String, Int64).self) {
                records.licences.append(.init(key: key, householdID: household, keyID: keyID, installedAt: installed))
            }
            for try await (code, source, found, name, brand, category, image, fetched) in try await c.query(
                "SELECT code, source, found, name, brand, category, image_url, fetched_at FROM product", logger: logger)
                .decode((String, String, Bool, String?, String?, String?, String?, Int64).self) {
                records.products.append(.init(code: code, source: source, found: found, name: name, brand: brand, category: category,
                                              imageURL: image, fetchedAt: fetched))
            }
            return records
        }
        return records.sortedByKey()
    }

    public func applyServerRecords(put: ServerRecords, delete: ServerRecords) async throws {
        let logger = logger
        func uuid(_ text: String) throws -> UUID {
            guard let id = UUID(uuidString: text) else { throw DomainError.invalid(field: "id", message: "\(text) is not an id (a UUID).") }
            return id
        }
        try await transaction { c in
            for row in delete.products {
                try await c.query("DELETE FROM product WHERE code = \(row.code) AND source = \(row.source)", logger: logger)
            }
            for row in delete.licences { try await c.query("DELETE FROM licence WHERE key = \(row.key)", logger: logger) }
            for row in delete.sentEvents {
                try await c.query("DELETE FROM reminder_sent WHERE household_id = \(try uuid(row.householdID)) AND event_id = \(row.eventID)",
                                  logger: logger)
            }
            for row in delete.webhooks {
                try await c.query("DELETE FROM household_webhook WHERE household_id = \(try uuid(row.householdID))", logger: logger)
            }
            for row in delete.calendarFeeds { try await c.query("DELETE FROM calendar_feed WHERE user_id = \(try uuid(row.userID))", logger: logger) }
            for row in delete.apiTokens { try await c.query("DELETE FROM api_token WHERE id = \(try uuid(row.id))", logger: logger) }
            for row in delete.passkeys { try await c.query("DELETE FROM passkey WHERE id = \(try uuid(row.id))", logger: logger) }
            for row in delete.accounts { try await c.query("DELETE FROM app_user WHERE id = \(try uuid(row.id))", logger: logger) }

            if let id = put.instanceID { try await c.query("UPDATE instance SET id = \(id)", logger: logger) }
            for row in put.accounts {
                let id = try uuid(row.id)
                try await c.query("""
                    DELETE FROM session WHERE user_id = \(id) AND EXISTS (SELECT 1 FROM app_user WHERE id = \(id) AND password_hash <> \(row.passwordHash))
                    """, logger: logger)
                try await c.query("""
                    INSERT INTO app_user (id, email, display_name, password_hash, created_at, theme, lock_minutes, tips_dismissed, warranty_reminders,
                                          weekly_nudge)
                    VALUES (\(id), \(row.email), \(row.displayName), \(row.passwordHash), \(row.createdAt), \(row.theme), \(Int32(clamping: row.lockMinutes)),
                            \(row.tipsDismissed), \(row.warrantyReminders), \(row.weeklyNudge))
                    ON CONFLICT (id) DO UPDATE SET email = excluded.email, display_name = excluded.display_name,
                        password_hash = excluded.password_hash, created_at = excluded.created_at, theme = excluded.theme,
                        lock_minutes = excluded.lock_minutes, tips_dismissed = excluded.tips_dismissed,
                        warranty_reminders = excluded.warranty_reminders, weekly_nudge = excluded.weekly_nudge
                    """, logger: logger)
            }
            for row in put.passkeys {
                try await c.query("""
                    INSERT INTO passkey (id, credential_id, user_id, name, public_key, sign_count, backup_eligible, created_at, last_used_at)
                    VALUES (\(try uuid(row.id)), \(row.credentialID), \(try uuid(row.userID)), \(row.name), \(row.publicKey), \(row.signCount),
                            \(row.backupEligible), \(row.createdAt), \(row.lastUsedAt))
                    ON CONFLICT (id) DO UPDATE SET credential_id = excluded.credential_id, user_id = excluded.user_id, name = excluded.name,
                        public_key = excluded.public_key, sign_count = excluded.sign_count, backup_eligible = excluded.backup_eligible,
                        created_at = excluded.created_at, last_used_at = excluded.last_used_at
                    """, logger: logger)
            }
            for row in put.apiTokens {
                try await c.query("""
                    INSERT INTO api_token (id, token_hash, user_id, household_id, name, scope, created_at, expires_at, last_used_at)
                    VALUES (\(try uuid(row.id)), \(row.tokenHash), \(try uuid(row.userID)), \(try uuid(row.householdID)), \(row.name), \(row.scope),
                            \(row.createdAt), \(row.expiresAt), \(row.lastUsedAt))
                    ON CONFLICT (id) DO UPDATE SET token_hash = excluded.token_hash, user_id = excluded.user_id,
                        household_id = excluded.household_id, name = excluded.name, scope = excluded.scope, created_at = excluded.created_at,
                        expires_at = excluded.expires_at, last_used_at = excluded.last_used_at
                    """, logger: logger)
            }
            for row in put.calendarFeeds {
                try await c.query("""
                    INSERT INTO calendar_feed (user_id, token, token_hash, created_at) VALUES (\(try uuid(row.userID)), \(row.token), \(row.tokenHash),
                        \(row.createdAt))
                    ON CONFLICT (user_id) DO UPDATE SET token = excluded.token, token_hash = excluded.token_hash, created_at = excluded.created_at
                    """, logger: logger)
            }
            for row in put.webhooks {
                try await c.query("""
                    INSERT INTO household_webhook (household_id, url, secret, created_at, last_attempt_at, last_status, last_error)
                    VALUES (\(try uuid(row.householdID)), \(row.url), \(row.secret), \(row.createdAt), \(row.lastAttemptAt),
                            \(row.lastStatus.map { Int32(clamping: $0) }), \(row.lastError))
                    ON CONFLICT (household_id) DO UPDATE SET url = excluded.url, secret = excluded.secret, created_at = excluded.created_at,
                        last_attempt_at = excluded.last_attempt_at, last_status = excluded.last_status, last_error = excluded.last_error
                    """, logger: logger)
            }
            for row in put.sentEvents {
                try await c.query("""
                    INSERT INTO reminder_sent (household_id, event_id, sent_at) VALUES (\(try uuid(row.householdID)), \(row.eventID), \(row.sentAt))
                    ON CONFLICT (household_id, event_id) DO UPDATE SET sent_at = excluded.sent_at
                    """, logger: logger)
            }
            for row in put.licences {
                try await c.query("""
                    INSERT INTO licence (key, household_id, key_id, installed_at)
                    VALUES (\(row.key), \(try row.householdID.map(uuid)), \(row.keyID), \(row.installedAt))
                    ON CONFLICT (key) DO UPDATE SET household_id = excluded.household_id, key_id = excluded.key_id,
                        installed_at = excluded.installed_at
                    """, logger: logger)
            }
            // The catalogue can be millions of rows: a statement per 5,000, as JSON (nulls kept apart from empty text).
            struct ProductJSON: Encodable {
                let code, source: String
                let found: Bool
                let name, brand, category, image_url: String?
                let fetched_at: Int64
            }
            for start in stride(from: 0, to: put.products.count, by: 5_000) {
                let rows = put.products[start..<min(start + 5_000, put.products.count)].map {
                    ProductJSON(code: $0.code, source: $0.source, found: $0.found, name: $0.name, brand: $0.brand, category: $0.category,
                                image_url: $0.imageURL, fetched_at: $0.fetchedAt)
                }
                let json = String(decoding: try JSONEncoder().encode(rows), as: UTF8.self)
                try await c.query("""
                    INSERT INTO product (code, source, found, name, brand, category, image_url, fetched_at)
                    SELECT code, source, found, name, brand, category, image_url, fetched_at
                    FROM jsonb_to_recordset(\(json)::jsonb) AS t(code text, source text, found boolean, name text, brand text, category text,
                                                                  image_url text, fetched_at bigint)
                    ON CONFLICT (code, source) DO UPDATE SET found = excluded.found, name = excluded.name, brand = excluded.brand,
                        category = excluded.category, image_url = excluded.image_url, fetched_at = excluded.fetched_at
                    """, logger: logger)
            }
        }
    }
}
