internal import GRDB

/// The schema's history. Append-only: a migration that has shipped is never edited; a change is a
/// new migration with a new name. Migrations use SQL only, never app types, so they stay valid as
/// the code moves on.
enum Migrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("2026-11-22-core", migrate: core)
        migrator.registerMigration("2026-11-22-sessions", migrate: sessions)
        migrator.registerMigration("2026-11-22-summary-counters", migrate: summaryCounters)
        migrator.registerMigration("2026-11-22-filtered-sort-indexes", migrate: filteredSortIndexes)
        migrator.registerMigration("2026-11-22-chart-counters", migrate: chartCounters)
        migrator.registerMigration("2026-11-23-products", migrate: products)
        migrator.registerMigration("2026-11-23-reports", migrate: reports)
        migrator.registerMigration("2026-11-24-jobs", migrate: jobs)
        migrator.registerMigration("2026-11-24-search-folding", migrate: searchFolding)
        migrator.registerMigration("2026-11-25-household-scanning", migrate: householdScanning)
        migrator.registerMigration("2026-11-25-user-theme", migrate: userTheme)
        migrator.registerMigration("2026-11-25-idempotency-keys", migrate: idempotencyKeys)
        migrator.registerMigration("2026-11-25-capture-counters", migrate: captureCounters)
        migrator.registerMigration("2026-11-25-reminders", migrate: reminders)
        migrator.registerMigration("2026-11-25-tips", migrate: tips)
        migrator.registerMigration("2026-11-25-valuations", migrate: valuations)
        migrator.registerMigration("2026-11-26-licences", migrate: licences)
        migrator.registerMigration("2026-11-26-valuation-providers", migrate: valuationProviders)
        migrator.registerMigration("2026-11-26-valuation-intake", migrate: valuationIntake)
        migrator.registerMigration("2026-11-26-app-lock", migrate: appLock)
        migrator.registerMigration("2026-11-27-high-value-counter", migrate: highValueCounter)
        migrator.registerMigration("2026-11-27-search-prefixes", migrate: searchPrefixes)
        migrator.registerMigration("2026-11-27-api-tokens", migrate: apiTokens)
        // Migrations that only add tables, columns and triggers check foreign keys as they go: GRDB's default checks the
        // whole file after the migration, which at a million items kept a server's first start on the new version
        // from answering for about 3 s.
        migrator.registerMigration("2026-11-28-item-list-version", foreignKeyChecks: .immediate, migrate: itemListVersion)
        migrator.registerMigration("2026-11-29-item-content-version", foreignKeyChecks: .immediate, migrate: itemContentVersion)
        migrator.registerMigration("2026-11-29-sign-in-failures", foreignKeyChecks: .immediate, migrate: signInFailures)
        migrator.registerMigration("2026-11-29-job-leases", foreignKeyChecks: .immediate, migrate: jobLeases)
        migrator.registerMigration("2026-11-30-account-version", foreignKeyChecks: .immediate, migrate: accountVersion)
        migrator.registerMigration("2026-11-30-idempotency-claims", foreignKeyChecks: .immediate, migrate: idempotencyClaims)
        migrator.registerMigration("2026-12-01-household-time-zone", foreignKeyChecks: .immediate, migrate: householdTimeZone)
        return migrator
    }

    /// Where a household lives (an IANA time zone name), so its days are its own and not the server's; null: the
    /// server's clock, as before.
    private static func householdTimeZone(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE household ADD COLUMN time_zone TEXT")
    }

    /// The idempotency keys whose first request is still running, in the store rather than one process's memory, so
    /// that two requests with one key on two servers run once. A claim holds until `claimed_until` (ms), so a server
    /// that died mid-request does not hold the key for ever; the answer's row ends it.
    private static func idempotencyClaims(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE idempotency_claim (
                household_id TEXT NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                key TEXT NOT NULL,
                claimed_until INTEGER NOT NULL,
                PRIMARY KEY (household_id, key)
            ) WITHOUT ROWID;
            """)
    }

    /// Leases, so several server processes can share one queue: who claimed a job (`claimed_by`, the runner's
    /// process) and until when the claim holds unless renewed (`lease_until`, ms). Recovery takes back only running
    /// jobs whose lease has passed (or whose holder is known dead); a job claimed before this change has none, so
    /// it counts as expired.
    private static func jobLeases(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE job ADD COLUMN claimed_by TEXT;
            ALTER TABLE job ADD COLUMN lease_until INTEGER;
            CREATE INDEX job_running_lease ON job(lease_until) WHERE state = 'running';
            """)
    }

    /// A number per household that every change to what its inventory list is sorted or filtered by moves on: an
    /// item added, removed, renamed, revalued, moved, re-dated, given or losing a photo, receipt or tag; the
    /// household's high-value threshold or currency (an edit that changes none of them, such as the notes, leaves it). A copy of those keys held in memory (ItemListCache) is used
    /// only while the number it was read with is still the stored one. The number only grows (rows are never
    /// removed, not even with their household), so a copy can never match a later state by accident.
    private static func itemListVersion(_ db: Database) throws {
        let bump = { (household: String) in
            """
            INSERT INTO item_list_version (household_id, version) VALUES (\(household), 1)
            ON CONFLICT (household_id) DO UPDATE SET version = version + 1;
            """
        }
        try db.execute(sql: """
            CREATE TABLE item_list_version (
                household_id TEXT PRIMARY KEY NOT NULL,
                version INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE TRIGGER item_list_insert AFTER INSERT ON item BEGIN
            \(bump("NEW.household_id"))
            END;
            CREATE TRIGGER item_list_delete AFTER DELETE ON item BEGIN
            \(bump("OLD.household_id"))
            END;
            CREATE TRIGGER item_list_update AFTER UPDATE OF household_id, name_key, price_minor, quantity, currency, created_at,
                room_id, category_id, photo_count, receipt_count ON item
            WHEN OLD.household_id IS NOT NEW.household_id OR OLD.name_key IS NOT NEW.name_key OR OLD.price_minor IS NOT NEW.price_minor
                OR OLD.value_minor IS NOT NEW.value_minor OR OLD.currency IS NOT NEW.currency OR OLD.created_at IS NOT NEW.created_at
                OR OLD.room_id IS NOT NEW.room_id OR OLD.category_id IS NOT NEW.category_id OR OLD.photo_count IS NOT NEW.photo_count
                OR OLD.receipt_count IS NOT NEW.receipt_count
            BEGIN
            \(bump("OLD.household_id"))
            \(bump("NEW.household_id"))
            END;
            CREATE TRIGGER item_list_tag_insert AFTER INSERT ON item_tag BEGIN
            \(bump("NEW.household_id"))
            END;
            CREATE TRIGGER item_list_tag_delete AFTER DELETE ON item_tag BEGIN
            \(bump("OLD.household_id"))
            END;
            CREATE TRIGGER item_list_tag_update AFTER UPDATE ON item_tag BEGIN
            \(bump("OLD.household_id"))
            \(bump("NEW.household_id"))
            END;
            CREATE TRIGGER item_list_household AFTER UPDATE OF high_value_threshold_minor, currency ON household BEGIN
            \(bump("NEW.id"))
            END;
            """)
    }

    /// A second number per household beside `item_list_version`'s, `content`: it moves on with every change to
    /// anything the inventory list shows of an item (any column of the item, its tags, its photos; receipts count
    /// through the item's `receipt_count`), so a list answer kept in memory (the JSON list's, `ItemPageCache` in the
    /// web app) is used only while the number it was made with is still the stored one. Like `version` it only
    /// grows. The triggers' names start with `item_list_` so that bulk writes drop and restore them with the others.
    private static func itemContentVersion(_ db: Database) throws {
        let bump = { (household: String) in
            """
            INSERT INTO item_list_version (household_id, version, content) VALUES (\(household), 1, 1)
            ON CONFLICT (household_id) DO UPDATE SET content = content + 1;
            """
        }
        var sql = "ALTER TABLE item_list_version ADD COLUMN content INTEGER NOT NULL DEFAULT 0;\n"
        for table in ["item", "item_tag", "item_photo"] {
            let name = "item_list_content_\(table == "item" ? "" : table.dropFirst(5) + "_")"
            sql += """
                CREATE TRIGGER \(name)insert AFTER INSERT ON \(table) BEGIN
                \(bump("NEW.household_id"))
                END;
                CREATE TRIGGER \(name)delete AFTER DELETE ON \(table) BEGIN
                \(bump("OLD.household_id"))
                END;
                CREATE TRIGGER \(name)update AFTER UPDATE ON \(table) BEGIN
                \(bump("OLD.household_id"))
                \(bump("NEW.household_id"))
                END;

                """
        }
        try db.execute(sql: sql)
    }

    /// One number that grows with every change to what a signed-in request is looked up from (sessions, users, passkeys,
    /// memberships, households), kept by triggers, so by every writer: this server, another one, the command line. A cache
    /// of sessions stays true while it holds (`AppDatabase.accountVersion`), whatever else is written meanwhile.
    private static func accountVersion(_ db: Database) throws {
        var sql = """
            CREATE TABLE account_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
            INSERT INTO account_version (id, version) VALUES (1, 1);

            """
        for table in ["session", "user", "passkey", "membership", "household"] {
            for event in ["INSERT", "UPDATE", "DELETE"] {
                sql += """
                    CREATE TRIGGER account_version_\(table)_\(event.lowercased()) AFTER \(event) ON \(table) BEGIN
                    UPDATE account_version SET version = version + 1 WHERE id = 1;
                    END;

                    """
            }
        }
        try db.execute(sql: sql)
    }

    /// Failed sign-ins per key (an account, an e-mail address, a client address), kept in the database rather than
    /// in one server's memory: the limits then hold across a restart, and across servers on one database.
    private static func signInFailures(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE sign_in_failure (
                key TEXT NOT NULL,
                at INTEGER NOT NULL
            );
            CREATE INDEX sign_in_failure_by_key ON sign_in_failure(key, at);
            CREATE INDEX sign_in_failure_by_time ON sign_in_failure(at);
            """)
    }

    /// The search index also indexes every word's first letter and first two letters (FTS5 `prefix='1 2'`), so the
    /// first keystrokes of a search are terms of their own: at a million items, counting the matches of "s" merged
    /// the lists of every word starting with s first (85 ms). The index is made again with the same text, tokenizer
    /// and rowids (an upgrade at a million items spends about a minute here, once).
    private static func searchPrefixes(_ db: Database) throws {
        try db.execute(sql: """
            DROP TRIGGER item_fts_delete;
            CREATE VIRTUAL TABLE item_fts_prefixed USING fts5(
                name, brand, model, serial, notes, tags, receipts,
                tokenize = 'porter unicode61 remove_diacritics 2',
                prefix = '1 2'
            );
            INSERT INTO item_fts_prefixed (rowid, name, brand, model, serial, notes, tags, receipts)
                SELECT rowid, name, brand, model, serial, notes, tags, receipts FROM item_fts;
            DROP TABLE item_fts;
            ALTER TABLE item_fts_prefixed RENAME TO item_fts;
            CREATE TRIGGER item_fts_delete AFTER DELETE ON item BEGIN
                DELETE FROM item_fts WHERE rowid = OLD.seq;
            END;
            """)
    }

    /// The summary's high-value count kept by triggers like the other counters (at a million items counting it
    /// read 372,742 index entries): an item counts while its value is above the household's threshold in the
    /// threshold's currency. When the owner changes the threshold or the currency, the count is taken again once.
    /// The item triggers upsert the counter row themselves, so they work whichever item_stats trigger runs first.
    private static func highValueCounter(_ db: Database) throws {
        let high = { (row: String) in
            """
            \(row).value_minor > (SELECT high_value_threshold_minor FROM household WHERE id = \(row).household_id)
            AND \(row).currency = (SELECT currency FROM household WHERE id = \(row).household_id)
            """
        }
        let add = { (row: String, sign: String) in
            """
            INSERT INTO item_stats (household_id, items, documented, no_photo, no_receipt, no_value, high_value)
            VALUES (\(row).household_id, 0, 0, 0, 0, 0, \(sign)1)
            ON CONFLICT (household_id) DO UPDATE SET high_value = high_value + excluded.high_value;
            """
        }
        let recount = { (household: String) in
            """
            UPDATE item_stats SET high_value = (
                SELECT COUNT(*) FROM item i JOIN household h ON h.id = i.household_id
                WHERE i.household_id = item_stats.household_id AND i.currency = h.currency AND i.value_minor > h.high_value_threshold_minor)
            WHERE household_id = \(household);
            """
        }
        try db.execute(sql: """
            ALTER TABLE item_stats ADD COLUMN high_value INTEGER NOT NULL DEFAULT 0;
            CREATE TRIGGER item_high_value_insert AFTER INSERT ON item WHEN \(high("NEW")) BEGIN
            \(add("NEW", "+"))
            END;
            CREATE TRIGGER item_high_value_delete AFTER DELETE ON item WHEN \(high("OLD")) BEGIN
            \(add("OLD", "-"))
            END;
            CREATE TRIGGER item_high_value_was AFTER UPDATE OF price_minor, quantity, currency ON item WHEN \(high("OLD")) BEGIN
            \(add("OLD", "-"))
            END;
            CREATE TRIGGER item_high_value_is AFTER UPDATE OF price_minor, quantity, currency ON item WHEN \(high("NEW")) BEGIN
            \(add("NEW", "+"))
            END;
            CREATE TRIGGER household_high_value AFTER UPDATE OF high_value_threshold_minor, currency ON household BEGIN
            \(recount("NEW.id"))
            END;
            \(recount("household_id"))
            """)
    }

    /// Each household's valuation providers, set by its owner: photo analysis (an OpenAI-compatible endpoint: base
    /// URL, model, key) and market search (Tavily: key, country). Keys are AES-GCM sealed (SecretBox) with a key kept
    /// outside the database; only their last four characters are kept in clear, to show "set, ending in …". The
    /// household's own depreciation table (JSON), when the owner changed the standard one. Not in backups.
    private static func valuationProviders(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE valuation_settings (
                household_id TEXT PRIMARY KEY NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                analysis_base_url TEXT, analysis_model TEXT, analysis_key TEXT, analysis_key_hint TEXT,
                search_key TEXT, search_key_hint TEXT, search_country TEXT,
                exchange_rates TEXT,
                depreciation_table TEXT,
                updated_at INTEGER NOT NULL
            );
            """)
    }

    /// Photos taken to value new things from (the PRD's flow from photos alone): stored files that no item uses yet,
    /// until a reviewed proposal makes an item of them (then the row goes and the item's photo uses the file) or they
    /// expire (housekeeping). Not in backups.
    private static func valuationIntake(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE valuation_intake (
                id TEXT PRIMARY KEY NOT NULL,
                household_id TEXT NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                sha256 TEXT NOT NULL REFERENCES blob(sha256),
                created_at INTEGER NOT NULL
            );
            CREATE INDEX valuation_intake_by_household ON valuation_intake(household_id, created_at);
            CREATE INDEX valuation_intake_by_blob ON valuation_intake(sha256);
            """)
    }

    /// This server's id (licences for a whole server name it), and the licence keys installed: a household's
    /// (`household_id`) or the whole server's (NULL). The key text is kept and verified when read, so a key
    /// that expires falls back to Free by itself. Not in backups: a key is installed again from its text.
    private static func licences(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE instance (id TEXT PRIMARY KEY NOT NULL, created_at INTEGER NOT NULL);
            INSERT INTO instance (id, created_at) VALUES (lower(hex(randomblob(16))), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
            CREATE TABLE licence (
                key TEXT PRIMARY KEY NOT NULL,
                household_id TEXT,
                key_id TEXT NOT NULL,
                installed_at INTEGER NOT NULL
            );
            CREATE INDEX licence_by_household ON licence(household_id);
            """)
    }

    /// Every valuation of an item, kept (its history): replacement cost and actual cash value with their ranges
    /// (minor units, one currency), how it was made, its confidence, the day it is for, its sources (JSON) and
    /// its explanation. The purchase price on the item is never touched.
    private static func valuations(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE valuation (
                id TEXT PRIMARY KEY NOT NULL,
                household_id TEXT NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                item_seq INTEGER NOT NULL REFERENCES item(seq) ON DELETE CASCADE,
                currency TEXT NOT NULL CHECK (length(currency) = 3),
                rcv_minor INTEGER, rcv_low_minor INTEGER, rcv_high_minor INTEGER,
                acv_minor INTEGER, acv_low_minor INTEGER, acv_high_minor INTEGER,
                method TEXT NOT NULL CHECK (method IN ('market', 'offline', 'manual')),
                confidence TEXT NOT NULL CHECK (confidence IN ('low', 'medium', 'high')),
                valued_on TEXT NOT NULL,
                sources TEXT NOT NULL DEFAULT '[]',
                explanation TEXT,
                created_at INTEGER NOT NULL,
                CHECK (rcv_minor IS NOT NULL OR acv_minor IS NOT NULL)
            );
            CREATE INDEX valuation_by_item ON valuation(item_seq, created_at);
            CREATE INDEX valuation_by_household ON valuation(household_id, created_at);
            """)
    }

    /// The tips each user dismissed, as bits (Tip.bit), read with their reminder choices.
    private static func tips(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE user ADD COLUMN tips_dismissed INTEGER NOT NULL DEFAULT 0")
    }

    /// Reminders: each user's choices (warranty reminders, the weekly nudge), their calendar feed's secret
    /// (the token to show them, and its hash to find it by), the household's webhook (address, signing
    /// secret, the last delivery's outcome), which events were already sent (each once), and an index
    /// that finds the warranties ending soon without reading every item.
    private static func reminders(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE user ADD COLUMN warranty_reminders INTEGER NOT NULL DEFAULT 1;
            ALTER TABLE user ADD COLUMN weekly_nudge INTEGER NOT NULL DEFAULT 1;
            CREATE TABLE calendar_feed (
                user_id TEXT PRIMARY KEY NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                token TEXT NOT NULL,
                token_hash TEXT NOT NULL UNIQUE,
                created_at INTEGER NOT NULL
            );
            CREATE TABLE household_webhook (
                household_id TEXT PRIMARY KEY NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                url TEXT NOT NULL,
                secret TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                last_attempt_at INTEGER,
                last_status INTEGER,
                last_error TEXT
            );
            CREATE TABLE reminder_sent (
                household_id TEXT NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                event_id TEXT NOT NULL,
                sent_at INTEGER NOT NULL,
                PRIMARY KEY (household_id, event_id)
            ) WITHOUT ROWID;
            CREATE INDEX item_by_warranty ON item(household_id, warranty_expiry) WHERE warranty_expiry IS NOT NULL;
            """)
    }

    /// What the API answered to a request with an `Idempotency-Key`, per household and key, so a replay
    /// (the offline queue's, after a lost response) gets the same answer and never does the work twice.
    /// `fingerprint` is a SHA-256 of the method, the path and the body: a replay must match it.
    /// Rows older than the window (24 h by default) are ignored and swept by the housekeeping.
    private static func idempotencyKeys(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE idempotency_key (
                household_id TEXT NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                key TEXT NOT NULL,
                fingerprint TEXT NOT NULL CHECK (length(fingerprint) = 64),
                status INTEGER NOT NULL,
                headers TEXT NOT NULL,            -- JSON object: the headers that matter (Content-Type, Location)
                body BLOB NOT NULL,
                created_at INTEGER NOT NULL,      -- milliseconds since 1970
                PRIMARY KEY (household_id, key)
            );
            CREATE INDEX idempotency_key_by_age ON idempotency_key(created_at);
            """)
    }

    /// The capture screen's counters: per household, UTC day (YYYY-MM-DD) and event name, a number.
    /// Nothing else: no ids, names, images or free text.
    private static func captureCounters(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE capture_counter (
                household_id TEXT NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                day TEXT NOT NULL,
                event TEXT NOT NULL,
                count INTEGER NOT NULL,
                PRIMARY KEY (household_id, day, event)
            ) WITHOUT ROWID;
            """)
    }

    /// The export history: one row per generated report (PDF), its file in `reports/` of the data
    /// folder (`reports/<id>.pdf`). A row is written only after its file is complete and in place.
    /// How each person wants the app to look (Theme's raw values).
    private static func userTheme(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE user ADD COLUMN theme TEXT NOT NULL DEFAULT 'system'")
    }

    /// Whether the household's Capture tab offers barcode scanning (the owner's switch; on by default).
    private static func householdScanning(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE household ADD COLUMN scanning_enabled INTEGER NOT NULL DEFAULT 1")
    }

    /// The search index again, with letters Unicode does not decompose folded (Søren is found by "soren").
    private static func searchFolding(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM item_fts")
        try db.execute(sql: "INSERT INTO item_fts (rowid, name, brand, model, serial, notes, tags, receipts) SELECT \(AppDatabase.indexedColumns) FROM item")
    }

    /// Background work (reports, backups, receipt reading, imports) as rows: its state, progress,
    /// attempts and result survive a restart, and a job left running by a crash is found at start.
    private static func jobs(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE job (
                id TEXT PRIMARY KEY NOT NULL,
                household_id TEXT NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                kind TEXT NOT NULL,
                subject TEXT,                     -- what it is about (a receipt's id), to find its latest job
                state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted')),
                done INTEGER NOT NULL DEFAULT 0,
                total INTEGER NOT NULL DEFAULT 0,
                payload TEXT NOT NULL,            -- JSON the handler reads
                result TEXT,                      -- JSON the handler returned
                item_results TEXT,                -- JSON object: what became of each item of a batch, by item key
                attempts INTEGER NOT NULL DEFAULT 0,
                max_attempts INTEGER NOT NULL DEFAULT 1,
                next_attempt_at INTEGER NOT NULL, -- milliseconds since 1970
                error_code TEXT,
                message TEXT,                     -- safe to show
                cancel_requested INTEGER NOT NULL DEFAULT 0,
                created_at INTEGER NOT NULL,
                started_at INTEGER,
                finished_at INTEGER,
                updated_at INTEGER NOT NULL
            );
            CREATE INDEX job_due ON job(kind, state, next_attempt_at);
            CREATE INDEX job_by_household ON job(household_id, created_at);
            CREATE INDEX job_by_subject ON job(subject, created_at) WHERE subject IS NOT NULL;
            """)
    }

    private static func reports(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE report (
                id TEXT PRIMARY KEY NOT NULL,
                household_id TEXT NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                kind TEXT NOT NULL,            -- 'inventory' or 'loss'
                created_at INTEGER NOT NULL,   -- milliseconds since 1970
                byte_count INTEGER NOT NULL,
                options TEXT NOT NULL,         -- JSON of the options the report was made with
                file_name TEXT NOT NULL        -- inside reports/
            );
            CREATE INDEX report_by_household ON report(household_id, created_at);
            """)
    }

    /// Products by barcode: the local catalogue (imported) and answers from online providers (a
    /// cache, misses included), shared by every household since they describe public products.
    /// Whether a household asks online providers at all is its own setting, off by default.
    private static func products(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE product (
                code TEXT NOT NULL,
                source TEXT NOT NULL,
                found INTEGER NOT NULL,
                name TEXT,
                brand TEXT,
                category TEXT,
                image_url TEXT,
                fetched_at INTEGER NOT NULL,
                PRIMARY KEY (code, source)
            ) WITHOUT ROWID;
            ALTER TABLE household ADD COLUMN online_product_lookup INTEGER NOT NULL DEFAULT 0;
            """)
    }

    /// The charts' figures (value by category, items by room) kept by triggers like the summary's,
    /// so the inventory page costs the same at any size. `''` stands for "no category" / "no room".
    private static func chartCounters(_ db: Database) throws {
        let add = { (row: String, sign: String) in
            """
            INSERT INTO room_total (household_id, room_id, items) VALUES (\(row).household_id, COALESCE(\(row).room_id, ''), \(sign)1)
            ON CONFLICT (household_id, room_id) DO UPDATE SET items = items + excluded.items;
            INSERT INTO category_total (household_id, category_id, currency, total, items)
            SELECT \(row).household_id, COALESCE(\(row).category_id, ''), \(row).currency, \(sign)\(row).value_minor, \(sign)1
            WHERE \(row).price_minor IS NOT NULL
            ON CONFLICT (household_id, category_id, currency) DO UPDATE SET total = total + excluded.total, items = items + excluded.items;
            """
        }
        try db.execute(sql: """
            CREATE TABLE room_total (
                household_id TEXT NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                room_id TEXT NOT NULL,
                items INTEGER NOT NULL,
                PRIMARY KEY (household_id, room_id)
            ) WITHOUT ROWID;
            CREATE TABLE category_total (
                household_id TEXT NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                category_id TEXT NOT NULL,
                currency TEXT NOT NULL,
                total INTEGER NOT NULL,
                items INTEGER NOT NULL,
                PRIMARY KEY (household_id, category_id, currency)
            ) WITHOUT ROWID;
            CREATE TRIGGER chart_totals_insert AFTER INSERT ON item BEGIN
            \(add("NEW", "+"))
            END;
            CREATE TRIGGER chart_totals_delete AFTER DELETE ON item BEGIN
            \(add("OLD", "-"))
            END;
            CREATE TRIGGER chart_totals_update AFTER UPDATE OF price_minor, quantity, currency, category_id, room_id ON item BEGIN
            \(add("OLD", "-"))
            \(add("NEW", "+"))
            END;
            INSERT INTO room_total (household_id, room_id, items)
            SELECT household_id, COALESCE(room_id, ''), COUNT(*) FROM item GROUP BY household_id, COALESCE(room_id, '');
            INSERT INTO category_total (household_id, category_id, currency, total, items)
            SELECT household_id, COALESCE(category_id, ''), currency, SUM(value_minor), COUNT(*) FROM item
            WHERE price_minor IS NOT NULL GROUP BY household_id, COALESCE(category_id, ''), currency;
            """)
    }

    /// A room or category filter with any sort reads one page from an index in that order, instead of
    /// sorting every item of the room (thousands in a large home).
    private static func filteredSortIndexes(_ db: Database) throws {
        try db.execute(sql: """
            DROP INDEX item_by_room;
            CREATE INDEX item_by_room_name ON item(household_id, room_id, name_key, seq);
            CREATE INDEX item_by_room_value ON item(household_id, room_id, value_minor, seq);
            CREATE INDEX item_by_room_created ON item(household_id, room_id, created_at, seq);
            CREATE INDEX item_by_category_name ON item(household_id, category_id, name_key, seq);
            CREATE INDEX item_by_category_value_sort ON item(household_id, category_id, value_minor, seq);
            CREATE INDEX item_by_category_created ON item(household_id, category_id, created_at, seq);
            """)
    }

    /// The summary strip's figures kept up to date by triggers, so reading them costs the same for
    /// ten items or a million; and an index that answers value-by-category without reading rows.
    private static func summaryCounters(_ db: Database) throws {
        // "Documented" as the domain defines it: photo, value, category and room.
        let documented = { (row: String) in
            "(\(row).photo_count > 0 AND \(row).price_minor IS NOT NULL AND \(row).category_id IS NOT NULL AND \(row).room_id IS NOT NULL)"
        }
        let add = { (row: String, sign: String) in
            """
            INSERT INTO item_stats (household_id, items, documented, no_photo, no_receipt, no_value)
            VALUES (\(row).household_id, \(sign)1, \(sign)\(documented(row)), \(sign)(\(row).photo_count = 0),
                    \(sign)(\(row).receipt_count = 0), \(sign)(\(row).price_minor IS NULL))
            ON CONFLICT (household_id) DO UPDATE SET
                items = items + excluded.items, documented = documented + excluded.documented,
                no_photo = no_photo + excluded.no_photo, no_receipt = no_receipt + excluded.no_receipt,
                no_value = no_value + excluded.no_value;
            INSERT INTO value_total (household_id, currency, total, items)
            SELECT \(row).household_id, \(row).currency, \(sign)\(row).value_minor, \(sign)1 WHERE \(row).price_minor IS NOT NULL
            ON CONFLICT (household_id, currency) DO UPDATE SET total = total + excluded.total, items = items + excluded.items;
            """
        }
        try db.execute(sql: """
            CREATE TABLE item_stats (
                household_id TEXT PRIMARY KEY NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                items INTEGER NOT NULL, documented INTEGER NOT NULL, no_photo INTEGER NOT NULL,
                no_receipt INTEGER NOT NULL, no_value INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE value_total (
                household_id TEXT NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                currency TEXT NOT NULL,
                total INTEGER NOT NULL,
                items INTEGER NOT NULL,
                PRIMARY KEY (household_id, currency)
            ) WITHOUT ROWID;

            CREATE TRIGGER item_stats_insert AFTER INSERT ON item BEGIN
            \(add("NEW", "+"))
            END;
            CREATE TRIGGER item_stats_delete AFTER DELETE ON item BEGIN
            \(add("OLD", "-"))
            END;
            CREATE TRIGGER item_stats_update
            AFTER UPDATE OF photo_count, receipt_count, price_minor, quantity, currency, category_id, room_id ON item BEGIN
            \(add("OLD", "-"))
            \(add("NEW", "+"))
            END;

            INSERT INTO item_stats (household_id, items, documented, no_photo, no_receipt, no_value)
            SELECT household_id, COUNT(*), SUM(\(documented("item"))), SUM(photo_count = 0), SUM(receipt_count = 0), SUM(price_minor IS NULL)
            FROM item GROUP BY household_id;
            INSERT INTO value_total (household_id, currency, total, items)
            SELECT household_id, currency, SUM(value_minor), COUNT(*) FROM item WHERE price_minor IS NOT NULL GROUP BY household_id, currency;

            DROP INDEX item_by_category;
            CREATE INDEX item_by_category_value ON item(household_id, category_id, currency, value_minor);
            CREATE INDEX item_by_currency_value ON item(household_id, currency, value_minor);
            """)
    }

    /// Signed-in sessions. Only a hash of the token is stored, so a copy of the database does not
    /// let anyone sign in.
    private static func sessions(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE session (
                token_hash TEXT PRIMARY KEY NOT NULL,
                user_id TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                csrf_token TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                last_seen_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX session_by_user ON session(user_id);
            """)
    }

    /// Households, accounts, rooms, categories, items, tags, stored files, photos, receipts, search.
    private static func core(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE household (
                id TEXT PRIMARY KEY NOT NULL,
                name TEXT NOT NULL,
                currency TEXT NOT NULL CHECK (length(currency) = 3),
                high_value_threshold_minor INTEGER NOT NULL,
                created_at INTEGER NOT NULL
            );

            CREATE TABLE user (
                id TEXT PRIMARY KEY NOT NULL,
                email TEXT NOT NULL UNIQUE,
                display_name TEXT NOT NULL,
                password_hash TEXT NOT NULL,
                created_at INTEGER NOT NULL
            );

            CREATE TABLE membership (
                household_id TEXT NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                user_id TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                role TEXT NOT NULL CHECK (role IN ('owner', 'member')),
                joined_at INTEGER NOT NULL,
                PRIMARY KEY (household_id, user_id)
            ) WITHOUT ROWID;
            CREATE INDEX membership_by_user ON membership(user_id);

            CREATE TABLE room (
                id TEXT PRIMARY KEY NOT NULL,
                household_id TEXT NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                name TEXT NOT NULL,
                sort_order INTEGER NOT NULL
            );
            CREATE INDEX room_by_household ON room(household_id, sort_order);

            CREATE TABLE category (
                id TEXT PRIMARY KEY NOT NULL,
                household_id TEXT NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                name TEXT NOT NULL,
                color_hex TEXT NOT NULL,
                icon TEXT NOT NULL,
                sort_order INTEGER NOT NULL,
                is_custom INTEGER NOT NULL
            );
            CREATE INDEX category_by_household ON category(household_id, sort_order);

            CREATE TABLE item (
                seq INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                household_id TEXT NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                name TEXT NOT NULL,
                name_key TEXT NOT NULL,
                brand TEXT,
                model_number TEXT,
                serial_number TEXT,
                price_minor INTEGER CHECK (price_minor IS NULL OR price_minor >= 0),
                currency TEXT NOT NULL CHECK (length(currency) = 3),
                quantity INTEGER NOT NULL CHECK (quantity >= 1),
                value_minor INTEGER GENERATED ALWAYS AS
                    (CASE WHEN price_minor IS NULL THEN -1 ELSE price_minor * quantity END) STORED,
                purchase_date TEXT,
                category_id TEXT REFERENCES category(id) ON DELETE SET NULL,
                room_id TEXT REFERENCES room(id) ON DELETE SET NULL,
                condition TEXT NOT NULL CHECK (condition IN ('new', 'like_new', 'good', 'fair', 'poor')),
                condition_notes TEXT,
                barcode TEXT,
                warranty_expiry TEXT,
                notes TEXT,
                photo_count INTEGER NOT NULL DEFAULT 0,
                receipt_count INTEGER NOT NULL DEFAULT 0,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL
            );
            CREATE INDEX item_by_name ON item(household_id, name_key, seq);
            CREATE INDEX item_by_value ON item(household_id, value_minor, seq);
            CREATE INDEX item_by_created ON item(household_id, created_at, seq);
            CREATE INDEX item_by_room ON item(household_id, room_id);
            CREATE INDEX item_by_category ON item(household_id, category_id);
            CREATE INDEX item_by_barcode ON item(household_id, barcode) WHERE barcode IS NOT NULL;

            -- A room or category of another household can never be attached to an item.
            CREATE TRIGGER item_place_same_household_insert BEFORE INSERT ON item
            WHEN (NEW.room_id IS NOT NULL AND (SELECT household_id FROM room WHERE id = NEW.room_id) IS NOT NEW.household_id)
              OR (NEW.category_id IS NOT NULL AND (SELECT household_id FROM category WHERE id = NEW.category_id) IS NOT NEW.household_id)
            BEGIN SELECT RAISE(ABORT, 'room or category belongs to another household'); END;
            CREATE TRIGGER item_place_same_household_update BEFORE UPDATE OF room_id, category_id, household_id ON item
            WHEN (NEW.room_id IS NOT NULL AND (SELECT household_id FROM room WHERE id = NEW.room_id) IS NOT NEW.household_id)
              OR (NEW.category_id IS NOT NULL AND (SELECT household_id FROM category WHERE id = NEW.category_id) IS NOT NEW.household_id)
            BEGIN SELECT RAISE(ABORT, 'room or category belongs to another household'); END;

            -- Key columns first: SQLite 3.40's integrity check misreads WITHOUT ROWID tables otherwise.
            CREATE TABLE item_tag (
                item_seq INTEGER NOT NULL REFERENCES item(seq) ON DELETE CASCADE,
                tag_key TEXT NOT NULL,
                household_id TEXT NOT NULL,
                position INTEGER NOT NULL,
                tag TEXT NOT NULL,
                PRIMARY KEY (item_seq, tag_key)
            ) WITHOUT ROWID;
            CREATE INDEX item_tag_by_key ON item_tag(household_id, tag_key, item_seq);

            -- One row per stored file (content-addressed); rows below point at it.
            CREATE TABLE blob (
                sha256 TEXT PRIMARY KEY NOT NULL CHECK (length(sha256) = 64),
                content_type TEXT NOT NULL,
                byte_count INTEGER NOT NULL,
                created_at INTEGER NOT NULL
            ) WITHOUT ROWID;

            CREATE TABLE item_photo (
                id TEXT PRIMARY KEY NOT NULL,
                household_id TEXT NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                item_seq INTEGER NOT NULL REFERENCES item(seq) ON DELETE CASCADE,
                sha256 TEXT NOT NULL REFERENCES blob(sha256),
                is_primary INTEGER NOT NULL DEFAULT 0,
                position INTEGER NOT NULL,
                created_at INTEGER NOT NULL
            );
            CREATE INDEX item_photo_by_item ON item_photo(item_seq, position);
            CREATE INDEX item_photo_by_blob ON item_photo(sha256);
            CREATE UNIQUE INDEX item_photo_one_primary ON item_photo(item_seq) WHERE is_primary = 1;

            CREATE TABLE receipt (
                id TEXT PRIMARY KEY NOT NULL,
                household_id TEXT NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                item_seq INTEGER REFERENCES item(seq) ON DELETE SET NULL,
                sha256 TEXT NOT NULL REFERENCES blob(sha256),
                vendor TEXT,
                currency TEXT,
                total_minor INTEGER,
                tax_minor INTEGER,
                purchase_date TEXT,
                raw_text TEXT,
                confidence REAL,
                created_at INTEGER NOT NULL
            );
            CREATE INDEX receipt_by_household ON receipt(household_id, created_at);
            CREATE INDEX receipt_by_item ON receipt(item_seq);
            CREATE INDEX receipt_by_blob ON receipt(sha256);

            -- Counters the list filters read, kept by the database itself.
            CREATE TRIGGER item_photo_count_insert AFTER INSERT ON item_photo BEGIN
                UPDATE item SET photo_count = photo_count + 1 WHERE seq = NEW.item_seq;
            END;
            CREATE TRIGGER item_photo_count_delete AFTER DELETE ON item_photo BEGIN
                UPDATE item SET photo_count = photo_count - 1 WHERE seq = OLD.item_seq;
            END;
            CREATE TRIGGER receipt_count_insert AFTER INSERT ON receipt WHEN NEW.item_seq IS NOT NULL BEGIN
                UPDATE item SET receipt_count = receipt_count + 1 WHERE seq = NEW.item_seq;
            END;
            CREATE TRIGGER receipt_count_delete AFTER DELETE ON receipt WHEN OLD.item_seq IS NOT NULL BEGIN
                UPDATE item SET receipt_count = receipt_count - 1 WHERE seq = OLD.item_seq;
            END;
            CREATE TRIGGER receipt_count_relink AFTER UPDATE OF item_seq ON receipt
            WHEN OLD.item_seq IS NOT NEW.item_seq BEGIN
                UPDATE item SET receipt_count = receipt_count - 1 WHERE seq = OLD.item_seq;
                UPDATE item SET receipt_count = receipt_count + 1 WHERE seq = NEW.item_seq;
            END;

            -- Full-text search: stemming (porter) over accent-folded words (unicode61).
            -- rowid = item.seq; the application rewrites a row whenever its sources change.
            CREATE VIRTUAL TABLE item_fts USING fts5(
                name, brand, model, serial, notes, tags, receipts,
                tokenize = 'porter unicode61 remove_diacritics 2'
            );
            CREATE TRIGGER item_fts_delete AFTER DELETE ON item BEGIN
                DELETE FROM item_fts WHERE rowid = OLD.seq;
            END;
            """)
    }

    /// The app lock and passkeys (issue 18): each user's lock timeout (minutes, 0 = never); on each session its
    /// last activity (what the lock measures; `last_seen_at` also counts the page's polling), whether it is locked,
    /// and the browser's User-Agent (for the sessions list); each user's passkeys (WebAuthn credentials: id,
    /// public key, signature counter); and the challenges issued for passkey ceremonies (single use, short-lived,
    /// bound to a session or to a sign-in attempt).
    private static func appLock(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE user ADD COLUMN lock_minutes INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE session ADD COLUMN last_active_at INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE session ADD COLUMN locked INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE session ADD COLUMN user_agent TEXT;
            UPDATE session SET last_active_at = last_seen_at;
            CREATE TABLE passkey (
                id TEXT PRIMARY KEY NOT NULL,
                credential_id BLOB NOT NULL UNIQUE,
                user_id TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                name TEXT NOT NULL,
                public_key BLOB NOT NULL,
                sign_count INTEGER NOT NULL DEFAULT 0,
                backup_eligible INTEGER NOT NULL DEFAULT 0,
                created_at INTEGER NOT NULL,
                last_used_at INTEGER
            );
            CREATE INDEX passkey_by_user ON passkey(user_id, created_at);
            CREATE TABLE passkey_challenge (
                challenge TEXT PRIMARY KEY NOT NULL,
                purpose TEXT NOT NULL CHECK (purpose IN ('register', 'unlock', 'signin')),
                binding TEXT NOT NULL,
                user_id TEXT REFERENCES user(id) ON DELETE CASCADE,
                expires_at INTEGER NOT NULL
            ) WITHOUT ROWID;
            """)
    }

    /// Personal API tokens (issue 20): a user's tokens for one household, kept only as the SHA-256 of the token (32 random
    /// bytes, so a hash without salt or stretching cannot be reversed or guessed), with a name, a scope (read or write),
    /// an optional expiry and the last use. Removing the user or the household removes them; removing the membership
    /// ends them because every lookup joins the membership.
    private static func apiTokens(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE api_token (
                id TEXT PRIMARY KEY NOT NULL,
                token_hash TEXT NOT NULL UNIQUE,
                user_id TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                household_id TEXT NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                name TEXT NOT NULL,
                scope TEXT NOT NULL CHECK (scope IN ('read', 'write')),
                created_at INTEGER NOT NULL,
                expires_at INTEGER,
                last_used_at INTEGER
            );
            CREATE INDEX api_token_by_user ON api_token(user_id, created_at);
            """)
    }
}
