/// The items aggregate's tables on PostgreSQL (the migration `2026-11-29-items`), kept beside the store's item code.
///
/// - `item` as on SQLite: `seq` (the order items were added: the lists' tie-break and the page cursor's), money in
///   minor units, `value_minor` = price × quantity (-1 without a price), `name_key` in byte order (`COLLATE "C"`,
///   as SQLite's BINARY), the photo and receipt counts the filters read.
/// - `item_search`: one document per item, carrying its household and its sort keys (copied from `item` when the
///   document is first written, then by a trigger on every change of them, so a search's matches are sorted without
///   reading their items), in a GIN index on (household, document)
///   (`btree_gin` gives uuid a GIN operator class), so a search reads only its household's postings. Documents are
///   made from tokens cut by `Text.searchTokens`, each stemmed by Snowball's original Porter stemmer (SQLite's FTS5
///   `porter` tokenizer is the same algorithm), at positions that leave a gap between fields: a word's tokens match
///   as a phrase within one field only, as FTS5 matches within one column.
/// - Counters kept by triggers, as SQLite's: `item_stats` (the summary), `value_total`, `room_total` and
///   `category_total` (the charts). A household's threshold or currency change counts its high-value items again.
enum PostgresItemSchema {
    static let statements: [String] = [
        "CREATE EXTENSION IF NOT EXISTS btree_gin",
        // No stop words: every word a person types counts, as on SQLite.
        "CREATE TEXT SEARCH DICTIONARY nestory_porter (TEMPLATE = snowball, Language = porter)",
        """
        CREATE TABLE item (
            seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id uuid NOT NULL UNIQUE,
            household_id uuid NOT NULL REFERENCES household(id) ON DELETE CASCADE,
            name text NOT NULL,
            name_key text COLLATE "C" NOT NULL,
            brand text,
            model_number text,
            serial_number text,
            price_minor bigint CHECK (price_minor IS NULL OR price_minor >= 0),
            currency text NOT NULL CHECK (length(currency) = 3),
            quantity integer NOT NULL CHECK (quantity >= 1),
            value_minor bigint GENERATED ALWAYS AS (CASE WHEN price_minor IS NULL THEN -1 ELSE price_minor * quantity END) STORED,
            purchase_date text,
            category_id uuid REFERENCES category(id) ON DELETE SET NULL,
            room_id uuid REFERENCES room(id) ON DELETE SET NULL,
            condition text NOT NULL CHECK (condition IN ('new', 'like_new', 'good', 'fair', 'poor')),
            condition_notes text,
            barcode text,
            warranty_expiry text,
            notes text,
            photo_count integer NOT NULL DEFAULT 0,
            receipt_count integer NOT NULL DEFAULT 0,
            created_at bigint NOT NULL,
            updated_at bigint NOT NULL
        )
        """,
        "CREATE INDEX item_by_name ON item(household_id, name_key, seq)",
        "CREATE INDEX item_by_value ON item(household_id, value_minor, seq)",
        "CREATE INDEX item_by_created ON item(household_id, created_at, seq)",
        "CREATE INDEX item_by_room_name ON item(household_id, room_id, name_key, seq)",
        "CREATE INDEX item_by_room_value ON item(household_id, room_id, value_minor, seq)",
        "CREATE INDEX item_by_room_created ON item(household_id, room_id, created_at, seq)",
        "CREATE INDEX item_by_category_name ON item(household_id, category_id, name_key, seq)",
        "CREATE INDEX item_by_category_value ON item(household_id, category_id, value_minor, seq)",
        "CREATE INDEX item_by_category_created ON item(household_id, category_id, created_at, seq)",
        "CREATE INDEX item_by_currency_value ON item(household_id, currency, value_minor)",
        "CREATE INDEX item_by_barcode ON item(household_id, barcode) WHERE barcode IS NOT NULL",
        """
        CREATE TABLE item_tag (
            item_seq bigint NOT NULL REFERENCES item(seq) ON DELETE CASCADE,
            tag_key text COLLATE "C" NOT NULL,
            household_id uuid NOT NULL,
            position integer NOT NULL,
            tag text COLLATE "C" NOT NULL,
            PRIMARY KEY (item_seq, tag_key)
        )
        """,
        "CREATE INDEX item_tag_by_key ON item_tag(household_id, tag_key, item_seq)",
        """
        CREATE TABLE item_search (
            seq bigint PRIMARY KEY REFERENCES item(seq) ON DELETE CASCADE,
            household_id uuid NOT NULL,
            document tsvector NOT NULL,
            name_key text COLLATE "C" NOT NULL,
            value_minor bigint NOT NULL,
            created_at bigint NOT NULL
        )
        """,
        "CREATE INDEX item_search_by_household ON item_search USING gin (household_id, document)",
        // The index's copy of the sort keys follows every change of them, whoever makes it.
        """
        CREATE FUNCTION nestory_item_search_keys() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE item_search SET name_key = NEW.name_key, value_minor = NEW.value_minor, created_at = NEW.created_at
            WHERE seq = NEW.seq;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE TRIGGER item_search_keys AFTER UPDATE OF name_key, price_minor, quantity, created_at ON item
        FOR EACH ROW EXECUTE FUNCTION nestory_item_search_keys()
        """,
        // A token as FTS5's porter tokenizer leaves it: stemmed when 3 to 64 bytes long, else as it is; and FTS5's one
        // rule the published algorithm lacks: "-logi" becomes "-log" after a stem with a vowel then a consonant
        // ("symbology" → symbolog).
        """
        CREATE FUNCTION nestory_stem(token text) RETURNS text LANGUAGE sql STABLE AS $$
            SELECT CASE WHEN stem ~ 'logi$' AND left(stem, -4) ~ '[aeiouy][^aeiouy]' THEN left(stem, -1) ELSE stem END
            FROM (SELECT CASE WHEN octet_length(token) BETWEEN 3 AND 64
                              THEN COALESCE(NULLIF((ts_lexize('nestory_porter', token))[1], ''), token) ELSE token END AS stem) AS s
        $$
        """,
        // A document from tokens and their positions: each token stemmed, positions merged per lexeme (at most 256,
        // each at most 16383: tsvector's limits, as to_tsvector keeps them).
        """
        CREATE FUNCTION nestory_document(tokens text[], positions integer[]) RETURNS tsvector LANGUAGE sql STABLE AS $$
            SELECT COALESCE(string_agg(entry, ' '), '')::tsvector FROM (
                SELECT '''' || replace(replace(l.lexeme, '\\', '\\\\'), '''', '''''') || ''':'
                       || array_to_string((array_agg(DISTINCT LEAST(t.pos, 16383)))[1:256], ',') AS entry
                FROM unnest(tokens, positions) AS t(token, pos)
                CROSS JOIN LATERAL (SELECT nestory_stem(t.token)) AS l(lexeme)
                GROUP BY l.lexeme) AS entries
        $$
        """,
        // A query from tokens, each followed by its operator: ' <->' (the next token of the same word), ' &' (the
        // next word) or ':*' (the last token, a prefix). Tokens are stemmed like the documents' and quoted, so
        // nothing a person types is tsquery syntax.
        """
        CREATE FUNCTION nestory_query(tokens text[], operators text[]) RETURNS tsquery LANGUAGE sql STABLE AS $$
            SELECT string_agg('''' || replace(replace(nestory_stem(t.token), '\\', '\\\\'),
                                              '''', '''''') || '''' || t.operator, ' ' ORDER BY t.n)::tsquery
            FROM unnest(tokens, operators) WITH ORDINALITY AS t(token, operator, n)
        $$
        """,
        """
        CREATE TABLE item_stats (
            household_id uuid PRIMARY KEY REFERENCES household(id) ON DELETE CASCADE,
            items bigint NOT NULL DEFAULT 0,
            documented bigint NOT NULL DEFAULT 0,
            no_photo bigint NOT NULL DEFAULT 0,
            no_receipt bigint NOT NULL DEFAULT 0,
            no_value bigint NOT NULL DEFAULT 0,
            high_value bigint NOT NULL DEFAULT 0
        )
        """,
        """
        CREATE TABLE value_total (
            household_id uuid NOT NULL REFERENCES household(id) ON DELETE CASCADE,
            currency text NOT NULL,
            total bigint NOT NULL,
            items bigint NOT NULL,
            PRIMARY KEY (household_id, currency)
        )
        """,
        """
        CREATE TABLE room_total (
            household_id uuid NOT NULL REFERENCES household(id) ON DELETE CASCADE,
            room_id uuid,
            items bigint NOT NULL,
            UNIQUE NULLS NOT DISTINCT (household_id, room_id)
        )
        """,
        """
        CREATE TABLE category_total (
            household_id uuid NOT NULL REFERENCES household(id) ON DELETE CASCADE,
            category_id uuid,
            currency text NOT NULL,
            total bigint NOT NULL,
            items bigint NOT NULL,
            UNIQUE NULLS NOT DISTINCT (household_id, category_id, currency)
        )
        """,
        // One item counted in (+1) or out (-1). Counting out only updates: the rows exist (the item was counted in),
        // and an item deleted with its household must not make them again.
        """
        CREATE FUNCTION nestory_item_count(r item, sign integer) RETURNS void LANGUAGE plpgsql AS $$
        DECLARE
            high_flag integer := 0;
            documented_flag integer := (r.photo_count > 0 AND r.price_minor IS NOT NULL AND r.category_id IS NOT NULL
                                        AND r.room_id IS NOT NULL)::integer;
        BEGIN
            SELECT (r.value_minor > h.high_value_threshold_minor AND r.currency = h.currency)::integer INTO high_flag
            FROM household h WHERE h.id = r.household_id;
            high_flag := COALESCE(high_flag, 0);
            IF sign > 0 THEN
                INSERT INTO item_stats AS s (household_id, items, documented, no_photo, no_receipt, no_value, high_value)
                VALUES (r.household_id, 1, documented_flag, (r.photo_count = 0)::integer, (r.receipt_count = 0)::integer,
                        (r.price_minor IS NULL)::integer, high_flag)
                ON CONFLICT (household_id) DO UPDATE SET items = s.items + 1, documented = s.documented + excluded.documented,
                    no_photo = s.no_photo + excluded.no_photo, no_receipt = s.no_receipt + excluded.no_receipt,
                    no_value = s.no_value + excluded.no_value, high_value = s.high_value + excluded.high_value;
                INSERT INTO room_total AS t (household_id, room_id, items) VALUES (r.household_id, r.room_id, 1)
                ON CONFLICT (household_id, room_id) DO UPDATE SET items = t.items + 1;
                IF r.price_minor IS NOT NULL THEN
                    INSERT INTO value_total AS v (household_id, currency, total, items) VALUES (r.household_id, r.currency, r.value_minor, 1)
                    ON CONFLICT (household_id, currency) DO UPDATE SET total = v.total + excluded.total, items = v.items + 1;
                    INSERT INTO category_total AS c (household_id, category_id, currency, total, items)
                    VALUES (r.household_id, r.category_id, r.currency, r.value_minor, 1)
                    ON CONFLICT (household_id, category_id, currency) DO UPDATE SET total = c.total + excluded.total, items = c.items + 1;
                END IF;
            ELSE
                UPDATE item_stats AS s SET items = s.items - 1, documented = s.documented - documented_flag,
                    no_photo = s.no_photo - (r.photo_count = 0)::integer, no_receipt = s.no_receipt - (r.receipt_count = 0)::integer,
                    no_value = s.no_value - (r.price_minor IS NULL)::integer, high_value = s.high_value - high_flag
                WHERE s.household_id = r.household_id;
                UPDATE room_total AS t SET items = t.items - 1 WHERE t.household_id = r.household_id AND t.room_id IS NOT DISTINCT FROM r.room_id;
                IF r.price_minor IS NOT NULL THEN
                    UPDATE value_total AS v SET total = v.total - r.value_minor, items = v.items - 1
                    WHERE v.household_id = r.household_id AND v.currency = r.currency;
                    UPDATE category_total AS c SET total = c.total - r.value_minor, items = c.items - 1
                    WHERE c.household_id = r.household_id AND c.category_id IS NOT DISTINCT FROM r.category_id AND c.currency = r.currency;
                END IF;
            END IF;
        END
        $$
        """,
        """
        CREATE FUNCTION nestory_item_counters() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP <> 'INSERT' THEN PERFORM nestory_item_count(OLD, -1); END IF;
            IF TG_OP <> 'DELETE' THEN PERFORM nestory_item_count(NEW, 1); END IF;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE TRIGGER item_counters
        AFTER INSERT OR DELETE OR UPDATE OF photo_count, receipt_count, price_minor, quantity, currency, category_id, room_id ON item
        FOR EACH ROW EXECUTE FUNCTION nestory_item_counters()
        """,
        """
        CREATE FUNCTION nestory_high_value_recount() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE item_stats SET high_value = (
                SELECT count(*) FROM item i
                WHERE i.household_id = NEW.id AND i.currency = NEW.currency AND i.value_minor > NEW.high_value_threshold_minor)
            WHERE household_id = NEW.id;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE TRIGGER household_high_value AFTER UPDATE OF high_value_threshold_minor, currency ON household
        FOR EACH ROW WHEN (OLD.high_value_threshold_minor IS DISTINCT FROM NEW.high_value_threshold_minor
                           OR OLD.currency IS DISTINCT FROM NEW.currency)
        EXECUTE FUNCTION nestory_high_value_recount()
        """,
    ]
}
