import Foundation
import Logging
import PostgresNIO

/// The PostgreSQL schema, as changes applied in order and never edited once released (as SQLite's migrations):
/// a new column or table is a new change at the end. Each change runs in the transaction that records it, under
/// an advisory lock, so servers starting together apply it once.
enum PostgresMigrations {
    struct Change {
        let id: String
        let sql: [String]
    }

    /// Every change, oldest first. Times are bigint milliseconds since 1970 and money bigint minor units, as on
    /// SQLite, so the engines hold the same values; identifiers are `uuid`.
    static let changes: [Change] = [
        Change(id: "2026-11-26-accounts", sql: [
            """
            CREATE TABLE household (
                id uuid PRIMARY KEY,
                name text NOT NULL,
                currency text NOT NULL CHECK (length(currency) = 3),
                high_value_threshold_minor bigint NOT NULL,
                created_at bigint NOT NULL
            )
            """,
            """
            CREATE TABLE app_user (
                id uuid PRIMARY KEY,
                email text NOT NULL UNIQUE,
                display_name text NOT NULL,
                password_hash text NOT NULL,
                created_at bigint NOT NULL,
                theme text NOT NULL DEFAULT 'system',
                lock_minutes integer NOT NULL DEFAULT 0
            )
            """,
            """
            CREATE TABLE membership (
                household_id uuid NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                user_id uuid NOT NULL REFERENCES app_user(id) ON DELETE CASCADE,
                role text NOT NULL CHECK (role IN ('owner', 'member')),
                joined_at bigint NOT NULL,
                PRIMARY KEY (household_id, user_id)
            )
            """,
            "CREATE INDEX membership_by_user ON membership(user_id)",
            """
            CREATE TABLE room (
                id uuid PRIMARY KEY,
                household_id uuid NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                name text NOT NULL,
                sort_order integer NOT NULL
            )
            """,
            "CREATE INDEX room_by_household ON room(household_id, sort_order)",
            """
            CREATE TABLE category (
                id uuid PRIMARY KEY,
                household_id uuid NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                name text NOT NULL,
                color_hex text NOT NULL,
                icon text NOT NULL,
                sort_order integer NOT NULL,
                is_custom boolean NOT NULL
            )
            """,
            "CREATE INDEX category_by_household ON category(household_id, sort_order)",
            """
            CREATE TABLE passkey (
                id uuid PRIMARY KEY,
                credential_id bytea NOT NULL UNIQUE,
                user_id uuid NOT NULL REFERENCES app_user(id) ON DELETE CASCADE,
                name text NOT NULL,
                public_key bytea NOT NULL,
                sign_count bigint NOT NULL DEFAULT 0,
                backup_eligible boolean NOT NULL DEFAULT false,
                created_at bigint NOT NULL,
                last_used_at bigint
            )
            """,
            "CREATE INDEX passkey_by_user ON passkey(user_id, created_at)",
            """
            CREATE TABLE session (
                token_hash text PRIMARY KEY,
                user_id uuid NOT NULL REFERENCES app_user(id) ON DELETE CASCADE,
                csrf_token text NOT NULL,
                created_at bigint NOT NULL,
                last_seen_at bigint NOT NULL,
                last_active_at bigint NOT NULL,
                expires_at bigint NOT NULL,
                locked boolean NOT NULL DEFAULT false,
                user_agent text
            )
            """,
            "CREATE INDEX session_by_user ON session(user_id)",
            "CREATE INDEX session_by_expiry ON session(expires_at)",
        ]),
        Change(id: "2026-11-26-jobs", sql: [
            """
            CREATE TABLE job (
                id uuid PRIMARY KEY,
                household_id uuid NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                kind text NOT NULL,
                subject text,
                state text NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted')),
                done bigint NOT NULL DEFAULT 0,
                total bigint NOT NULL DEFAULT 0,
                payload text NOT NULL,
                result text,
                item_results jsonb,
                attempts integer NOT NULL DEFAULT 0,
                max_attempts integer NOT NULL DEFAULT 1,
                next_attempt_at bigint NOT NULL,
                error_code text,
                message text,
                cancel_requested boolean NOT NULL DEFAULT false,
                created_at bigint NOT NULL,
                started_at bigint,
                finished_at bigint,
                updated_at bigint NOT NULL
            )
            """,
            "CREATE INDEX job_due ON job(kind, state, next_attempt_at)",
            "CREATE INDEX job_by_household ON job(household_id, created_at)",
            "CREATE INDEX job_by_subject ON job(subject, created_at) WHERE subject IS NOT NULL",
        ]),
        Change(id: "2026-11-29-sign-in-failures", sql: [
            "CREATE TABLE sign_in_failure (key text NOT NULL, at bigint NOT NULL)",
            "CREATE INDEX sign_in_failure_by_key ON sign_in_failure(key, at)",
            "CREATE INDEX sign_in_failure_by_time ON sign_in_failure(at)",
        ]),
        // Leases, as SQLite's 2026-11-29-job-leases: who claimed a running job and until when the claim holds.
        Change(id: "2026-11-29-job-leases", sql: [
            "ALTER TABLE job ADD COLUMN claimed_by text, ADD COLUMN lease_until bigint",
            "CREATE INDEX job_running_lease ON job(lease_until) WHERE state = 'running'",
        ]),
        Change(id: "2026-11-29-items", sql: PostgresItemSchema.statements),
        // As SQLite's 2026-11-30-account-version: one number that grows, in the same transaction, with every change to
        // what a signed-in request is looked up from, so every server's session cache sees a change made on another.
        // Row triggers, not statement ones: an UPDATE that matches nothing (a throttled touch) changes nothing.
        Change(id: "2026-11-30-account-version", sql: [
            "CREATE TABLE account_version (id integer PRIMARY KEY CHECK (id = 1), version bigint NOT NULL)",
            "INSERT INTO account_version (id, version) VALUES (1, 1)",
            """
            CREATE FUNCTION nestory_account_version() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE account_version SET version = version + 1 WHERE id = 1;
                RETURN NULL;
            END $$
            """,
        ] + ["session", "app_user", "passkey", "membership", "household"].map { table in
            "CREATE TRIGGER account_version_\(table) AFTER INSERT OR UPDATE OR DELETE ON \(table) FOR EACH ROW EXECUTE FUNCTION nestory_account_version()"
        }),
        // The search index's rows in each sort's order: a search without filters walks them, testing each document where
        // it lies, before it asks the index for every match (at 100,000 items "s" went from 40 ms to about 1 ms).
        Change(id: "2026-11-30-search-walk", sql: [
            "CREATE INDEX item_search_by_name ON item_search(household_id, name_key, seq)",
            "CREATE INDEX item_search_by_value ON item_search(household_id, value_minor, seq)",
            "CREATE INDEX item_search_by_created ON item_search(household_id, created_at, seq)",
        ]),
        Change(id: "2026-11-30-attachments", sql: PostgresAttachmentSchema.statements),
        // Personal API tokens, as SQLite's 2026-11-27-api-tokens: only the token's SHA-256 (hex) is kept.
        Change(id: "2026-11-30-api-tokens", sql: [
            """
            CREATE TABLE api_token (
                id uuid PRIMARY KEY,
                token_hash text NOT NULL UNIQUE,
                user_id uuid NOT NULL REFERENCES app_user(id) ON DELETE CASCADE,
                household_id uuid NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                name text NOT NULL,
                scope text NOT NULL CHECK (scope IN ('read', 'write')),
                created_at bigint NOT NULL,
                expires_at bigint,
                last_used_at bigint
            )
            """,
            "CREATE INDEX api_token_by_user ON api_token(user_id, created_at)",
        ]),
        // The API's idempotency keys, as SQLite's 2026-11-25-idempotency-keys and 2026-11-30-idempotency-claims: the
        // answers kept for replays, and the keys whose first request is running (until `claimed_until`).
        Change(id: "2026-11-30-idempotency", sql: [
            """
            CREATE TABLE idempotency_key (
                household_id uuid NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                key text NOT NULL,
                fingerprint text NOT NULL CHECK (length(fingerprint) = 64),
                status integer NOT NULL,
                headers text NOT NULL,
                body bytea NOT NULL,
                created_at bigint NOT NULL,
                PRIMARY KEY (household_id, key)
            )
            """,
            "CREATE INDEX idempotency_key_by_age ON idempotency_key(created_at)",
            """
            CREATE TABLE idempotency_claim (
                household_id uuid NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                key text NOT NULL,
                claimed_until bigint NOT NULL,
                PRIMARY KEY (household_id, key)
            )
            """,
        ]),
        // Reminders, as SQLite's 2026-11-25-reminders and 2026-11-25-tips: each user's choices and dismissed tips (bits),
        // the calendar feed (its token to show, and its hash to find it by), the household's webhook, the events sent,
        // and the index that finds warranties ending soon.
        Change(id: "2026-11-30-reminders", sql: [
            """
            ALTER TABLE app_user ADD COLUMN warranty_reminders boolean NOT NULL DEFAULT true,
                ADD COLUMN weekly_nudge boolean NOT NULL DEFAULT true, ADD COLUMN tips_dismissed bigint NOT NULL DEFAULT 0
            """,
            """
            CREATE TABLE calendar_feed (
                user_id uuid PRIMARY KEY REFERENCES app_user(id) ON DELETE CASCADE,
                token text NOT NULL,
                token_hash text NOT NULL UNIQUE,
                created_at bigint NOT NULL
            )
            """,
            """
            CREATE TABLE household_webhook (
                household_id uuid PRIMARY KEY REFERENCES household(id) ON DELETE CASCADE,
                url text NOT NULL,
                secret text NOT NULL,
                created_at bigint NOT NULL,
                last_attempt_at bigint,
                last_status integer,
                last_error text
            )
            """,
            """
            CREATE TABLE reminder_sent (
                household_id uuid NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                event_id text NOT NULL,
                sent_at bigint NOT NULL,
                PRIMARY KEY (household_id, event_id)
            )
            """,
            "CREATE INDEX reminder_sent_by_time ON reminder_sent(sent_at)",
            "CREATE INDEX item_by_warranty ON item(household_id, warranty_expiry) WHERE warranty_expiry IS NOT NULL",
        ]),
        // Valuations and their settings, as SQLite's 2026-11-25-valuations and 2026-11-26-valuation-providers: each item's
        // history (money in minor units, sources as JSON, `seq` the order they were added, SQLite's rowid), and each
        // household's providers (keys sealed, as SQLite keeps them) and depreciation table.
        Change(id: "2026-11-30-valuations", sql: [
            """
            CREATE TABLE valuation (
                seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                id uuid NOT NULL UNIQUE,
                household_id uuid NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                item_seq bigint NOT NULL REFERENCES item(seq) ON DELETE CASCADE,
                currency text NOT NULL CHECK (length(currency) = 3),
                rcv_minor bigint, rcv_low_minor bigint, rcv_high_minor bigint,
                acv_minor bigint, acv_low_minor bigint, acv_high_minor bigint,
                method text NOT NULL CHECK (method IN ('market', 'offline', 'manual')),
                confidence text NOT NULL CHECK (confidence IN ('low', 'medium', 'high')),
                valued_on text COLLATE "C" NOT NULL,
                sources text NOT NULL DEFAULT '[]',
                explanation text,
                created_at bigint NOT NULL,
                CHECK (rcv_minor IS NOT NULL OR acv_minor IS NOT NULL)
            )
            """,
            "CREATE INDEX valuation_by_item ON valuation(item_seq, created_at, seq)",
            "CREATE INDEX valuation_by_household ON valuation(household_id, valued_on)",
            """
            CREATE TABLE valuation_settings (
                household_id uuid PRIMARY KEY REFERENCES household(id) ON DELETE CASCADE,
                analysis_base_url text, analysis_model text, analysis_key text, analysis_key_hint text,
                search_key text, search_key_hint text, search_country text,
                exchange_rates text,
                depreciation_table text,
                updated_at bigint NOT NULL
            )
            """,
        ]),
        // The capture screen's counters, as SQLite's 2026-11-25-capture-counters: per household, UTC day and event.
        Change(id: "2026-11-30-capture-counters", sql: [
            """
            CREATE TABLE capture_counter (
                household_id uuid NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                day text COLLATE "C" NOT NULL,
                event text COLLATE "C" NOT NULL,
                count integer NOT NULL,
                PRIMARY KEY (household_id, day, event)
            )
            """,
        ]),
        // This store's id and the licences installed, as SQLite's 2026-11-26-licences: the id (32 lower-case hex digits,
        // as SQLite makes it) is made here, once, so every server on the store has the same one.
        Change(id: "2026-11-30-licences", sql: [
            "CREATE TABLE instance (id text PRIMARY KEY, created_at bigint NOT NULL)",
            """
            INSERT INTO instance (id, created_at)
            VALUES (replace(gen_random_uuid()::text, '-', ''), (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
            """,
            """
            CREATE TABLE licence (
                key text PRIMARY KEY,
                household_id uuid,
                key_id text NOT NULL,
                installed_at bigint NOT NULL
            )
            """,
            "CREATE INDEX licence_by_household ON licence(household_id)",
        ]),
        // Product lookups, as SQLite's 2026-11-23-products and 2026-11-25-household-scanning: the catalogue and
        // providers' answers (shared: they describe products, not anyone's belongings), and the household's switches.
        Change(id: "2026-11-30-products", sql: [
            """
            CREATE TABLE product (
                code text NOT NULL,
                source text NOT NULL,
                found boolean NOT NULL,
                name text, brand text, category text, image_url text,
                fetched_at bigint NOT NULL,
                PRIMARY KEY (code, source)
            )
            """,
            """
            ALTER TABLE household ADD COLUMN online_product_lookup boolean NOT NULL DEFAULT false,
                ADD COLUMN scanning_enabled boolean NOT NULL DEFAULT true
            """,
        ]),
        // Passkey challenges, as SQLite's 2026-11-26-app-lock (the passkey table came with the accounts): each issued challenge until it is
        // used once or expires, bound to what asked for it (a session, or a sign-in attempt).
        Change(id: "2026-11-30-passkey-challenges", sql: [
            """
            CREATE TABLE passkey_challenge (
                challenge text PRIMARY KEY,
                purpose text NOT NULL CHECK (purpose IN ('register', 'unlock', 'signin')),
                binding text NOT NULL,
                user_id uuid REFERENCES app_user(id) ON DELETE CASCADE,
                expires_at bigint NOT NULL
            )
            """,
            "CREATE INDEX passkey_challenge_by_binding ON passkey_challenge(binding, purpose, expires_at)",
            "CREATE INDEX passkey_challenge_by_expiry ON passkey_challenge(expires_at)",
        ]),
        // The export history, as SQLite's 2026-11-23-reports: one row per generated report, its file named in the
        // reports folder, written only once the file is there.
        Change(id: "2026-11-30-reports", sql: [
            """
            CREATE TABLE report (
                id uuid PRIMARY KEY,
                household_id uuid NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                kind text NOT NULL,
                created_at bigint NOT NULL,
                byte_count bigint NOT NULL,
                options text NOT NULL,
                file_name text NOT NULL
            )
            """,
            "CREATE INDEX report_by_household ON report(household_id, created_at)",
        ]),
        // The household's item content version, as SQLite's `item_list_version.content` (2026-11-26): one number per
        // household moved on by every row written to item, item_tag or item_photo (receipts through the item's
        // receipt_count), in the writer's transaction, by any server. A list answer kept in memory is sent again only
        // while it holds (`ItemStore.itemContentVersion`). Counted out only by updates, as item_stats: an item deleted
        // with its household must not make the row again.
        Change(id: "2026-12-01-item-content-version", sql: [
            """
            CREATE TABLE item_content_version (
                household_id uuid PRIMARY KEY REFERENCES household(id) ON DELETE CASCADE,
                content bigint NOT NULL
            )
            """,
            "INSERT INTO item_content_version (household_id, content) SELECT DISTINCT household_id, 1 FROM item",
            """
            CREATE FUNCTION nestory_item_content_version() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'INSERT' THEN
                    INSERT INTO item_content_version AS v (household_id, content) VALUES (NEW.household_id, 1)
                    ON CONFLICT (household_id) DO UPDATE SET content = v.content + 1;
                ELSE
                    UPDATE item_content_version SET content = content + 1 WHERE household_id = OLD.household_id;
                END IF;
                RETURN NULL;
            END
            $$
            """,
        ] + ["item", "item_tag", "item_photo"].map { table in
            "CREATE TRIGGER \(table)_content_version AFTER INSERT OR UPDATE OR DELETE ON \(table) FOR EACH ROW EXECUTE FUNCTION nestory_item_content_version()"
        }),
        // Each word of an item's search document with the item's name key, in name order per word (`item_word_by_name`):
        // a search sorted by name reads its words' items in that order (an index-only walk that meets only matches)
        // instead of gathering every match of a common word and sorting them (at a million items "walnut", 77,000
        // matches, took 126 ms). Kept by statement triggers on `item_search`, so every writer and the bulk load keep it;
        // a word longer than 256 bytes is kept as its first 200 characters and a U+0001 (an index entry must stay under
        // about 2,700 bytes, and a name key can take 800), so a shorter prefix still finds it and no whole word equals it.
        Change(id: "2026-12-01-item-words", sql: [
            """
            CREATE FUNCTION nestory_word_key(token text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
                SELECT CASE WHEN octet_length(token) <= \(PostgresStore.longestIndexedWord) THEN token
                            ELSE left(token, \(PostgresStore.longWordPrefix)) || chr(1) END
            $$
            """,
            """
            CREATE TABLE item_word (
                household_id uuid NOT NULL,
                token text COLLATE "C" NOT NULL,
                name_key text COLLATE "C" NOT NULL,
                seq bigint NOT NULL REFERENCES item_search(seq) ON DELETE CASCADE
            )
            """,
            """
            INSERT INTO item_word (household_id, token, name_key, seq)
            SELECT s.household_id, nestory_word_key(t.token), s.name_key, s.seq FROM item_search s, unnest(tsvector_to_array(s.document)) AS t(token)
            """,
            "CREATE UNIQUE INDEX item_word_by_name ON item_word(household_id, token, name_key, seq)",
            "CREATE INDEX item_word_by_seq ON item_word(seq)",
            """
            CREATE FUNCTION nestory_item_words_added() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO item_word (household_id, token, name_key, seq)
                SELECT n.household_id, nestory_word_key(t.token), n.name_key, n.seq FROM added n, unnest(tsvector_to_array(n.document)) AS t(token);
                RETURN NULL;
            END $$
            """,
            // Only rows whose document or name key changed are written again (a price change also updates `item_search`).
            """
            CREATE FUNCTION nestory_item_words_changed() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                DELETE FROM item_word w USING before o JOIN after n ON n.seq = o.seq
                WHERE w.seq = o.seq AND (o.document <> n.document OR o.name_key <> n.name_key);
                INSERT INTO item_word (household_id, token, name_key, seq)
                SELECT n.household_id, nestory_word_key(t.token), n.name_key, n.seq
                FROM before o JOIN after n ON n.seq = o.seq, unnest(tsvector_to_array(n.document)) AS t(token)
                WHERE o.document <> n.document OR o.name_key <> n.name_key;
                RETURN NULL;
            END $$
            """,
            """
            CREATE TRIGGER item_words_added AFTER INSERT ON item_search REFERENCING NEW TABLE AS added
            FOR EACH STATEMENT EXECUTE FUNCTION nestory_item_words_added()
            """,
            """
            CREATE TRIGGER item_words_changed AFTER UPDATE ON item_search REFERENCING OLD TABLE AS before NEW TABLE AS after
            FOR EACH STATEMENT EXECUTE FUNCTION nestory_item_words_changed()
            """,
        ]),
        // Photos to value new things from (SQLite's `valuation_intake`): a stored file the household keeps until an item
        // is made of it or it expires (`IntakePhoto.lifetime`, by `created_at`); gone with its household. Garbage
        // collection counts a row here as a use of its file (`item_photo`'s and `receipt`'s too).
        Change(id: "2026-12-02-valuation-intake", sql: [
            """
            CREATE TABLE valuation_intake (
                id uuid PRIMARY KEY,
                household_id uuid NOT NULL REFERENCES household(id) ON DELETE CASCADE,
                sha256 text NOT NULL REFERENCES blob(sha256),
                created_at bigint NOT NULL
            )
            """,
            "CREATE INDEX valuation_intake_by_household ON valuation_intake(household_id, created_at)",
            "CREATE INDEX valuation_intake_by_blob ON valuation_intake(sha256, household_id)",
            "CREATE INDEX valuation_intake_by_age ON valuation_intake(created_at)",
        ]),
        // Deleting a room or category moves all its items in one statement, and keeps the counters and the item content
        // version by that statement's own sums (`PostgresStore.deletePlace`): row by row, the same few counter rows are
        // updated once per item in one transaction, and PostgreSQL keeps every version of them until it ends (20,000
        // items took 40 s). The row triggers stand aside while the transaction sets `nestory.item_rows` to
        // 'statement'; the triggers are otherwise as they were (same names, same columns, same order).
        Change(id: "2026-12-03-places", sql: [
            "DROP TRIGGER item_counters ON item",
            """
            CREATE TRIGGER item_counters
            AFTER INSERT OR DELETE OR UPDATE OF photo_count, receipt_count, price_minor, quantity, currency, category_id, room_id ON item
            FOR EACH ROW WHEN (current_setting('nestory.item_rows', true) IS DISTINCT FROM 'statement')
            EXECUTE FUNCTION nestory_item_counters()
            """,
            "DROP TRIGGER item_content_version ON item",
            """
            CREATE TRIGGER item_content_version AFTER INSERT OR UPDATE OR DELETE ON item
            FOR EACH ROW WHEN (current_setting('nestory.item_rows', true) IS DISTINCT FROM 'statement')
            EXECUTE FUNCTION nestory_item_content_version()
            """,
        ]),
        // Request budgets (API tokens, error reports) counted per key and clock minute, shared by every server.
        // UNLOGGED: counts of the last two minutes need no WAL, so counting a request does not wait for a disk flush
        // (after a crash the table starts empty: a minute's budget anew), and standbys, which serve no writes, have none.
        Change(id: "2026-12-04-request-count", sql: [
            "CREATE UNLOGGED TABLE request_count (key text NOT NULL, minute bigint NOT NULL, count integer NOT NULL, PRIMARY KEY (key, minute))",
        ]),
        // A restore writes a household's tags, photos and receipts in batches in one transaction, and keeps the counts on
        // `item` (photos, receipts), the counters and the item content version by statements of its own
        // (`PostgresStore.restoreHousehold`): row by row, one transaction updated the same few rows once per row
        // (2,000 items took about 21 s). The row triggers of `item_tag`, `item_photo` and `receipt` stand aside while
        // `nestory.item_rows` is 'statement', as `item`'s do since 2026-12-03-places; otherwise as they were.
        Change(id: "2026-12-04-batch", sql: [
            "DROP TRIGGER item_tag_content_version ON item_tag",
            "DROP TRIGGER item_photo_content_version ON item_photo",
        ] + ["item_tag", "item_photo"].map { table in
            """
            CREATE TRIGGER \(table)_content_version AFTER INSERT OR UPDATE OR DELETE ON \(table)
            FOR EACH ROW WHEN (current_setting('nestory.item_rows', true) IS DISTINCT FROM 'statement')
            EXECUTE FUNCTION nestory_item_content_version()
            """
        } + [
            "DROP TRIGGER item_photo_count ON item_photo",
            """
            CREATE TRIGGER item_photo_count AFTER INSERT OR DELETE ON item_photo
            FOR EACH ROW WHEN (current_setting('nestory.item_rows', true) IS DISTINCT FROM 'statement')
            EXECUTE FUNCTION nestory_photo_count()
            """,
            "DROP TRIGGER receipt_count ON receipt",
            """
            CREATE TRIGGER receipt_count AFTER INSERT OR DELETE ON receipt
            FOR EACH ROW WHEN (current_setting('nestory.item_rows', true) IS DISTINCT FROM 'statement')
            EXECUTE FUNCTION nestory_receipt_count()
            """,
            "DROP TRIGGER receipt_count_relink ON receipt",
            """
            CREATE TRIGGER receipt_count_relink AFTER UPDATE OF item_seq ON receipt
            FOR EACH ROW WHEN (OLD.item_seq IS DISTINCT FROM NEW.item_seq
                               AND current_setting('nestory.item_rows', true) IS DISTINCT FROM 'statement')
            EXECUTE FUNCTION nestory_receipt_count()
            """,
        ]),
        // Report PDFs are stored files (`blob`, in the store's `BlobFiles`: the data folder or the object store every
        // server shares), no longer a file of the reports/ folder of the server that made them. `sha256` is null for a
        // report made before, until the server holding its file moves it (`PostgresStore.adoptReportFiles`, at open).
        Change(id: "2026-12-05-report-files", sql: [
            "ALTER TABLE report ADD COLUMN sha256 text REFERENCES blob(sha256)",
            "CREATE INDEX report_by_blob ON report(sha256)",
        ]),
        // A tag's items in each sort's order from the tag's own rows, as a room's and a category's come from `item`'s
        // indexes: each `item_tag` row carries its item's sort keys (set from the item as the row is written, and
        // following every change of them with `item_search`'s copy), in an index per sort. Before, a tag's page read
        // every item with the tag and sorted them: at a million items "heirloom" (47,000 items) took 8 ms for a page,
        // and a first keystroke with it 50 ms.
        Change(id: "2026-12-06-tag-order", sql: [
            "ALTER TABLE item_tag ADD COLUMN name_key text COLLATE \"C\", ADD COLUMN value_minor bigint, ADD COLUMN created_at bigint",
            // The content version's row trigger stands aside for the copy (the items' content does not change): row by row it
            // updated one counter row per tag row in this one transaction, for minutes at a million items.
            "SELECT set_config('nestory.item_rows', 'statement', true)",
            "UPDATE item_tag t SET name_key = i.name_key, value_minor = i.value_minor, created_at = i.created_at FROM item i WHERE i.seq = t.item_seq",
            "SELECT set_config('nestory.item_rows', '', true)",
            "ALTER TABLE item_tag ALTER COLUMN name_key SET NOT NULL, ALTER COLUMN value_minor SET NOT NULL, ALTER COLUMN created_at SET NOT NULL",
            """
            CREATE FUNCTION nestory_item_tag_keys() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                SELECT i.name_key, i.value_minor, i.created_at INTO NEW.name_key, NEW.value_minor, NEW.created_at
                FROM item i WHERE i.seq = NEW.item_seq;
                RETURN NEW;
            END
            $$
            """,
            "CREATE TRIGGER item_tag_keys BEFORE INSERT ON item_tag FOR EACH ROW EXECUTE FUNCTION nestory_item_tag_keys()",
            """
            CREATE OR REPLACE FUNCTION nestory_item_search_keys() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE item_search SET name_key = NEW.name_key, value_minor = NEW.value_minor, created_at = NEW.created_at
                WHERE seq = NEW.seq;
                UPDATE item_tag SET name_key = NEW.name_key, value_minor = NEW.value_minor, created_at = NEW.created_at
                WHERE item_seq = NEW.seq;
                RETURN NULL;
            END
            $$
            """,
            "CREATE INDEX item_tag_by_name ON item_tag(household_id, tag_key, name_key, item_seq)",
            "CREATE INDEX item_tag_by_value ON item_tag(household_id, tag_key, value_minor, item_seq)",
            "CREATE INDEX item_tag_by_created ON item_tag(household_id, tag_key, created_at, item_seq)",
        ]),
        // Where a household lives (an IANA time zone name), so its days are its own and not the server's; null: the
        // server's clock, as before.
        Change(id: "2026-12-07-household-time-zone", sql: [
            "ALTER TABLE household ADD COLUMN time_zone text",
        ]),
    ]

    /// A number every Nestory server takes an advisory lock on while it migrates (with its schema's name mixed in), and
    /// alone while it creates an extension (the whole database's).
    static let lockKey: Int64 = 0x4E45_5354_4F52_59

    /// The changes recorded in the database, in the order they were applied, read without writing anything (so
    /// `/health` on a read-only standby answers): nil when the database has no record of changes at all (its
    /// `nestory_migration` table is missing: no Nestory has set it up).
    static func applied(_ connection: PostgresConnection, logger: Logger) async throws -> [String]? {
        var recorded = false
        for try await present in try await connection.query("SELECT to_regclass('nestory_migration') IS NOT NULL", logger: logger)
            .decode(Bool.self) {
            recorded = present
        }
        guard recorded else { return nil }
        var ids: [String] = []
        for try await id in try await connection.query("SELECT id FROM nestory_migration ORDER BY applied_at, id", logger: logger)
            .decode(String.self) {
            ids.append(id)
        }
        return ids
    }

    /// Applies what is missing (or, with `migrate` false, says what is), and refuses a database changed by a newer
    /// Nestory: a change this version does not know.
    /// With `schema`, the schema is made when missing and the changes go there (its name is checked by the caller).
    static func bringUpToDate(_ connection: PostgresConnection, schema: String?, migrate: Bool, logger: Logger,
                              changes: [Change] = changes) async throws {
        try await connection.withTransaction(logger: logger) { connection in
            // Without migrating nothing is written (a read-only standby opens), and nothing needs the lock.
            // One lock per schema: deployments (or tests) in other schemas of the database migrate without waiting.
            if migrate {
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(\(lockKey) # hashtextextended(coalesce(\(schema), current_schema(), ''), 0))", logger: logger)
            }
            if let schema {
                if migrate { try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(schema)"), logger: logger) }
                try await connection.query(PostgresQuery(unsafeSQL: "SET LOCAL search_path TO \(schema)"), logger: logger)
            }
            if migrate {
                try await connection.query("""
                    CREATE TABLE IF NOT EXISTS nestory_migration (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
                    """, logger: logger)
            }
            let done = try await applied(connection, logger: logger) ?? []
            let known = Set(changes.map(\.id))
            let unknown = done.filter { !known.contains($0) }
            guard unknown.isEmpty else { throw PostgresStoreError.schemaTooNew(unknown: unknown) }
            let missing = changes.filter { !done.contains($0.id) }
            guard !missing.isEmpty else { return }
            guard migrate else { throw PostgresStoreError.schemaTooOld(missing: missing.map(\.id)) }
            for change in missing {
                for statement in change.sql {
                    if statement.hasPrefix("CREATE EXTENSION") {
                        // An extension is the database's, not the schema's: two schemas migrating at once would both
                        // find it missing and one would fail on "already exists" (seen in a full test run). Servers
                        // of every schema take one lock for it, held to the end of this migration.
                        try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
                    }
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO nestory_migration (id) VALUES (\(change.id))", logger: logger)
                logger.info("PostgreSQL schema change applied", metadata: ["change": "\(change.id)"])
            }
        }
    }
}
