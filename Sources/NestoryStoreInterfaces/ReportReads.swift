import Foundation
import NestoryDomain

/// An item as reports and exports read it: the listing, the names of its room and category, and its photos.
public struct ReportItemRecord: Hashable, Sendable {
    public let listing: ItemListing
    public let roomName: String?
    public let categoryName: String?
    /// Main photo first, then by position and time added; only the main one unless all photos were asked for.
    public let photos: [Attachment]
    /// Linked receipts, oldest first, when asked for (empty otherwise).
    public let receipts: [Receipt]

    public init(listing: ItemListing, roomName: String?, categoryName: String?, photos: [Attachment], receipts: [Receipt]) {
        self.listing = listing
        self.roomName = roomName
        self.categoryName = categoryName
        self.photos = photos
        self.receipts = receipts
    }
}

/// Which column groups a report.
public enum ReportGroupColumn: Sendable {
    case room, category
}

/// Where a page of report items ended: the last item's name key (`Text.foldKey`, compared as UTF-8 bytes) and
/// sequence number (the order items were added).
public struct ReportCursor: Hashable, Sendable {
    public let nameKey: String
    public let seq: Int64

    public init(nameKey: String, seq: Int64) {
        self.nameKey = nameKey
        self.seq = seq
    }
}
