import Foundation
import NestoryDomain
import NestoryImaging
import NestoryStore
import NestoryStoreInterfaces

/// Items: create, change and delete them, and add photos. The web form, the JSON API, the offline
/// queue's replay and the command line share these; every write runs on the blocking pool, never on an
/// event loop (a commit waits for its fsync).
public struct ItemsService: Sendable {
    /// Where items are created, changed, deleted and read.
    let items: any ItemStore
    /// Where photos, stored files and receipts are kept and read.
    let attachments: any AttachmentStore
    /// The household a photo to value is kept for.
    let accounts: any AccountStore
    /// Warranties ending soon.
    let reminders: any ReminderStore
    /// Stored files' bytes, and uploads' temporary files while they arrive.
    let files: any BlobFiles
    /// This server's thumbnails and display sizes (a cache, made again from the originals when missing).
    let renditions: RenditionCache
    let imaging: any ImageProcessing
    let blocking: BlockingPool
    let maxBytes: Int64
    let plan: PlanService
    let now: @Sendable () -> Date

    public init(items: any ItemStore, attachments: any AttachmentStore, accounts: any AccountStore, reminders: any ReminderStore,
                files: any BlobFiles, renditions: RenditionCache, imaging: any ImageProcessing, blocking: BlockingPool, maxBytes: Int64,
                plan: PlanService, now: @escaping @Sendable () -> Date = Date.init) {
        self.items = items
        self.attachments = attachments
        self.accounts = accounts
        self.reminders = reminders
        self.files = files
        self.renditions = renditions
        self.imaging = imaging
        self.blocking = blocking
        self.maxBytes = maxBytes
        self.plan = plan
        self.now = now
    }

    /// Creates an item (the draft is checked against the domain's rules, dates against today, the count against
    /// the household's plan).
    public func create(_ household: HouseholdID, _ draft: ItemDraft, today: CalendarDate) async throws -> Item {
        let (plan, at) = (plan, now())
        let entitlement = try await plan.entitlement(household)
        return try await items.createItem(household, draft, now: at, today: today, plan: entitlement)
    }

    /// Replaces an item's fields; with `expected`, only while the item is still that version (else `ItemChanged`).
    public func update(_ household: HouseholdID, _ item: ItemID, _ draft: ItemDraft, today: CalendarDate, expected: Date? = nil) async throws -> Item {
        try await items.updateItem(household, item, draft, now: now(), today: today, expected: expected)
    }

    /// Saves an edit made on the item's form as `base` showed it. Changes saved since (another member, another
    /// device, a photo added) are kept: the edit is merged onto them field by field, and written only if the item is
    /// still the version merged onto, so a change is never overwritten unseen. A field both changed differently is an
    /// `ItemEditConflict` and nothing is saved.
    public func update(_ household: HouseholdID, _ id: ItemID, values: ItemFormValues, base: ItemFormBase, defaultCurrency: CurrencyCode,
                       today: CalendarDate) async throws -> Item {
        // A change landing between the read and the write is merged in on the next turn; three in a row is a conflict.
        for _ in 0..<3 {
            let current = try await items.item(household, id)
            var edit = values
            if current.updatedAt.millis != base.version.millis {
                let merge = values.merged(base: base.values, saved: ItemFormValues(item: current))
                guard merge.conflicts.isEmpty else {
                    var proposed = merge.values
                    for field in merge.conflicts { proposed.values[field] = values[field] }
                    throw ItemEditConflict(current: current, fields: merge.conflicts, proposed: proposed)
                }
                edit = merge.values
            }
            let draft = try edit.draft(defaultCurrency: defaultCurrency, today: today).get()
            do {
                return try await items.updateItem(household, id, draft, now: now(), today: today, expected: current.updatedAt)
            } catch is ItemChanged {
                continue
            }
        }
        throw ItemEditConflict(current: try await items.item(household, id), fields: [], proposed: values)
    }

    /// Deletes an item (its photos' files go when no other row uses them); returns what it was.
    @discardableResult
    public func delete(_ household: HouseholdID, _ item: ItemID) async throws -> Item {
        let deleted = try await items.item(household, item)
        try await items.deleteItem(household, item)
        return deleted
    }

    // MARK: - Photos

    /// One of the item's photos (another item's, or another household's, is not found).
    private func checkPhoto(_ household: HouseholdID, _ item: ItemID, _ photo: PhotoID) async throws {
        guard try await attachments.photos(household, of: item).contains(where: { $0.id == photo }) else { throw DomainError.notFound("The photo") }
    }

    /// Removes one of the item's photos (its file goes once no row uses it); the item may end with none.
    public func removePhoto(_ household: HouseholdID, _ item: ItemID, _ photo: PhotoID) async throws {
        try await checkPhoto(household, item, photo)
        try await attachments.removePhoto(household, photo, now: now())
    }

    /// Makes one of the item's photos its main one (shown first, in lists and reports).
    public func makeMainPhoto(_ household: HouseholdID, _ item: ItemID, _ photo: PhotoID) async throws {
        try await checkPhoto(household, item, photo)
        try await attachments.setPrimaryPhoto(household, photo)
    }

    /// Puts the item's photos in this order (each of them once); the first becomes the main photo.
    public func reorderPhotos(_ household: HouseholdID, _ item: ItemID, _ order: [PhotoID]) async throws {
        try await attachments.setPhotoOrder(household, item, order, now: now())
    }

    /// Moves one photo a place earlier (-1) or later (+1) among the item's photos, as they are shown;
    /// moved to the front it becomes the main photo. At either end it stays where it is.
    public func movePhoto(_ household: HouseholdID, _ item: ItemID, _ photo: PhotoID, by offset: Int) async throws {
        var order = try await attachments.photos(household, of: item).map(\.id)
        guard let index = order.firstIndex(of: photo) else { throw DomainError.notFound("The photo") }
        let target = min(max(index + offset, 0), order.count - 1)
        guard target != index else { return }
        order.swapAt(index, target)
        try await attachments.setPhotoOrder(household, item, order, now: now())
    }

    /// Where an upload's bytes go while they arrive: appended to a file, never held whole in memory.
    public struct Upload: Sendable {
        let writer: any StagedBlobWriter

        /// Appends the next bytes; throws once the upload passes the size limit.
        public func append(_ bytes: UnsafeRawBufferPointer) throws {
            try writer.append(bytes)
        }
    }

    /// What an upload to an item did: the photo it added, or the one the item already had with the same bytes (`isNew`
    /// false: nothing was added; the same picture chosen twice would show twice, and twice in its reports).
    public struct PhotoUpload: Sendable {
        public let photo: ItemPhoto
        public let isNew: Bool
    }

    /// Adds the photo whose bytes `receive` writes into the upload, unless the item has that very file already. Someone
    /// else's item is "not found" before a byte is read; a declared length over the limit is refused before reading too.
    public func addPhoto(_ household: HouseholdID, to item: ItemID, declaredLength: Int64? = nil,
                         receive: (Upload) async throws -> Void) async throws -> PhotoUpload {
        _ = try await items.item(household, item)
        let (attachments, files) = (attachments, files)
        return try await storePhoto(declaredLength: declaredLength, receive: receive) { staged, contentType, at in
            if let same = try await attachments.photos(household, of: item).first(where: { $0.attachment.sha256 == staged.sha256 }) {
                files.discard(staged)
                return PhotoUpload(photo: same, isNew: false)
            }
            return PhotoUpload(photo: try await attachments.addPhoto(household, to: item, staged: staged, contentType: contentType, now: at),
                               isNew: true)
        }
    }

    /// Keeps a photo to value a new thing from (no item yet), checked as an item's photo is.
    public func addIntakePhoto(_ household: HouseholdID, declaredLength: Int64? = nil,
                               receive: (Upload) async throws -> Void) async throws -> IntakePhoto {
        _ = try await accounts.household(household)
        let attachments = attachments
        return try await storePhoto(declaredLength: declaredLength, receive: receive) { staged, contentType, at in
            try await attachments.addIntakePhoto(household, staged: staged, contentType: contentType, now: at)
        }
    }

    /// The one path of an uploaded photo: spooled to a file within the size limit, decoded and checked by the imaging
    /// service (a file that is not an image is refused and discarded), then recorded by `record` (which keeps the
    /// file and writes its row off the event loops), its renditions kept.
    private func storePhoto<Stored: Sendable>(declaredLength: Int64?, receive: (Upload) async throws -> Void,
                                              record: @escaping @Sendable (StagedBlob, String, Date) async throws -> Stored)
        async throws -> Stored {
        if let declaredLength, declaredLength > maxBytes { throw StoreError.tooLarge(limit: maxBytes) }
        let files = files
        let writer = try files.makeWriter(maxBytes: maxBytes)
        try await receive(Upload(writer: writer))
        let staged = try await blocking.run { try writer.finish() }  // fsync
        let derived: DerivedImages
        do {
            derived = try await imaging.derive(from: try files.contents(of: staged))
        } catch {
            files.discard(staged)
            throw error
        }
        let (at, sha, renditions) = (now(), staged.sha256, renditions)
        // The file is renamed into place and fsynced, and the row written, off the event loops (by `record`).
        let stored = try await record(staged, derived.original.format.mimeType, at)
        // The renditions are a cache: made again on first view if they cannot be kept now.
        await blocking.run {
            try? renditions.write(derived.thumbnail.data, for: sha, .thumbnail)
            try? renditions.write(derived.display.data, for: sha, .display)
        }
        return stored
    }

    /// A stored file's bytes, read off the event loops (from an object store, a GET).
    public func storedFile(_ sha256: String) async throws -> Data {
        let files = files
        return try await blocking.run { try files.read(sha256) }
    }

    /// A stored image's rendition (a JPEG without metadata: no location), from the cache or made again and kept;
    /// nil when the bytes are not an image this server can read.
    public func rendition(of data: Data, sha256: String, _ kind: RenditionCache.Kind) async -> Data? {
        if let cached = renditions.read(sha256, kind) { return cached }
        guard let derived = try? await imaging.derive(from: data) else { return nil }
        try? renditions.write(derived.thumbnail.data, for: sha256, .thumbnail)
        try? renditions.write(derived.display.data, for: sha256, .display)
        return kind == .thumbnail ? derived.thumbnail.data : derived.display.data
    }
}

/// An edit and a change saved while it was being made changed the same fields differently (`fields`; none when the
/// item kept changing under the edit): nothing was saved. `current` is the item now; `proposed` the edit merged onto
/// it with the edit's own values where both changed, for the form to show and save again on `current`'s version.
public struct ItemEditConflict: Error, Sendable {
    public let current: Item
    public let fields: [String]
    public let proposed: ItemFormValues
}
