import Foundation
import NestoryDomain
import NestoryPDF
import NestoryReports
import NestoryStore

/// Reads a household's items from the store for a report, a page of 200 at a time.
public struct StoreReportSource: ReportItemSource {
    public let database: AppDatabase
    public let householdID: HouseholdID
    /// Read each item's receipts and every photo too (the JSON export); reports need the counts and the main photo.
    public let includeReceipts: Bool

    public init(database: AppDatabase, householdID: HouseholdID, includeReceipts: Bool = false) {
        self.database = database
        self.householdID = householdID
        self.includeReceipts = includeReceipts
    }

    public func groups(by grouping: ReportGrouping) throws -> [ReportGroup] {
        let column: ReportGroupColumn = grouping == .room ? .room : .category
        return try database.reportGroups(householdID, by: column).map { ReportGroup(id: $0.id, name: $0.name) }
            + [ReportGroup(id: nil, name: grouping == .room ? RoomCount.unassignedName : CategoryValue.uncategorizedName)]
    }

    public func forEachItem(in group: ReportGroup, grouping: ReportGrouping, documentedOnly: Bool,
                            _ body: (ReportItem) throws -> Void) throws {
        var cursor: ReportCursor?
        repeat {
            let page = try database.reportItems(householdID, groupBy: grouping == .room ? .room : .category, groupID: group.id,
                                                documentedOnly: documentedOnly, allPhotos: includeReceipts, receipts: includeReceipts,
                                                after: cursor)
            let valuations = try database.latestValuations(householdID, items: page.items.map(\.listing.item.id))
            for record in page.items { try body(try reportItem(record, valuation: valuations[record.listing.item.id])) }
            cursor = page.next
        } while cursor != nil
    }

    public func forEachItem(ids: [ItemID], _ body: (ReportItem) throws -> Void) throws {
        let records = try database.reportItems(householdID, ids: ids)
        let valuations = try database.latestValuations(householdID, items: records.map(\.listing.item.id))
        for record in records { try body(try reportItem(record, valuation: valuations[record.listing.item.id])) }
    }

    func reportItem(_ record: ReportItemRecord, valuation: Valuation?) throws -> ReportItem {
        ReportItem(item: record.listing.item, roomName: record.roomName, categoryName: record.categoryName,
                   photoCount: record.listing.photoCount, receiptCount: record.listing.receiptCount,
                   photos: try record.photos.map(photo), receipts: record.receipts, valuation: valuation)
    }

    /// JPEG and PNG originals are used as they are; other formats (HEIC, WebP) through their display
    /// rendition, a JPEG, when the web app has made one.
    func photo(_ attachment: Attachment) throws -> ReportPhoto {
        // In an object store the original is fetched to tmp/ (the temporary-file sweep removes it). A photo that is
        // not there is drawn as a missing one, as a file gone from the data folder is; a store that refuses or does
        // not answer fails the report (its job is tried again), rather than leaving every photo out.
        let database = database
        func original() throws -> URL {
            do { return try database.blobs.localFile(attachment.sha256) } catch StoreError.attachmentMissing {
                return database.blobs.url(for: attachment.sha256)
            }
        }
        if attachment.contentType == "image/jpeg" || attachment.contentType == "image/png" {
            return ReportPhoto(url: try original(), contentType: attachment.contentType, sha256: attachment.sha256)
        }
        let display = database.renditions.url(for: attachment.sha256, .display)
        if FileManager.default.fileExists(atPath: display.path) {
            return ReportPhoto(url: display, contentType: "image/jpeg", sha256: attachment.sha256 + "-display")
        }
        return ReportPhoto(url: try original(), contentType: attachment.contentType, sha256: attachment.sha256)
    }
}

/// What a finished PDF holds.
public struct RenderedReport: Sendable, Hashable {
    public let pages: Int
    public let images: Int
    public let items: Int
    public let byteCount: Int64
}

/// Makes reports and exports for a household from the store: PDFs written as they are rendered,
/// optionally kept in the export history.
public struct ReportGenerator: Sendable, ReportMaking {
    public let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    public typealias Progress = @Sendable (_ done: Int, _ total: Int) -> Void

    private func header(_ household: Household, now: Date) -> ReportHeader {
        ReportHeader(householdName: household.name, currency: household.currency, generatedAt: now,
                     generatedOn: CalendarDate(now, in: .current))
    }

    /// Renders the full inventory report to `url`.
    @discardableResult
    public func inventory(_ householdID: HouseholdID, options: InventoryReportOptions, to url: URL, now: Date,
                          progress: Progress = { _, _ in }) throws -> RenderedReport {
        let household = try database.household(householdID)
        let source = StoreReportSource(database: database, householdID: householdID)
        let builder = ReportBuilder(source: source, header: header(household, now: now))
        // A layout pass first (text measured, nothing drawn or read from photos) counts the pages for the footers.
        let layout = try InventoryPDFRenderer(path: nil, paper: options.paper)
        try builder.buildInventory(options, into: layout)
        let renderer = try InventoryPDFRenderer(path: url.path, paper: options.paper, totalPages: layout.pageCount)
        var items = 0
        do {
            try builder.buildInventory(options, into: renderer) { done, total in
                items = total
                progress(done, total)
            }
        } catch {
            try? FileManager.default.removeItem(at: url)  // never leave half a report behind
            throw error
        }
        return RenderedReport(pages: renderer.pageCount, images: renderer.imageCount, items: items, byteCount: Self.size(url))
    }

    /// Renders a loss list to `url`.
    @discardableResult
    public func lossList(_ householdID: HouseholdID, options: LossListOptions, to url: URL, now: Date,
                         progress: Progress = { _, _ in }) throws -> RenderedReport {
        let household = try database.household(householdID)
        let source = StoreReportSource(database: database, householdID: householdID)
        let builder = ReportBuilder(source: source, header: header(household, now: now))
        let layout = try LossListPDFRenderer(path: nil, paper: options.paper)
        try builder.buildLossList(options, into: layout)
        let renderer = try LossListPDFRenderer(path: url.path, paper: options.paper, totalPages: layout.pageCount)
        var items = 0
        do {
            try builder.buildLossList(options, into: renderer) { done, total in
                items = total
                progress(done, total)
            }
        } catch {
            try? FileManager.default.removeItem(at: url)
            throw error
        }
        return RenderedReport(pages: renderer.pageCount, images: renderer.imageCount, items: items, byteCount: Self.size(url))
    }

    /// Renders a report into `tmp` and checks it is a whole PDF; returns its options' JSON (for the export history).
    public func generate(_ householdID: HouseholdID, request: ReportRequest, to tmp: URL, now: Date,
                         progress: @escaping Progress = { _, _ in }) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let optionsJSON: Data
        switch request {
        case .inventory(let options):
            try inventory(householdID, options: options, to: tmp, now: now, progress: progress)
            optionsJSON = try encoder.encode(options)
        case .lossList(let options):
            try lossList(householdID, options: options, to: tmp, now: now, progress: progress)
            optionsJSON = try encoder.encode(options)
        }
        // Only a whole PDF is kept: a full disk once left a 0-byte "finished" report.
        try PDFFileCheck.check(tmp)
        return String(decoding: optionsJSON, as: UTF8.self)
    }

    /// Writes the CSV export of every item; returns the item count.
    @discardableResult
    public func exportCSV(_ householdID: HouseholdID, to url: URL) throws -> Int {
        try Self.writing(url) { flush in
            try InventoryExport.writeCSV(from: StoreReportSource(database: database, householdID: householdID), to: flush)
        }
    }

    /// Writes the JSON export of every item; returns the item count.
    @discardableResult
    public func exportJSON(_ householdID: HouseholdID, to url: URL, now: Date) throws -> Int {
        let household = try database.household(householdID)
        return try Self.writing(url) { flush in
            try InventoryExport.writeJSON(from: StoreReportSource(database: database, householdID: householdID, includeReceipts: true),
                                          household: household,
                                          exportedAt: now, to: flush)
        }
    }

    private static func writing(_ url: URL, _ body: (@escaping (Data) throws -> Void) throws -> Int) throws -> Int {
        guard FileManager.default.createFile(atPath: url.path, contents: nil), let handle = FileHandle(forWritingAtPath: url.path) else {
            throw StoreError.io("\(url.path) cannot be written")
        }
        defer { try? handle.close() }
        return try body { data in try handle.write(contentsOf: data) }
    }

    static func size(_ url: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber)?.int64Value ?? 0
    }
}
