import Foundation
import Logging
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

/// Photos to value new things from on PostgreSQL (the table `valuation_intake`, migration `2026-12-02-valuation-intake`),
/// as SQLite's: a stored file the household keeps until an item is made of it or it expires. Every statement names
/// the household; the file is shared through `blob` as photos' and receipts' are, and garbage collection
/// (`PostgresStore+Attachments`) counts an intake row as a use of its file.
extension PostgresStore {
    public func addIntakePhoto(_ householdID: HouseholdID, staged: StagedBlob, contentType: String, now: Date) async throws -> IntakePhoto {
        let files = try requireFiles()
        defer { files.discard(staged) }
        try await Self.onFileThread { try files.upload(staged) }
        return try await transaction { connection in
            _ = try await Self.fetchHousehold(connection, householdID, logger: logger)
            let attachment = try await Self.commitBlob(connection, files, staged, contentType: contentType, now: now, logger: logger)
            let photo = IntakePhoto(id: UUID(), attachment: attachment, createdAt: now)
            try await connection.query("""
                INSERT INTO valuation_intake (id, household_id, sha256, created_at)
                VALUES (\(photo.id), \(householdID.rawValue), \(attachment.sha256), \(now.millis))
                """, logger: logger)
            return photo
        }
    }

    public func intakePhoto(_ householdID: HouseholdID, _ id: UUID) async throws -> IntakePhoto {
        try await withStoreErrors {
            try await client.withConnection { connection in
                try await Self.intakeRow(connection, householdID, id, lock: false, logger: logger)
            }
        }
    }

    public func attachIntakePhoto(_ householdID: HouseholdID, _ id: UUID, to itemID: ItemID, now: Date) async throws -> ItemPhoto {
        try await transaction { connection in
            // The item's row first (as addPhoto locks it), then the intake row: two attaches of one photo at once make
            // one item photo, the second finds the photo gone.
            let seq = try await Self.itemSeq(connection, householdID, itemID, lock: true, logger: logger)
            let intake = try await Self.intakeRow(connection, householdID, id, lock: true, logger: logger)
            var position = 0
            var hasPrimary = false
            for try await (next, primary) in try await connection.query("""
                SELECT COALESCE(max(position) + 1, 0)::integer, COALESCE(bool_or(is_primary), false) FROM item_photo WHERE item_seq = \(seq)
                """, logger: logger).decode((Int, Bool).self) {
                (position, hasPrimary) = (next, primary)
            }
            let photo = ItemPhoto(householdID: householdID, itemID: itemID, attachment: intake.attachment, isPrimary: !hasPrimary,
                                  position: position, createdAt: now)
            try await connection.query("""
                INSERT INTO item_photo (id, household_id, item_seq, sha256, is_primary, position, created_at)
                VALUES (\(photo.id.rawValue), \(householdID.rawValue), \(seq), \(intake.attachment.sha256), \(photo.isPrimary),
                        \(Int32(clamping: position)), \(now.millis))
                """, logger: logger)
            try await connection.query("DELETE FROM valuation_intake WHERE id = \(id) AND household_id = \(householdID.rawValue)", logger: logger)
            try await connection.query("UPDATE item SET updated_at = \(now.millis) WHERE seq = \(seq)", logger: logger)
            return photo
        }
    }

    /// A photo to value of the household (another household's is not found), its row locked when asked.
    static func intakeRow(_ connection: PostgresConnection, _ householdID: HouseholdID, _ id: UUID, lock: Bool,
                          logger: Logger) async throws -> IntakePhoto {
        let query: PostgresQuery = lock
            ? """
              SELECT i.created_at, b.sha256, b.content_type, b.byte_count FROM valuation_intake i JOIN blob b ON b.sha256 = i.sha256
              WHERE i.household_id = \(householdID.rawValue) AND i.id = \(id) FOR UPDATE OF i
              """
            : """
              SELECT i.created_at, b.sha256, b.content_type, b.byte_count FROM valuation_intake i JOIN blob b ON b.sha256 = i.sha256
              WHERE i.household_id = \(householdID.rawValue) AND i.id = \(id)
              """
        for try await (created, sha256, type, bytes) in try await connection.query(query, logger: logger).decode((Int64, String, String, Int64).self) {
            return IntakePhoto(id: id, attachment: Attachment(sha256: sha256, contentType: type, byteCount: bytes), createdAt: Date(millis: created))
        }
        throw DomainError.notFound("The photo to value")
    }
}
