import Foundation
import NestoryDomain
import NestoryStoreInterfaces

/// Item photos, stored files and receipts on SQLite, as the async interface: each call runs the store's own method
/// off the caller's thread (`AppDatabase.offload`). Code that still holds the concrete `AppDatabase` calls the same
/// methods synchronously.
public struct SQLiteAttachmentStore: AttachmentStore {
    public let database: AppDatabase

    public init(_ database: AppDatabase) { self.database = database }

    private func run<T: Sendable>(_ body: @escaping @Sendable (AppDatabase) throws -> T) async throws -> T {
        try await database.offload(body)
    }

    public func addPhoto(_ householdID: HouseholdID, to itemID: ItemID, staged: StagedBlob, contentType: String, now: Date) async throws -> ItemPhoto {
        try await run { try $0.addPhoto(householdID, to: itemID, staged: staged, contentType: contentType, now: now) }
    }
    public func removePhoto(_ householdID: HouseholdID, _ photoID: PhotoID, now: Date) async throws {
        try await run { try $0.removePhoto(householdID, photoID, now: now) }
    }
    public func setPhotoOrder(_ householdID: HouseholdID, _ itemID: ItemID, _ order: [PhotoID], now: Date) async throws {
        try await run { try $0.setPhotoOrder(householdID, itemID, order, now: now) }
    }
    public func setPrimaryPhoto(_ householdID: HouseholdID, _ photoID: PhotoID) async throws {
        try await run { try $0.setPrimaryPhoto(householdID, photoID) }
    }
    public func photos(_ householdID: HouseholdID, of itemID: ItemID) async throws -> [ItemPhoto] {
        try await run { try $0.photos(householdID, of: itemID) }
    }

    public func addIntakePhoto(_ householdID: HouseholdID, staged: StagedBlob, contentType: String, now: Date) async throws -> IntakePhoto {
        try await run { try $0.addIntakePhoto(householdID, staged: staged, contentType: contentType, now: now) }
    }
    public func intakePhoto(_ householdID: HouseholdID, _ id: UUID) async throws -> IntakePhoto {
        try await run { try $0.intakePhoto(householdID, id) }
    }
    public func attachIntakePhoto(_ householdID: HouseholdID, _ id: UUID, to itemID: ItemID, now: Date) async throws -> ItemPhoto {
        try await run { try $0.attachIntakePhoto(householdID, id, to: itemID, now: now) }
    }

    public func attachment(_ householdID: HouseholdID, sha256: String) async throws -> Attachment {
        try await run { try $0.attachment(householdID, sha256: sha256) }
    }
    public func attachmentData(_ householdID: HouseholdID, sha256: String) async throws -> (Data, Attachment) {
        try await run { try $0.attachmentData(householdID, sha256: sha256) }
    }
    @discardableResult
    public func collectGarbage(now: Date) async throws -> Int { try await run { try $0.collectGarbage(now: now) } }
    public func recordedFiles(among hashes: [String]) async throws -> Set<String> { try await run { try $0.recordedFiles(among: hashes) } }

    public func addReceipt(_ householdID: HouseholdID, itemID: ItemID?, staged: StagedBlob, contentType: String, fields: ReceiptFields,
                           now: Date) async throws -> Receipt {
        try await run { try $0.addReceipt(householdID, itemID: itemID, staged: staged, contentType: contentType, fields: fields, now: now) }
    }
    public func receipt(_ householdID: HouseholdID, _ id: ReceiptID) async throws -> ReceiptListing {
        try await run { try $0.receipt(householdID, id) }
    }
    public func receipts(_ householdID: HouseholdID, limit: Int, after: PageCursor?, unlinkedOnly: Bool) async throws -> Page<ReceiptListing> {
        try await run { try $0.receipts(householdID, limit: limit, after: after, unlinkedOnly: unlinkedOnly) }
    }
    public func receipts(_ householdID: HouseholdID, of itemID: ItemID) async throws -> [Receipt] {
        try await run { try $0.receipts(householdID, of: itemID) }
    }
    public func updateReceipt(_ householdID: HouseholdID, _ id: ReceiptID, _ fields: ReceiptFields, expected: ReceiptFields?) async throws {
        try await run { try $0.updateReceipt(householdID, id, fields, expected: expected) }
    }
    public func linkReceipt(_ householdID: HouseholdID, _ receiptID: ReceiptID, to itemID: ItemID?) async throws {
        try await run { try $0.linkReceipt(householdID, receiptID, to: itemID) }
    }
    public func deleteReceipt(_ householdID: HouseholdID, _ id: ReceiptID) async throws {
        try await run { try $0.deleteReceipt(householdID, id) }
    }

    public func storageSummary(_ householdID: HouseholdID) async throws -> StorageSummary {
        try await run { try $0.storageSummary(householdID) }
    }
}
