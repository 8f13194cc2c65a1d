import Foundation
internal import GRDB
import NestoryDomain
import NestoryStoreInterfaces

extension AppDatabase {
    /// How long a photo to value waits for its item to be made (then housekeeping removes it).
    static let intakeLifetime: TimeInterval = IntakePhoto.lifetime

    /// Keeps a staged photo to value, in place and fsynced before its row commits.
    public func addIntakePhoto(_ householdID: HouseholdID, staged: BlobStore.Staged, contentType: String, now: Date) throws -> IntakePhoto {
        defer { blobs.discard(staged) }
        try blobs.upload(staged)
        return try write { db in
            _ = try Self.fetchHousehold(db, householdID)
            let attachment = try commitBlob(db, staged, contentType: contentType, now: now)
            let photo = IntakePhoto(id: UUID(), attachment: attachment, createdAt: now)
            try db.execute(sql: "INSERT INTO valuation_intake (id, household_id, sha256, created_at) VALUES (?, ?, ?, ?)",
                           arguments: [photo.id.uuidString.lowercased(), householdID.description, attachment.sha256, now.millis])
            return photo
        }
    }

    /// A photo to value of this household (another household's is "not found").
    public func intakePhoto(_ householdID: HouseholdID, _ id: UUID) throws -> IntakePhoto {
        try read { db in try Self.intakePhoto(db, householdID, id) }
    }

    /// Inside a read or write: a photo to value of this household.
    static func intakePhoto(_ db: Database, _ householdID: HouseholdID, _ id: UUID) throws -> IntakePhoto {
        guard let row = try Row.fetchOne(db, sql: """
            SELECT i.id, i.created_at, b.sha256, b.content_type, b.byte_count FROM valuation_intake i JOIN blob b ON b.sha256 = i.sha256
            WHERE i.household_id = ? AND i.id = ?
            """, arguments: [householdID.description, id.uuidString.lowercased()]) else {
            throw DomainError.notFound("The photo to value")
        }
        return IntakePhoto(id: id, attachment: Attachment(sha256: row["sha256"], contentType: row["content_type"], byteCount: row["byte_count"]),
                           createdAt: row.date("created_at"))
    }

    /// Makes a photo to value the item's photo (the first becomes its main one): one transaction, the file shared.
    /// The photo to value is read inside the write, so two attaches of it at once make one photo (the second finds it gone).
    public func attachIntakePhoto(_ householdID: HouseholdID, _ id: UUID, to itemID: ItemID, now: Date) throws -> ItemPhoto {
        try write { db in
            let intake = try Self.intakePhoto(db, householdID, id)
            let seq = try Self.itemSeq(db, householdID, itemID)
            let position = try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(position) + 1, 0) FROM item_photo WHERE item_seq = ?", arguments: [seq]) ?? 0
            let isPrimary = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item_photo WHERE item_seq = ? AND is_primary = 1", arguments: [seq]) == 0
            let photo = ItemPhoto(householdID: householdID, itemID: itemID, attachment: intake.attachment, isPrimary: isPrimary, position: position,
                                  createdAt: now)
            try db.execute(sql: """
                INSERT INTO item_photo (id, household_id, item_seq, sha256, is_primary, position, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [photo.id.description, householdID.description, seq, intake.attachment.sha256, isPrimary, position, now.millis])
            try db.execute(sql: "DELETE FROM valuation_intake WHERE id = ?", arguments: [id.uuidString.lowercased()])
            try db.execute(sql: "UPDATE item SET updated_at = ? WHERE seq = ?", arguments: [now.millis, seq])
            return photo
        }
    }
}
