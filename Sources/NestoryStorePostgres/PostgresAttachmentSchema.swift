/// The attachments aggregate's tables on PostgreSQL (the migration `2026-11-30-attachments`), kept beside the store's
/// attachment code; as SQLite's:
/// - `blob`: one row per stored file, by the SHA-256 of its bytes (shared by every row and household that has the
///   same bytes). Photos and receipts refer to it by key, so a row cannot name a file that was never recorded.
/// - `item_photo`: at most one primary per item (a unique partial index); gone with its item or household.
/// - `receipt`: linked to an item or not (`item_seq` becomes NULL when the item is deleted: receipts stay), money in
///   minor units, the confidence as SQLite's REAL.
/// - Triggers keep `item.photo_count` and `item.receipt_count`, which in turn move the summary's counters
///   (`item_counters` fires on their change).
enum PostgresAttachmentSchema {
    static let statements: [String] = [
        """
        CREATE TABLE blob (
            sha256 text PRIMARY KEY CHECK (length(sha256) = 64),
            content_type text NOT NULL,
            byte_count bigint NOT NULL,
            created_at bigint NOT NULL
        )
        """,
        """
        CREATE TABLE item_photo (
            id uuid PRIMARY KEY,
            household_id uuid NOT NULL REFERENCES household(id) ON DELETE CASCADE,
            item_seq bigint NOT NULL REFERENCES item(seq) ON DELETE CASCADE,
            sha256 text NOT NULL REFERENCES blob(sha256),
            is_primary boolean NOT NULL DEFAULT false,
            position integer NOT NULL,
            created_at bigint NOT NULL
        )
        """,
        "CREATE INDEX item_photo_by_item ON item_photo(item_seq, position)",
        "CREATE INDEX item_photo_by_blob ON item_photo(sha256, household_id)",
        "CREATE INDEX item_photo_by_household ON item_photo(household_id)",
        "CREATE UNIQUE INDEX item_photo_one_primary ON item_photo(item_seq) WHERE is_primary",
        """
        CREATE TABLE receipt (
            id uuid PRIMARY KEY,
            household_id uuid NOT NULL REFERENCES household(id) ON DELETE CASCADE,
            item_seq bigint REFERENCES item(seq) ON DELETE SET NULL,
            sha256 text NOT NULL REFERENCES blob(sha256),
            vendor text,
            currency text,
            total_minor bigint,
            tax_minor bigint,
            purchase_date text,
            raw_text text,
            confidence double precision,
            created_at bigint NOT NULL
        )
        """,
        "CREATE INDEX receipt_by_household ON receipt(household_id, created_at)",
        "CREATE INDEX receipt_by_item ON receipt(item_seq, created_at) WHERE item_seq IS NOT NULL",
        "CREATE INDEX receipt_by_blob ON receipt(sha256, household_id)",
        """
        CREATE FUNCTION nestory_photo_count() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                UPDATE item SET photo_count = photo_count + 1 WHERE seq = NEW.item_seq;
            ELSE
                UPDATE item SET photo_count = photo_count - 1 WHERE seq = OLD.item_seq;
            END IF;
            RETURN NULL;
        END
        $$
        """,
        "CREATE TRIGGER item_photo_count AFTER INSERT OR DELETE ON item_photo FOR EACH ROW EXECUTE FUNCTION nestory_photo_count()",
        """
        CREATE FUNCTION nestory_receipt_count() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP <> 'INSERT' AND OLD.item_seq IS NOT NULL THEN
                UPDATE item SET receipt_count = receipt_count - 1 WHERE seq = OLD.item_seq;
            END IF;
            IF TG_OP <> 'DELETE' AND NEW.item_seq IS NOT NULL THEN
                UPDATE item SET receipt_count = receipt_count + 1 WHERE seq = NEW.item_seq;
            END IF;
            RETURN NULL;
        END
        $$
        """,
        "CREATE TRIGGER receipt_count AFTER INSERT OR DELETE ON receipt FOR EACH ROW EXECUTE FUNCTION nestory_receipt_count()",
        """
        CREATE TRIGGER receipt_count_relink AFTER UPDATE OF item_seq ON receipt
        FOR EACH ROW WHEN (OLD.item_seq IS DISTINCT FROM NEW.item_seq) EXECUTE FUNCTION nestory_receipt_count()
        """,
    ]
}
