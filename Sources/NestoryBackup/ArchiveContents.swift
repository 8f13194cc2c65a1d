import Foundation
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces
import Synchronization

/// The rows of a checked archive, read from its data files. Built only after every row has been
/// checked against format version 1; the large tables are then read again one line at a time.
final class ArchiveContents: HouseholdArchiveSource, @unchecked Sendable {
    let household: ArchiveRecord.Household
    let users: [ArchiveRecord.User]
    let memberships: [ArchiveRecord.Membership]
    let rooms: [ArchiveRecord.Room]
    let categories: [ArchiveRecord.Category]
    let blobs: [String: ArchiveRecord.Blob]
    let reports: [ArchiveRecord.Report]
    let itemCount: Int
    /// The household's valuation settings, when the archive has them.
    let valuationSettings: ArchiveRecord.ValuationSettings?
    private let folder: URL

    init(folder: URL, manifest: BackupManifest, files: Set<String>) throws {
        self.folder = folder
        let householdData = try Data(contentsOf: folder.appendingPathComponent(DataFile.household.localName))
        let household: ArchiveRecord.Household
        do {
            household = try JSONDecoder().decode(ArchiveRecord.Household.self, from: householdData)
        } catch {
            throw BackupError.invalidData(file: DataFile.household.rawValue, line: 1, message: Self.describe(error))
        }
        try Self.rule(DataFile.household, 1, Self.isUUID(household.id), "the household id is not a UUID")
        try Self.rule(DataFile.household, 1, (try? Household.validatedName(household.name)) != nil, "the household name is empty or too long")
        try Self.rule(DataFile.household, 1, (try? CurrencyCode(household.currency)) != nil, "“\(household.currency)” is not a currency code")
        try Self.rule(DataFile.household, 1, household.highValueThresholdMinor >= 0, "the high-value threshold is negative")
        self.household = household
        let settingsURL = folder.appendingPathComponent(DataFile.valuationSettings.localName)
        if FileManager.default.fileExists(atPath: settingsURL.path) {
            let settings: ArchiveRecord.ValuationSettings
            do { settings = try JSONDecoder().decode(ArchiveRecord.ValuationSettings.self, from: try Data(contentsOf: settingsURL)) } catch {
                throw BackupError.invalidData(file: DataFile.valuationSettings.rawValue, line: 1, message: Self.describe(error))
            }
            let texts = [settings.analysisBaseURL, settings.analysisModel, settings.analysisKey, settings.searchKey, settings.searchCountry]
            try Self.rule(.valuationSettings, 1, texts.allSatisfy { ($0?.count ?? 0) <= 500 }, "a setting is too long")
            try Self.rule(.valuationSettings, 1, (settings.exchangeRates?.count ?? 0) <= 10_000 && (settings.depreciationTable?.count ?? 0) <= 200_000,
                          "the exchange rates or the depreciation table are too long")
            valuationSettings = settings
        } else {
            valuationSettings = nil
        }

        var users: [ArchiveRecord.User] = []
        var userIDs = Set<String>()
        try Self.readLines(folder, .users) { (user: ArchiveRecord.User, line) in
            try Self.rule(.users, line, Self.isUUID(user.id), "the user id is not a UUID")
            try Self.rule(.users, line, userIDs.insert(user.id).inserted, "the user id \(user.id) appears twice")
            try Self.rule(.users, line, (try? User.normalizedEmail(user.email)) == user.email, "“\(user.email)” is not a valid email address")
            try Self.rule(.users, line, user.passwordHash.map { !$0.isEmpty } ?? true, "the password hash is empty")
            users.append(user)
        }
        var memberships: [ArchiveRecord.Membership] = []
        try Self.readLines(folder, .memberships) { (membership: ArchiveRecord.Membership, line) in
            try Self.rule(.memberships, line, userIDs.contains(membership.userID), "the member \(membership.userID) is not in users")
            try Self.rule(.memberships, line, MemberRole(rawValue: membership.role) != nil, "“\(membership.role)” is not a role")
            memberships.append(membership)
        }

        var rooms: [ArchiveRecord.Room] = []
        var roomIDs = Set<String>(), roomNames = Set<String>()
        try Self.readLines(folder, .rooms) { (room: ArchiveRecord.Room, line) in
            try Self.rule(.rooms, line, Self.isUUID(room.id), "the room id is not a UUID")
            try Self.rule(.rooms, line, roomIDs.insert(room.id).inserted, "the room id \(room.id) appears twice")
            try Self.rule(.rooms, line, (try? PlaceName.validated(room.name)) == room.name, "the room name “\(room.name)” is not valid")
            try Self.rule(.rooms, line, roomNames.insert(Text.foldKey(room.name)).inserted, "the room “\(room.name)” appears twice")
            rooms.append(room)
        }
        var categories: [ArchiveRecord.Category] = []
        var categoryIDs = Set<String>(), categoryNames = Set<String>()
        try Self.readLines(folder, .categories) { (category: ArchiveRecord.Category, line) in
            try Self.rule(.categories, line, Self.isUUID(category.id), "the category id is not a UUID")
            try Self.rule(.categories, line, categoryIDs.insert(category.id).inserted, "the category id \(category.id) appears twice")
            try Self.rule(.categories, line, (try? PlaceName.validated(category.name)) == category.name, "the category name “\(category.name)” is not valid")
            try Self.rule(.categories, line, categoryNames.insert(Text.foldKey(category.name)).inserted, "the category “\(category.name)” appears twice")
            try Self.rule(.categories, line, (try? NestoryDomain.Category.validatedColor(category.colorHex)) != nil, "“\(category.colorHex)” is not a colour")
            categories.append(category)
        }

        // The items' ids as 16-byte UUIDs (ids as strings took about 100 MB at a million items).
        var itemIDs = Set<UUID>()
        func isItem(_ id: String) -> Bool { Self.uuid(id).map(itemIDs.contains) ?? false }
        try Self.readLines(folder, .items) { (item: ArchiveRecord.Item, line) in
            guard let id = Self.uuid(item.id) else { throw BackupError.invalidData(file: DataFile.items.rawValue, line: line, message: "the item id is not a UUID") }
            try Self.rule(.items, line, itemIDs.insert(id).inserted, "the item id \(item.id) appears twice")
            try Self.rule(.items, line, Text.clean(item.name) != nil && item.name.count <= 200, "the item name is empty or too long")
            try Self.rule(.items, line, (try? CurrencyCode(item.currency)) != nil, "“\(item.currency)” is not a currency code")
            try Self.rule(.items, line, (1...ItemDraft.maxQuantity).contains(item.quantity), "the quantity \(item.quantity) is out of range")
            try Self.rule(.items, line, item.priceMinor.map { $0 >= 0 && $0 <= Money.maxMagnitude } ?? true, "the price is out of range")
            try Self.rule(.items, line, ItemCondition(rawValue: item.condition) != nil, "“\(item.condition)” is not a condition")
            for (label, date) in [("purchase date", item.purchaseDate), ("warranty date", item.warrantyExpiry)] {
                if let date { try Self.rule(.items, line, (try? CalendarDate(iso: date)) != nil, "the \(label) “\(date)” is not a date") }
            }
            if let room = item.roomID { try Self.rule(.items, line, roomIDs.contains(room), "the room \(room) is not in rooms") }
            if let category = item.categoryID { try Self.rule(.items, line, categoryIDs.contains(category), "the category \(category) is not in categories") }
            try Self.rule(.items, line, item.tags.allSatisfy { !$0.isEmpty && $0.count <= ItemDraft.maxTagLength }, "a tag is empty or too long")
        }

        var blobs: [String: ArchiveRecord.Blob] = [:]
        let sizes = Dictionary(manifest.files.map { ($0.path, $0.size) }, uniquingKeysWith: { a, _ in a })
        try Self.readLines(folder, .blobs) { (blob: ArchiveRecord.Blob, line) in
            try Self.rule(.blobs, line, files.contains(blob.sha256), "the file \(blob.sha256) is not in the archive")
            try Self.rule(.blobs, line, sizes["files/\(blob.sha256)"] == blob.byteCount, "the file \(blob.sha256.prefix(12))… has another size in the archive")
            try Self.rule(.blobs, line, !blob.contentType.isEmpty && blob.contentType.count < 200, "the content type is not valid")
            try Self.rule(.blobs, line, blobs.updateValue(blob, forKey: blob.sha256) == nil, "the file \(blob.sha256.prefix(12))… appears twice")
        }
        var photoIDs = Set<String>()
        try Self.readLines(folder, .photos) { (photo: ArchiveRecord.Photo, line) in
            try Self.rule(.photos, line, Self.isUUID(photo.id), "the photo id is not a UUID")
            try Self.rule(.photos, line, photoIDs.insert(photo.id).inserted, "the photo id \(photo.id) appears twice")
            try Self.rule(.photos, line, isItem(photo.itemID), "the item \(photo.itemID) is not in items")
            try Self.rule(.photos, line, blobs[photo.sha256] != nil, "the file \(photo.sha256.prefix(12))… is not in blobs")
        }
        var receiptIDs = Set<String>()
        try Self.readLines(folder, .receipts) { (receipt: ArchiveRecord.Receipt, line) in
            try Self.rule(.receipts, line, Self.isUUID(receipt.id), "the receipt id is not a UUID")
            try Self.rule(.receipts, line, receiptIDs.insert(receipt.id).inserted, "the receipt id \(receipt.id) appears twice")
            if let item = receipt.itemID { try Self.rule(.receipts, line, isItem(item), "the item \(item) is not in items") }
            try Self.rule(.receipts, line, blobs[receipt.sha256] != nil, "the file \(receipt.sha256.prefix(12))… is not in blobs")
            if let currency = receipt.currency { try Self.rule(.receipts, line, (try? CurrencyCode(currency)) != nil, "“\(currency)” is not a currency code") }
            if let date = receipt.purchaseDate { try Self.rule(.receipts, line, (try? CalendarDate(iso: date)) != nil, "“\(date)” is not a date") }
        }
        var reports: [ArchiveRecord.Report] = []
        if FileManager.default.fileExists(atPath: folder.appendingPathComponent(DataFile.reports.localName).path) {
            var reportIDs = Set<String>()
            try Self.readLines(folder, .reports) { (report: ArchiveRecord.Report, line) in
                try Self.rule(.reports, line, Self.isUUID(report.id), "the report id is not a UUID")
                try Self.rule(.reports, line, reportIDs.insert(report.id).inserted, "the report id \(report.id) appears twice")
                try Self.rule(.reports, line, !report.kind.isEmpty && report.kind.count <= 40, "the report kind is not valid")
                try Self.rule(.reports, line, sizes["reports/\(report.fileName)"] == report.byteCount,
                              "the report file \(report.fileName) is not in the archive, or has another size")
                reports.append(report)
            }
        }
        self.reports = reports
        var valuationCount = 0
        if FileManager.default.fileExists(atPath: folder.appendingPathComponent(DataFile.valuations.localName).path) {
            var valuationIDs = Set<String>()
            try Self.readLines(folder, .valuations) { (v: ArchiveRecord.Valuation, line) in
                try Self.rule(.valuations, line, Self.isUUID(v.id), "the valuation id is not a UUID")
                try Self.rule(.valuations, line, valuationIDs.insert(v.id).inserted, "the valuation id \(v.id) appears twice")
                try Self.rule(.valuations, line, isItem(v.itemID), "the item \(v.itemID) is not in items")
                try Self.rule(.valuations, line, (try? CurrencyCode(v.currency)) != nil, "“\(v.currency)” is not a currency code")
                try Self.rule(.valuations, line, ValuationMethod(rawValue: v.method) != nil, "“\(v.method)” is not a valuation method")
                try Self.rule(.valuations, line, Valuation.Confidence(rawValue: v.confidence) != nil, "“\(v.confidence)” is not a confidence")
                try Self.rule(.valuations, line, (try? CalendarDate(iso: v.valuedOn)) != nil, "“\(v.valuedOn)” is not a date")
                try Self.rule(.valuations, line, v.rcvMinor != nil || v.acvMinor != nil, "the valuation has neither a replacement cost nor an actual cash value")
                for (value, low, high) in [(v.rcvMinor, v.rcvLowMinor, v.rcvHighMinor), (v.acvMinor, v.acvLowMinor, v.acvHighMinor)] {
                    guard let value else { continue }
                    try Self.rule(.valuations, line, value >= 0 && (low ?? value) <= value && value <= (high ?? value), "a value and its range disagree")
                }
                try Self.rule(.valuations, line, (try? JSONSerialization.jsonObject(with: Data(v.sources.utf8))) is [Any], "the sources are not a JSON list")
                valuationCount += 1
            }
        }
        try Self.rule(.valuations, valuationCount, valuationCount == manifest.counts.valuations,
                      "there are \(valuationCount) valuations, the manifest says \(manifest.counts.valuations)")
        try Self.rule(.items, itemIDs.count, itemIDs.count == manifest.counts.items,
                      "there are \(itemIDs.count) items, the manifest says \(manifest.counts.items)")

        itemCount = itemIDs.count
        self.users = users
        self.memberships = memberships
        self.rooms = rooms
        self.categories = categories
        self.blobs = blobs
    }

    func forEachItem(_ body: (ArchiveRecord.Item) throws -> Void) throws {
        try Self.readAhead(folder, .items, body)
    }

    func forEachPhoto(_ body: (ArchiveRecord.Photo) throws -> Void) throws {
        try Self.readAhead(folder, .photos, body)
    }

    func forEachReceipt(_ body: (ArchiveRecord.Receipt) throws -> Void) throws {
        try Self.readAhead(folder, .receipts, body)
    }

    func forEachValuation(_ body: (ArchiveRecord.Valuation) throws -> Void) throws {
        guard FileManager.default.fileExists(atPath: folder.appendingPathComponent(DataFile.valuations.localName).path) else { return }
        try Self.readAhead(folder, .valuations, body)
    }

    // MARK: - Reading

    /// Decodes a JSON Lines file one line at a time (blank lines are allowed), with line numbers.
    static func readLines<T: Decodable>(_ folder: URL, _ file: DataFile, _ body: (T, Int) throws -> Void) throws {
        var rows = try Rows<T>(folder, file)
        while let (value, number) = try rows.next() { try body(value, number) }
    }

    /// The same for the restore, which stores each row as it comes: the next rows are read and decoded on a thread of
    /// their own, a few batches ahead, while the database stores these (at a million items, 22 s of the wall time).
    static func readAhead<T: Decodable & Sendable>(_ folder: URL, _ file: DataFile, _ body: (T) throws -> Void) throws {
        let rows = Mutex(try Rows<T>(folder, file))
        let batches = ReadAhead<[T]> {
            try rows.withLock { rows in
                var batch: [T] = []
                batch.reserveCapacity(256)
                while batch.count < 256, let (value, _) = try rows.next() { batch.append(value) }
                return batch.isEmpty ? nil : batch
            }
        }
        defer { batches.finish() }
        while let batch = try batches.next() {
            for value in batch { try body(value) }
        }
    }

    /// A data file's rows, decoded one at a time with their line numbers; blank lines are skipped.
    struct Rows<T: Decodable> {
        let file: DataFile
        private var lines: LineFile.Lines
        private let decoder = JSONDecoder()

        init(_ folder: URL, _ file: DataFile) throws {
            self.file = file
            let url = folder.appendingPathComponent(file.localName)
            guard let handle = try? FileHandle(forReadingFrom: url) else { throw BackupError.mismatch("\(file.rawValue) is missing") }
            lines = LineFile.Lines(handle)
        }

        mutating func next() throws -> (T, Int)? {
            do {
                while let (line, number) = try lines.next() {
                    guard line.contains(where: { $0 != 0x20 && $0 != 0x0D && $0 != 0x09 }) else { continue }
                    do {
                        return (try decoder.decode(T.self, from: line), number)
                    } catch {
                        throw BackupError.invalidData(file: file.rawValue, line: number, message: describe(error))
                    }
                }
                return nil
            } catch LineFile.Failure.lineTooLong(let line) {
                throw BackupError.invalidData(file: file.rawValue, line: line, message: "the line is too long")
            }
        }
    }

    static func rule(_ file: DataFile, _ line: Int, _ ok: Bool, _ message: @autoclosure () -> String) throws {
        if !ok { throw BackupError.invalidData(file: file.rawValue, line: line, message: message()) }
    }

    static func isUUID(_ text: String) -> Bool { uuid(text) != nil }

    /// The UUID a lowercase, hyphenated id spells (as Nestory writes them), or nil.
    static func uuid(_ text: String) -> UUID? {
        guard text.utf8.count == 36, !text.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return nil }
        return UUID(uuidString: text)
    }

    /// A decoding error in words: which field, and what was wrong.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, _): return "the field “\(key.stringValue)” is missing"
        case .typeMismatch(_, let context): return "the field “\(path(context))” has the wrong type"
        case .valueNotFound(_, let context): return "the field “\(path(context))” is null"
        case .dataCorrupted(let context): return context.codingPath.isEmpty ? "not valid JSON" : "the field “\(path(context))” is not valid"
        @unknown default: return "not valid"
        }
    }
}
