import Foundation
import NestoryDomain
import NestoryPDF
import NestoryReports
import NestoryStore
import NestoryStoreInterfaces

/// Where a stored photo's display rendition (a JPEG) is kept on this server, whether or not it has been made yet; nil
/// when the server keeps none. The web app writes them when a photo is added or first shown.
public typealias DisplayRenditionURL = @Sendable (_ sha256: String) -> URL?

/// Reads a household's items from the stores for a report, a page of 200 at a time.
///
/// Reports are rendered synchronously (cairo and pango) on a thread of their own (the blocking pool, a command's main
/// thread), so this source waits on that thread for each read of the async stores. It must never be used on one of
/// Swift's cooperative pool's threads: those reads need one to finish.
public struct StoreReportSource: ReportItemSource {
    public let items: any ItemStore
    public let valuations: any ValuationStore
    /// The photos' bytes (a renderer needs a file on this machine: fetched to a temporary one from an object store).
    public let files: any BlobFiles
    public let displayRendition: DisplayRenditionURL
    public let householdID: HouseholdID
    /// Read each item's receipts and every photo too (the JSON export); reports need the counts and the main photo.
    public let includeReceipts: Bool

    public init(items: any ItemStore, valuations: any ValuationStore, files: any BlobFiles,
                displayRendition: @escaping DisplayRenditionURL = { _ in nil }, householdID: HouseholdID, includeReceipts: Bool = false) {
        self.items = items
        self.valuations = valuations
        self.files = files
        self.displayRendition = displayRendition
        self.householdID = householdID
        self.includeReceipts = includeReceipts
    }

    public func groups(by grouping: ReportGrouping) throws -> [ReportGroup] {
        let (items, householdID) = (items, householdID)
        let groups: [ReportGroup] = try Waiting.wait {
            switch grouping {
            case .room: return try await items.rooms(householdID).map { ReportGroup(id: $0.id.description, name: $0.name) }
            case .category: return try await items.categories(householdID).map { ReportGroup(id: $0.id.description, name: $0.name) }
            }
        }
        return groups + [ReportGroup(id: nil, name: grouping == .room ? RoomCount.unassignedName : CategoryValue.uncategorizedName)]
    }

    public func forEachItem(in group: ReportGroup, grouping: ReportGrouping, documentedOnly: Bool,
                            _ body: (ReportItem) throws -> Void) throws {
        let (items, valuations, householdID, includeReceipts) = (items, valuations, householdID, includeReceipts)
        var cursor: ReportCursor?
        repeat {
            let after = cursor
            let (page, latest) = try Waiting.wait {
                let page = try await items.reportItems(householdID, groupBy: grouping == .room ? .room : .category, groupID: group.id,
                                                       documentedOnly: documentedOnly, allPhotos: includeReceipts, receipts: includeReceipts,
                                                       after: after, limit: 200)
                return (page, try await valuations.latestValuations(householdID, items: page.items.map(\.listing.item.id)))
            }
            for record in page.items { try body(try reportItem(record, valuation: latest[record.listing.item.id])) }
            cursor = page.next
        } while cursor != nil
    }

    public func forEachItem(ids: [ItemID], _ body: (ReportItem) throws -> Void) throws {
        let (items, valuations, householdID) = (items, valuations, householdID)
        let (records, latest) = try Waiting.wait {
            let records = try await items.reportItems(householdID, ids: ids, allPhotos: true)
            return (records, try await valuations.latestValuations(householdID, items: records.map(\.listing.item.id)))
        }
        for record in records { try body(try reportItem(record, valuation: latest[record.listing.item.id])) }
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
        let files = files
        func original() throws -> URL {
            do { return try files.localFile(attachment.sha256) } catch StoreError.attachmentMissing {
                return Self.missing(attachment.sha256)
            }
        }
        if attachment.contentType == "image/jpeg" || attachment.contentType == "image/png" {
            return ReportPhoto(url: try original(), contentType: attachment.contentType, sha256: attachment.sha256)
        }
        if let display = displayRendition(attachment.sha256), FileManager.default.fileExists(atPath: display.path) {
            return ReportPhoto(url: display, contentType: "image/jpeg", sha256: attachment.sha256 + "-display")
        }
        return ReportPhoto(url: try original(), contentType: attachment.contentType, sha256: attachment.sha256)
    }

    /// A path where nothing is: the renderer draws the photo as missing.
    static func missing(_ sha256: String) -> URL {
        URL(fileURLWithPath: "/nonexistent/nestory-missing-photo/\(sha256)")
    }
}

/// Waits on this thread for async work: a report's reads of the stores from inside its synchronous rendering. The
/// work runs as a task of its own (never the caller's actor); the caller's thread must not be one of Swift's
/// cooperative pool's (the blocking pool's are not, nor is a command's main thread), or the work may never get one.
package enum Waiting {
    /// What the task left, read after the semaphore (which orders the write before the read).
    private final class Box<T>: @unchecked Sendable { var result: Result<T, any Error>? }

    package static func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let box = Box<T>()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }
}

/// What a finished PDF holds.
public struct RenderedReport: Sendable, Hashable {
    public let pages: Int
    public let images: Int
    public let items: Int
    public let byteCount: Int64
}

/// Makes reports and exports for a household from the stores: PDFs written as they are rendered,
/// optionally kept in the export history. Its methods wait for the stores on the calling thread (`StoreReportSource`):
/// call them on the blocking pool or a command's main thread, never on Swift's cooperative pool.
public struct ReportGenerator: Sendable, ReportMaking {
    public let items: any ItemStore
    public let valuations: any ValuationStore
    public let accounts: any AccountStore
    public let files: any BlobFiles
    public let displayRendition: DisplayRenditionURL

    public init(items: any ItemStore, valuations: any ValuationStore, accounts: any AccountStore, files: any BlobFiles,
                displayRendition: @escaping DisplayRenditionURL = { _ in nil }) {
        self.items = items
        self.valuations = valuations
        self.accounts = accounts
        self.files = files
        self.displayRendition = displayRendition
    }

    /// The stores of one engine (its items, valuations and households) and the files they refer to.
    public init(stores: Stores, files: any BlobFiles, displayRendition: @escaping DisplayRenditionURL = { _ in nil }) {
        self.init(items: stores.items, valuations: stores.valuations, accounts: stores.accounts, files: files,
                  displayRendition: displayRendition)
    }

    /// On one SQLite database (the embedded default): its stores, its files and the display renditions in its data folder.
    public static func sqlite(_ database: AppDatabase) -> ReportGenerator {
        let renditions = database.renditions
        return ReportGenerator(stores: .sqlite(database), files: database.blobs, displayRendition: { renditions.url(for: $0, .display) })
    }

    /// The items of one household as this generator reads them (its reports' and exports' source).
    public func source(_ householdID: HouseholdID, includeReceipts: Bool = false) -> StoreReportSource {
        StoreReportSource(items: items, valuations: valuations, files: files, displayRendition: displayRendition,
                          householdID: householdID, includeReceipts: includeReceipts)
    }

    func household(_ id: HouseholdID) throws -> Household {
        let accounts = accounts
        return try Waiting.wait { try await accounts.household(id) }
    }

    public typealias Progress = @Sendable (_ done: Int, _ total: Int) -> Void

    private func header(_ household: Household, now: Date) -> ReportHeader {
        ReportHeader(householdName: household.name, currency: household.currency, generatedAt: now,
                     generatedOn: household.day(at: now))
    }

    /// Renders the full inventory report to `url`.
    @discardableResult
    public func inventory(_ householdID: HouseholdID, options: InventoryReportOptions, to url: URL, now: Date,
                          progress: Progress = { _, _ in }) throws -> RenderedReport {
        let household = try household(householdID)
        let source = source(householdID)
        let builder = ReportBuilder(source: source, header: header(household, now: now))
        // A layout pass first (text measured, nothing drawn or read from photos) counts the pages for the footers.
        let layout = try InventoryPDFRenderer(path: nil, paper: options.paper)
        try builder.buildInventory(options, into: layout)
        return try Self.rendering(to: url) { partial in
            let renderer = try InventoryPDFRenderer(path: partial.path, paper: options.paper, totalPages: layout.pageCount)
            var items = 0
            try builder.buildInventory(options, into: renderer) { done, total in
                items = total
                progress(done, total)
            }
            return RenderedReport(pages: renderer.pageCount, images: renderer.imageCount, items: items, byteCount: Self.size(partial))
        }
    }

    /// Renders a loss list to `url`.
    @discardableResult
    public func lossList(_ householdID: HouseholdID, options: LossListOptions, to url: URL, now: Date,
                         progress: Progress = { _, _ in }) throws -> RenderedReport {
        let household = try household(householdID)
        let source = source(householdID)
        let builder = ReportBuilder(source: source, header: header(household, now: now))
        let layout = try LossListPDFRenderer(path: nil, paper: options.paper)
        try builder.buildLossList(options, into: layout)
        return try Self.rendering(to: url) { partial in
            let renderer = try LossListPDFRenderer(path: partial.path, paper: options.paper, totalPages: layout.pageCount)
            var items = 0
            try builder.buildLossList(options, into: renderer) { done, total in
                items = total
                progress(done, total)
            }
            return RenderedReport(pages: renderer.pageCount, images: renderer.imageCount, items: items, byteCount: Self.size(partial))
        }
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
        return String(decoding: optionsJSON, as: UTF8.self)
    }

    /// Writes the CSV export of every item; returns the item count.
    @discardableResult
    public func exportCSV(_ householdID: HouseholdID, to url: URL) throws -> Int {
        try Self.writing(url) { flush in try exportCSV(householdID, into: flush) }
    }

    /// Writes the CSV export of every item through `flush` as it is made (`nestory export csv -`); returns the item count.
    public func exportCSV(_ householdID: HouseholdID, into flush: @escaping (Data) throws -> Void) throws -> Int {
        try InventoryExport.writeCSV(from: source(householdID), to: flush)
    }

    /// Writes the JSON export of every item; returns the item count.
    @discardableResult
    public func exportJSON(_ householdID: HouseholdID, to url: URL, now: Date) throws -> Int {
        try Self.writing(url) { flush in try exportJSON(householdID, into: flush, now: now) }
    }

    /// Writes the JSON export of every item through `flush` as it is made; returns the item count.
    public func exportJSON(_ householdID: HouseholdID, into flush: @escaping (Data) throws -> Void, now: Date) throws -> Int {
        try InventoryExport.writeJSON(from: source(householdID, includeReceipts: true), household: household(householdID),
                                      exportedAt: now, to: flush)
    }

    /// Renders a PDF beside `url` and renames it onto `url` only once it is a whole PDF: a full disk once left a 0-byte
    /// "finished" report, and a report that failed part way removed the one that was there before.
    private static func rendering(to url: URL, _ body: (URL) throws -> RenderedReport) throws -> RenderedReport {
        try replacing(url) { partial in
            let rendered = try body(partial)
            try PDFFileCheck.check(partial)
            return rendered
        }
    }

    /// Writes beside `url` and renames onto it once the whole file is written: a failed export (a full disk) leaves
    /// neither a truncated file that looks like an export nor the loss of the export that was there before.
    private static func writing(_ url: URL, _ body: (@escaping (Data) throws -> Void) throws -> Int) throws -> Int {
        try replacing(url) { partial in
            guard FileManager.default.createFile(atPath: partial.path, contents: nil), let handle = FileHandle(forWritingAtPath: partial.path) else {
                throw StoreError.io("\(url.path) cannot be written")
            }
            do {
                let count = try body { data in try handle.write(contentsOf: data) }
                try handle.close()
                return count
            } catch let error as StoreError {
                try? handle.close()
                throw error
            } catch {
                try? handle.close()
                throw StoreError.io("\(url.path): \(Self.reason(error))")
            }
        }
    }

    /// `body` writes the file at the path it is given, in `url`'s folder (so the rename cannot copy); that file then
    /// replaces `url`, or is removed if `body` throws.
    private static func replacing<T>(_ url: URL, _ body: (URL) throws -> T) throws -> T {
        let partial = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial-\(UUID().uuidString.prefix(8))")
        defer { unlink(partial.path) }
        let result = try body(partial)
        guard rename(partial.path, url.path) == 0 else {
            throw StoreError.io("\(url.path): \(String(cString: strerror(errno)))")
        }
        return result
    }

    /// The system's words for a failed write ("No space left on device"), not Foundation's error dump.
    private static func reason(_ error: any Error) -> String {
        let error = error as NSError
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return error.domain == NSPOSIXErrorDomain ? String(cString: strerror(Int32(error.code))) : error.localizedDescription
    }

    static func size(_ url: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber)?.int64Value ?? 0
    }
}
