import Foundation
import NestoryDomain

/// One row of a household's archive, as an engine reads it out (`ArchiveStore.exportHousehold`).
public enum ArchiveRow: Sendable {
    case user(ArchiveRecord.User)
    case membership(ArchiveRecord.Membership)
    case room(ArchiveRecord.Room)
    case category(ArchiveRecord.Category)
    case item(ArchiveRecord.Item)
    case blob(ArchiveRecord.Blob)
    case photo(ArchiveRecord.Photo)
    case receipt(ArchiveRecord.Receipt)
    /// `storedAs`: where the engine keeps the report's PDF, when it is a stored file (`BlobFiles`, by SHA-256: PostgreSQL);
    /// nil: the file `fileName` of the data folder's `reports/` (SQLite).
    case report(ArchiveRecord.Report, storedAs: String?)
    case valuation(ArchiveRecord.Valuation)
}

/// Where an export puts a household's rows (the backup writer's data files), called from one thread at a time.
public protocol HouseholdArchiveSink: AnyObject, Sendable {
    func append(_ row: ArchiveRow) throws
}

/// An item from an import: its fields, and its room and category by name (created when missing).
public struct NamedPlaceDraft: Sendable {
    public var draft: ItemDraft
    public var roomName: String?
    public var categoryName: String?

    public init(draft: ItemDraft, roomName: String?, categoryName: String?) {
        self.draft = draft
        self.roomName = roomName
        self.categoryName = categoryName
    }

    /// Colours for categories an import creates, in turn (distinct, readable on light and dark).
    public static let importColors = ["#2563EB", "#D97706", "#059669", "#DC2626", "#7C3AED", "#0891B2", "#DB2777", "#65A30D"]
}

/// A household as a whole: read out for a backup, written back from one (restore), items added from a file (import).
///
/// Every engine keeps the same rules, which the conformance suite (`Tests/NestoryStoreInterfacesTests`) checks:
/// - an export is one consistent snapshot, and gives the same rows in the same order on every engine (so a backup of
///   the same household is the same bytes whichever engine holds it, apart from the archive's time): users (by
///   creation time, id), memberships (joined, user), rooms and categories (order, id), items (in the order they were
///   added, tags in order), the files photos and receipts use (by SHA-256), photos (item, position, id), receipts
///   (added, id), reports (created, id), valuations (created, in the order added);
/// - a restore is one transaction: all of it or none of it; its files are in place before its rows commit;
/// - `into` nil restores the archive's own household, creating it with its members' accounts (an account whose email
///   the server has is that account) when missing; otherwise rows go into `into` only: `replace` makes its rooms,
///   categories, items, photos, receipts and reports exactly the archive's, `merge` adds what is new, replaces items
///   the archive has a newer version of, and keeps the rest (rooms and categories of the same name are the same
///   place); ids another household uses are given new ids; no other household changes;
/// - Free's item limit (`plan`) is checked in the same transaction: the whole restore or import, or nothing.
public protocol ArchiveStore: Sendable {
    /// Reads a household in one snapshot into `sink`, table by table in the archive's order (see above). Password
    /// hashes only when asked for. Returns the household's own row.
    func exportHousehold(_ householdID: HouseholdID, includePasswordHashes: Bool,
                         to sink: any HouseholdArchiveSink) async throws -> ArchiveRecord.Household
    /// Whether a household with this id exists.
    func householdExists(_ id: String) async throws -> Bool
    /// Applies a validated archive in one transaction. `files`: the archive's stored files, staged and checked, by
    /// SHA-256; `reportFiles`: the reports' PDFs, staged, by file name (kept where the engine keeps reports).
    func restoreHousehold(_ source: any HouseholdArchiveSource, files: [String: StagedBlob], reportFiles: [String: StagedBlob],
                          into target: HouseholdID?, mode: RestoreMode, plan: Entitlement?) async throws -> RestoreSummary
    /// Adds imported items in one transaction (all or nothing), batch by batch from `next` (nil at the end; `count` is
    /// how many are coming, for the plan's check), creating the rooms and categories they name that the household does
    /// not have yet (matched by folded name), at the end of its order.
    func importItemsInBulk(_ householdID: HouseholdID, count: Int, now: Date, today: CalendarDate, plan: Entitlement?,
                           next: @escaping @Sendable () throws -> [NamedPlaceDraft]?) async throws -> ImportSummary
    /// Stores a file and records it without linking it to anything yet; returns what rows refer to (files shared by
    /// many rows, such as the demo's photos). Like every stored file, it is swept once nothing uses it.
    func storeAttachment(_ data: Data, contentType: String, now: Date) async throws -> Attachment
    /// Adds new items with their ids and times, photos and receipts (files already stored) in one transaction, batch by
    /// batch from `next` (nil at the end): all or nothing. Drafts are validated; their rooms and categories must be the
    /// household's. Each item's first photo is its primary; receipts are linked to it and searched with it.
    func insertItemsInBulk(_ householdID: HouseholdID, count: Int, today: CalendarDate,
                           next: @escaping @Sendable () throws -> [NewItem]?) async throws
}
