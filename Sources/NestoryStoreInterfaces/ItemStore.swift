import Foundation
import NestoryDomain

/// Items, their tags and the search over them, the inventory list and the summary figures: one aggregate, because
/// an item's row, its tags, its search document and the household's counters change together in one transaction.
///
/// Every engine keeps the same rules, which the conformance suite (`Tests/NestoryStoreInterfacesTests`) checks
/// against each:
/// - what a household asks about is found only in that household; a room or category of another household is refused;
/// - the list's orders: name A–Z by `Text.foldKey` compared as UTF-8 bytes, value high → low (no value last), newest
///   first; ties by the order items were added. Pages continue from a cursor (`ItemPageCursor`), never an offset;
/// - search: every word of `Text.searchWords` must occur (letters, case and accents folded, Porter-stemmed) as a
///   phrase of its tokens within one field (name, brand, model, serial, notes, tags, receipt text); the last word's
///   last token is a prefix; nothing typed is syntax;
/// - the summary and the chart figures are counters kept as items change: reading them costs the same at any size.
public protocol ItemStore: Sendable {
    /// Adds an item. The draft is validated against `today` (the household's calendar day; the server's when nil).
    /// `plan`, when given, is checked in the same transaction as the insert (Free's item limit).
    func createItem(_ householdID: HouseholdID, _ draft: ItemDraft, now: Date, today: CalendarDate?, plan: Entitlement?) async throws -> Item
    /// Replaces an item's editable fields and tags. With `expected`, only if the item is still that version (its
    /// `updatedAt`), checked in the same transaction; else `ItemChanged` and nothing is written.
    func updateItem(_ householdID: HouseholdID, _ id: ItemID, _ draft: ItemDraft, now: Date, today: CalendarDate?, expected: Date?) async throws -> Item
    func deleteItem(_ householdID: HouseholdID, _ id: ItemID) async throws
    /// An item of this household (another household's is not found).
    func item(_ householdID: HouseholdID, _ id: ItemID) async throws -> Item

    /// The household's rooms and categories, in their order (the places an item may name).
    func rooms(_ householdID: HouseholdID) async throws -> [Room]
    func categories(_ householdID: HouseholdID) async throws -> [NestoryDomain.Category]

    /// Adds a room at the end of the household's list. Names are checked by `PlaceName` (a name the household's rooms
    /// already have, folded, is refused).
    func createRoom(_ householdID: HouseholdID, name: String) async throws -> Room
    /// Renames a room of this household (another household's is "not found").
    func renameRoom(_ householdID: HouseholdID, _ id: RoomID, to name: String) async throws
    /// Sets the order of the rooms: `ids` lists every room of the household once.
    func reorderRooms(_ householdID: HouseholdID, _ ids: [RoomID]) async throws
    /// Deletes a room; its items stay, with no room, changed at `now`. Returns how many items that affected.
    func deleteRoom(_ householdID: HouseholdID, _ id: RoomID, now: Date) async throws -> Int
    /// Adds a category (one the household made: `isCustom`) at the end of the list; the colour is `#RRGGBB`.
    func createCategory(_ householdID: HouseholdID, name: String, colorHex: String, icon: String) async throws -> NestoryDomain.Category
    /// Renames and recolours a category of this household.
    func updateCategory(_ householdID: HouseholdID, _ id: CategoryID, name: String, colorHex: String) async throws
    /// Sets the order of the categories: `ids` lists every category of the household once.
    func reorderCategories(_ householdID: HouseholdID, _ ids: [CategoryID]) async throws
    /// Deletes a category; its items stay, uncategorised, changed at `now`. Returns how many items that affected.
    func deleteCategory(_ householdID: HouseholdID, _ id: CategoryID, now: Date) async throws -> Int

    /// The household's items whose barcode is any of `codes` (the spellings of one GTIN), most recently changed first,
    /// at most `limit`.
    func items(_ householdID: HouseholdID, barcodes codes: [String], limit: Int) async throws -> [Item]

    /// One page of the inventory: search, filters and sort compose; pages continue from a cursor.
    func items(_ householdID: HouseholdID, _ query: ItemQuery) async throws -> Page<ItemListing>
    /// How many items match a search and filters, at most `cap` (`exact` false when there are more).
    func countItems(_ householdID: HouseholdID, search: String, filter: ItemFilter, cap: Int) async throws -> (count: Int, exact: Bool)
    /// The summary strip's figures.
    func summary(_ householdID: HouseholdID) async throws -> InventorySummary
    /// Value by category, one entry per category and currency, largest first.
    func valueByCategory(_ householdID: HouseholdID) async throws -> [CategoryValue]
    /// Item counts by room, most first; rooms without items left out.
    func itemsByRoom(_ householdID: HouseholdID) async throws -> [RoomCount]
    /// Tags in use, most used first, then by folded tag.
    func tags(_ householdID: HouseholdID) async throws -> [(tag: String, count: Int)]

    /// One page and how many items match in all (for "124 items"), at most `cap`, read together.
    func itemsAndCount(_ householdID: HouseholdID, _ query: ItemQuery, cap: Int) async throws
        -> (page: Page<ItemListing>, matching: (count: Int, exact: Bool))
    /// How many items each category holds (categories without items left out).
    func itemCountsByCategory(_ householdID: HouseholdID) async throws -> [CategoryID: Int]
    /// The items with these ids that belong to the household, in name order (ties in the order they were added); ids
    /// of other households' items, or of none, are left out. Any number of ids.
    func items(_ householdID: HouseholdID, ids: [ItemID]) async throws -> [ItemListing]

    /// A number per household that moves on with every change to anything its inventory list shows (an item, its
    /// tags, its photos, its receipts' count), by any writer; it only grows, and is 0 before the household's first
    /// item. A list answer kept while it holds is still what the store would answer.
    func itemContentVersion(_ householdID: HouseholdID) async throws -> Int64
    /// A page with its household's `itemContentVersion` as it was at the latest when the page was read: the page is
    /// at least as new as that number (a change made meanwhile moves the number past it, so it is not trusted too long).
    func itemsVersioned(_ householdID: HouseholdID, _ query: ItemQuery) async throws -> (page: Page<ItemListing>, version: Int64)

    // MARK: Reports and exports (their groups are `rooms` and `categories`)

    /// One page of a room's or category's items (`groupID` nil: the items without one) in name order (ties in the order
    /// they were added), continuing after `after`; `next` is nil after the last page. `documentedOnly`: only items with a
    /// photo, a price, a category and a room. `allPhotos`: every photo (else the main one); `receipts`: the linked
    /// receipts. A group of another household, or an id of nothing, has no items.
    func reportItems(_ householdID: HouseholdID, groupBy column: ReportGroupColumn, groupID: String?, documentedOnly: Bool,
                     allPhotos: Bool, receipts: Bool, after: ReportCursor?, limit: Int) async throws
        -> (items: [ReportItemRecord], next: ReportCursor?)
    /// The items with these ids that belong to the household, in name order (ties in the order they were added), with
    /// every photo (`allPhotos`) or the main one; other households' ids, and ids of nothing, are left out. Any number.
    func reportItems(_ householdID: HouseholdID, ids: [ItemID], allPhotos: Bool) async throws -> [ReportItemRecord]
}

/// The list's page cursor, the same on every engine: the sort, the last row's sort key and its sequence number (the
/// order items were added), `name.<base64 of the name key>.<seq>` or `value|newest.<integer>.<seq>`.
public enum ItemPageCursor {
    public enum Key: Equatable, Sendable {
        /// The name sort's key (`Text.foldKey` of the name).
        case name(String)
        /// The value (minor units, -1 without one) or the time added (milliseconds).
        case number(Int64)
    }

    public static func make(sort: ItemSort, key: Key, seq: Int64) -> PageCursor {
        let text: String
        switch key {
        case .name(let name): text = Data(name.utf8).base64EncodedString()
        case .number(let number): text = String(number)
        }
        return PageCursor(rawValue: "\(sort.rawValue).\(text).\(seq)")
    }

    /// The cursor's key and sequence number; nil when it is not one of this sort's cursors.
    public static func parse(_ cursor: PageCursor, sort: ItemSort) -> (key: Key, seq: Int64)? {
        let parts = cursor.rawValue.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == sort.rawValue, let seq = Int64(parts[2]) else { return nil }
        switch sort {
        case .name:
            guard let data = Data(base64Encoded: String(parts[1])), let key = String(data: data, encoding: .utf8) else { return nil }
            return (.name(key), seq)
        case .value, .newest:
            guard let key = Int64(parts[1]) else { return nil }
            return (.number(key), seq)
        }
    }

    /// What a cursor that cannot be read is answered with: on `after`, the parameter that carries it (API and pages).
    public static var outOfDate: DomainError {
        DomainError.invalid(field: "after", message: "That page link is out of date; start again from the first page.")
    }
}

extension ItemStore {
    /// Replaces an item's editable fields and tags, whatever changed since.
    public func updateItem(_ householdID: HouseholdID, _ id: ItemID, _ draft: ItemDraft, now: Date, today: CalendarDate?) async throws -> Item {
        try await updateItem(householdID, id, draft, now: now, today: today, expected: nil)
    }
}

/// `updateItem` was given the version an edit was made on, and the item has changed since: nothing was written.
public struct ItemChanged: Error, Equatable, Sendable {
    public init() {}
}
