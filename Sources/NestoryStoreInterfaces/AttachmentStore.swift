import Foundation
import NestoryDomain

/// Bytes written to a temporary file on this machine, fsynced and hashed, not yet kept where stored files are
/// (`BlobFiles.stage`). An attachment store's `add…` methods take one and discard its temporary file when done.
public struct StagedBlob: Sendable {
    public let sha256: String
    public let byteCount: Int64
    public let tmpURL: URL

    public init(sha256: String, byteCount: Int64, tmpURL: URL) {
        self.sha256 = sha256
        self.byteCount = byteCount
        self.tmpURL = tmpURL
    }
}

/// An upload written to a temporary file as its bytes arrive, hashed as it goes, never held whole in memory
/// (`BlobFiles.makeWriter`). Call `finish` once, or `abandon` on failure.
public protocol StagedBlobWriter: AnyObject, Sendable {
    /// Appends bytes; throws once the upload passes its size limit (the temporary file is then removed).
    func append(_ bytes: UnsafeRawBufferPointer) throws
    /// Fsyncs the temporary file and says what it holds.
    func finish() throws -> StagedBlob
    /// Removes the temporary file.
    func abandon()
}

/// The right to remove stored files now (none is given while a backup holds its pin); released when done.
public protocol BlobRemovalPin: AnyObject, Sendable {
    func release()
}

/// Where stored files' bytes are kept (the data folder or an object store: NestoryStore's `BlobStore`), as every
/// engine's attachment store uses them. The engines keep the same guarantees:
/// - a row never commits before its file is kept: `upload` before the write transaction, `ensurePresent` inside it
///   (after the `blob` row is locked or found missing);
/// - a file is removed only inside a write transaction that has just seen no row use it, holding `removalPin`
///   (without the pin the row goes and the file stays, for the next sweep).
public protocol BlobFiles: Sendable {
    /// Where the files are, for messages: "the data folder (…)", "s3://bucket/blobs/".
    var location: String { get }
    /// Writes bytes to a temporary file, fsynced, and hashes them.
    func stage(_ data: Data) throws -> StagedBlob
    /// Copies a file on this machine to a temporary file in chunks, fsynced, hashing as it goes; refuses more than
    /// `maxBytes`.
    func stage(contentsOf source: URL, maxBytes: Int64) throws -> StagedBlob
    /// Takes a finished file on this machine (a rendered report) as staged: moved to a temporary file, hashed and
    /// fsynced; the file is gone from `source` afterwards.
    func stage(movingFile source: URL) throws -> StagedBlob
    /// A temporary file that takes an upload as it arrives, refusing more than `maxBytes`.
    func makeWriter(maxBytes: Int64) throws -> any StagedBlobWriter
    /// The bytes of a staged file (to check an upload before it is kept).
    func contents(of staged: StagedBlob) throws -> Data
    /// Removes a staged file's temporary copy if it was not moved into place.
    func discard(_ staged: StagedBlob)
    /// Before the write transaction: the bytes kept where files are stored unless already there.
    func upload(_ staged: StagedBlob) throws
    /// Inside the write transaction that records the row: sure the file is in place when the row commits.
    /// `recorded`: the `blob` row existed (and is held) in this transaction.
    func ensurePresent(_ staged: StagedBlob, recorded: Bool) throws
    func exists(_ sha256: String) throws -> Bool
    /// The stored bytes; `StoreError.attachmentMissing` when there are none.
    func read(_ sha256: String) throws -> Data
    /// A file on this machine with the stored bytes that stays a while (a report being rendered): the stored file
    /// itself when files are kept on this machine, else a temporary copy that the temporary-file sweep removes.
    /// `StoreError.attachmentMissing` when an object store has none.
    func localFile(_ sha256: String) throws -> URL
    /// Deletes a stored file. Only inside a write transaction that saw no row use it, holding `removalPin`.
    func remove(_ sha256: String) throws
    /// The right to remove files now, or nil while a backup holds its pin.
    func removalPin() -> (any BlobRemovalPin)?
    /// Every stored hash that may have no row: files older than `now` less an hour (younger ones may be uploads
    /// whose rows are being written).
    func sweepableHashes(now: Date) throws -> [String]
    /// Removes what crashes and abandoned work leave in this server's temporary folder (staged uploads, reports and
    /// exports being written, backup and restore work, the web app's uploads and archives in `web/`) once older than
    /// `age`, except what `keep` names; with `orphans`, whatever in `web/` `keep` does not name. Entries and bytes removed.
    @discardableResult
    func sweepTemporaryFiles(olderThan age: TimeInterval, now: Date, keep: Set<String>, orphans: Bool) -> (entries: Int, bytes: Int64)
    /// Holds every stored file in place until released (a backup, which reads its rows after taking it); waits for a
    /// removal in progress. Rows may still go meanwhile; their files stay for the next sweep.
    func backupPin() throws -> any BlobRemovalPin
    /// A file on this machine with the stored bytes, for `body` (a copy fetched from an object store is removed after).
    func withLocalFile<T>(_ sha256: String, _ body: (URL) throws -> T) throws -> T
}

/// A photo taken to value a new thing from, before any item exists (the PRD's flow from photos alone): a stored file
/// kept for the household until a reviewed proposal makes an item of it (`attachIntakePhoto`) or it expires.
public struct IntakePhoto: Hashable, Sendable, Identifiable {
    /// How long a photo to value waits for its item to be made; `collectGarbage` removes older ones (and then their
    /// files, when nothing else uses them).
    public static let lifetime: TimeInterval = 30 * 86_400

    public let id: UUID
    public let attachment: Attachment
    public let createdAt: Date

    public init(id: UUID, attachment: Attachment, createdAt: Date) {
        self.id = id
        self.attachment = attachment
        self.createdAt = createdAt
    }
}

/// Item photos, the stored files they and receipts refer to, and receipts: one aggregate, because a photo's or a
/// receipt's row, its `blob` row, the item's counts and its search document change together in one transaction.
///
/// Every engine keeps the same rules, which the conformance suite (`Tests/NestoryStoreInterfacesTests`) checks:
/// - what a household asks about is found only in that household: another household's photo, receipt or file is not
///   found, and a receipt is linked only to an item of its household;
/// - files are content-addressed (`blob`, by SHA-256, kept once however many rows use them); a file is kept while
///   a photo, a receipt or a photo to value uses it and removed once none does (at once, or by `collectGarbage`);
/// - a photo to value is the household's alone; attaching it to an item moves it (the intake row goes, the item's
///   photo comes, in one transaction, the file shared); it expires `IntakePhoto.lifetime` after it was added;
/// - an item's first photo is its main one (the list's thumbnail); photos are listed main first, then in order;
/// - a receipt's vendor and text are in its linked item's search document, and leave it when the receipt is
///   unlinked, moved or deleted; deleting an item unlinks its receipts (they are evidence in their own right);
/// - the item list's photo and receipt counts and main photo follow every change.
public protocol AttachmentStore: Sendable {
    // MARK: Photos

    /// Adds a photo to an item from a staged file (its temporary file is discarded); the first photo becomes primary.
    func addPhoto(_ householdID: HouseholdID, to itemID: ItemID, staged: StagedBlob, contentType: String, now: Date) async throws -> ItemPhoto
    /// Removes a photo; if it was primary, the next one in order becomes primary. Its file goes when no row uses it.
    func removePhoto(_ householdID: HouseholdID, _ photoID: PhotoID, now: Date) async throws
    /// Puts an item's photos in the given order (each named exactly once): the first becomes the main photo.
    func setPhotoOrder(_ householdID: HouseholdID, _ itemID: ItemID, _ order: [PhotoID], now: Date) async throws
    func setPrimaryPhoto(_ householdID: HouseholdID, _ photoID: PhotoID) async throws
    /// An item's photos, the main one first, then by position and time added.
    func photos(_ householdID: HouseholdID, of itemID: ItemID) async throws -> [ItemPhoto]

    // MARK: Photos to value

    /// Keeps a staged photo to value (its temporary file is discarded): the file in place before the row commits.
    func addIntakePhoto(_ householdID: HouseholdID, staged: StagedBlob, contentType: String, now: Date) async throws -> IntakePhoto
    /// A photo to value of this household (another household's, or one gone, is "not found").
    func intakePhoto(_ householdID: HouseholdID, _ id: UUID) async throws -> IntakePhoto
    /// Makes a photo to value the item's photo (the first becomes its main one): the intake row goes and the photo row
    /// comes in one transaction, the file shared. Both must be the household's.
    func attachIntakePhoto(_ householdID: HouseholdID, _ id: UUID, to itemID: ItemID, now: Date) async throws -> ItemPhoto

    // MARK: Stored files

    /// What is recorded of a stored file, only if a photo, a receipt or a photo to value of this household uses it.
    func attachment(_ householdID: HouseholdID, sha256: String) async throws -> Attachment
    /// The bytes of a stored file, only if a photo, a receipt or a photo to value of this household uses it.
    func attachmentData(_ householdID: HouseholdID, sha256: String) async throws -> (Data, Attachment)
    /// Removes photos to value older than `IntakePhoto.lifetime`, then stored files no row uses (rows, and files
    /// without rows over an hour old). Returns how many files went.
    @discardableResult
    func collectGarbage(now: Date) async throws -> Int
    /// Of `hashes`, the ones whose stored file is still recorded (a `blob` row): each server's thumbnails of the
    /// others are a cache it sweeps by this.
    func recordedFiles(among hashes: [String]) async throws -> Set<String>

    // MARK: Receipts

    /// Stores a receipt image (its temporary file is discarded) with what was read from it, linked to an item or not.
    func addReceipt(_ householdID: HouseholdID, itemID: ItemID?, staged: StagedBlob, contentType: String, fields: ReceiptFields,
                    now: Date) async throws -> Receipt
    func receipt(_ householdID: HouseholdID, _ id: ReceiptID) async throws -> ReceiptListing
    /// The household's receipts (with `unlinkedOnly`, those linked to no item), newest first, `limit`
    /// (1…``ReceiptPageCursor/maxLimit``) at a time from where the page `after` ended (see ``ReceiptPageCursor``);
    /// ``ReceiptPageCursor/outOfDate`` for a cursor that is not one.
    func receipts(_ householdID: HouseholdID, limit: Int, after: PageCursor?, unlinkedOnly: Bool) async throws -> Page<ReceiptListing>
    /// An item's receipts, oldest first.
    func receipts(_ householdID: HouseholdID, of itemID: ItemID) async throws -> [Receipt]
    /// Replaces what is known of a receipt; the linked item's search document is rewritten. With `expected`, only
    /// while the receipt still holds exactly those fields, checked in the same transaction; else `ReceiptChanged`
    /// and nothing is written.
    func updateReceipt(_ householdID: HouseholdID, _ id: ReceiptID, _ fields: ReceiptFields, expected: ReceiptFields?) async throws
    /// Links a receipt to an item of the household, or unlinks it with nil.
    func linkReceipt(_ householdID: HouseholdID, _ receiptID: ReceiptID, to itemID: ItemID?) async throws
    /// Deletes a receipt; its file goes when no row uses it.
    func deleteReceipt(_ householdID: HouseholdID, _ id: ReceiptID) async throws

    /// What the household keeps (photos and receipts by their stored files, each counted once; reports) and the
    /// database's size.
    func storageSummary(_ householdID: HouseholdID) async throws -> StorageSummary
}

extension AttachmentStore {
    /// Replaces what is known of a receipt, whatever it held.
    public func updateReceipt(_ householdID: HouseholdID, _ id: ReceiptID, _ fields: ReceiptFields) async throws {
        try await updateReceipt(householdID, id, fields, expected: nil)
    }

    /// Every receipt of the household, a page at a time.
    public func receipts(_ householdID: HouseholdID, limit: Int, after: PageCursor?) async throws -> Page<ReceiptListing> {
        try await receipts(householdID, limit: limit, after: after, unlinkedOnly: false)
    }
}

/// `updateReceipt` was told what the receipt held when the change was made, and it holds something else now: nothing
/// was written.
public struct ReceiptChanged: Error, Equatable, Sendable {
    public init() {}
}

/// The receipts list's page cursor, the same on every engine: the last receipt's time added (milliseconds) and its id,
/// `<millis>.<id>` (the list is newest first, then by id).
public enum ReceiptPageCursor {
    /// The most receipts a page holds.
    public static let maxLimit = 200

    public static func make(after receipt: Receipt) -> PageCursor {
        PageCursor(rawValue: "\(receipt.createdAt.millis).\(receipt.id.description)")
    }

    /// The cursor's time and id; nil when it is not a receipts cursor.
    public static func parse(_ cursor: PageCursor) -> (millis: Int64, id: ReceiptID)? {
        let parts = cursor.rawValue.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let millis = Int64(parts[0]), let id = ReceiptID(string: String(parts[1])) else { return nil }
        return (millis, id)
    }

    /// The page's receipts and the cursor after them when there may be more: `rows` is what the store read, one more
    /// than `limit` when there are.
    public static func page(_ rows: [ReceiptListing], limit: Int) -> Page<ReceiptListing> {
        let elements = Array(rows.prefix(limit))
        return Page(elements: elements, nextCursor: rows.count > limit ? elements.last.map { make(after: $0.receipt) } : nil)
    }

    /// What a cursor that cannot be read is answered with (on `after`, as the items list).
    public static var outOfDate: DomainError { ItemPageCursor.outOfDate }
}
