import Foundation
import NestoryDomain

/// CSV and JSON exports of the whole inventory, streamed item by item from a report source.
///
/// ## CSV
/// One row per item, a header row first, UTF-8 with a byte-order mark, CRLF line ends. Amounts are plain
/// decimals with a dot and no grouping (`1299.99`, `-12.50`), in the row's `currency`; dates are
/// `YYYY-MM-DD`; instants are ISO 8601 in UTC (`2026-11-22T13:05:00Z`). Text that a spreadsheet would
/// run as a formula is prefixed with `'` (see `CSVWriter`).
///
/// ## JSON (`format: "nestory-inventory"`, `version: 1`)
///     {
///       "format": "nestory-inventory", "version": 1, "exportedAt": "2026-11-22T13:05:00Z",
///       "household": { "id", "name", "currency" },
///       "items": [ {
///         "id", "name", "brand", "modelNumber", "serialNumber", "barcode",
///         "quantity",
///         "unitPrice": { "amount": "1299.99", "minorUnits": 129999, "currency": "USD" } | null,
///         "totalValue": same shape (unit price × quantity) | null,
///         "currency", "purchaseDate": "YYYY-MM-DD" | null, "warrantyExpiry": "YYYY-MM-DD" | null,
///         "condition": "new" | "like_new" | "good" | "fair" | "poor", "conditionNotes",
///         "room": name | null, "category": name | null, "tags": [String], "notes",
///         "documentation": { "photo", "receipt", "value", "serial", "room", "category", "documented" },
///         "photos": [ { "sha256", "contentType" } ], "receiptCount",
///         "receipts": [ { "sha256", "contentType", "vendor", "total", "tax" (amounts as above),
///                         "purchaseDate", "rawText" (the recognised text) } ],
///         "createdAt", "updatedAt"  (ISO 8601, UTC),
///         "valuation": { "replacementCost", "actualCashValue": { "value", "low", "high" } (amounts as above) | null,
///                        "method": "market" | "offline" | "manual", "confidence": "low" | "medium" | "high",
///                        "valuedOn": "YYYY-MM-DD", "explanation", "sources": [ { "url", "title", "amount", "fetchedAt" } ] } | null
///           (the latest; the purchase price above is what was paid, never changed by a valuation)
///       } ]
///     }
/// Absent text fields are `null`. Photos are named by the SHA-256 of their bytes, as in backups.
public enum InventoryExport {
    public static let csvHeader = [
        "id", "name", "brand", "model_number", "serial_number", "barcode", "quantity", "unit_price", "total_value", "currency",
        "purchase_date", "warranty_expiry", "condition", "condition_notes", "room", "category", "tags", "notes",
        "photo_count", "receipt_count", "documented", "created_at", "updated_at",
        "replacement_cost", "actual_cash_value", "valuation_currency", "valuation_method", "valued_on",
    ]

    public static func csvRow(_ row: ReportItem) -> [CSVField] {
        let item = row.item
        return [
            .number(item.id.description), .text(item.name), .text(item.brand), .text(item.modelNumber), .text(item.serialNumber),
            .text(item.barcode), .number(String(item.quantity)), .number(item.purchasePrice?.plainAmount),
            .number(item.totalValue?.plainAmount), .number(item.currency.code), .number(item.purchaseDate?.iso),
            .number(item.warrantyExpiry?.iso), .number(item.condition.rawValue), .text(item.conditionNotes), .text(row.roomName),
            .text(row.categoryName), .text(item.tags.joined(separator: "; ")), .text(item.notes),
            .number(String(row.photoCount)), .number(String(row.receiptCount)),
            .number(row.documentation.isDocumented ? "yes" : "no"), .number(iso(item.createdAt)), .number(iso(item.updatedAt)),
            .number(row.valuation?.replacementCost?.value.plainAmount), .number(row.valuation?.actualCashValue?.value.plainAmount),
            .number(row.valuation?.currency.code), .number(row.valuation?.method.rawValue), .number(row.valuation?.valuedOn.iso),
        ]
    }

    /// Writes the CSV of every item of the source; returns the number of items.
    @discardableResult
    public static func writeCSV(from source: any ReportItemSource, to flush: @escaping (Data) throws -> Void) throws -> Int {
        var writer = CSVWriter(flush: flush)
        try writer.write(csvHeader.map { .number($0) })
        var count = 0
        for group in try source.groups(by: .room) {
            try source.forEachItem(in: group, grouping: .room, documentedOnly: false) { row in
                try writer.write(csvRow(row))
                count += 1
            }
        }
        try writer.finish()
        return count
    }

    /// Writes the JSON document of every item; returns the number of items.
    @discardableResult
    public static func writeJSON(from source: any ReportItemSource, household: Household, exportedAt: Date,
                                 to flush: @escaping (Data) throws -> Void) throws -> Int {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let head = HeadJSON(format: "nestory-inventory", version: 1, exportedAt: iso(exportedAt),
                            household: .init(id: household.id.description, name: household.name, currency: household.currency.code))
        var prefix = try encoder.encode(head)
        prefix.removeLast()  // the closing brace: the items follow
        prefix.append(contentsOf: #","items":["#.utf8)
        var buffer = prefix
        var count = 0
        for group in try source.groups(by: .room) {
            try source.forEachItem(in: group, grouping: .room, documentedOnly: false) { row in
                if count > 0 { buffer.append(UInt8(ascii: ",")) }
                buffer.append(try encoder.encode(ItemJSON(row)))
                count += 1
                if buffer.count > 64 * 1024 { try flush(buffer); buffer.removeAll(keepingCapacity: true) }
            }
        }
        buffer.append(contentsOf: "]}\n".utf8)
        try flush(buffer)
        return count
    }

    static func iso(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    struct HeadJSON: Encodable {
        struct HouseholdJSON: Encodable { let id, name, currency: String }
        let format: String
        let version: Int
        let exportedAt: String
        let household: HouseholdJSON
    }

    /// An amount in three forms: exact decimal text, integer minor units, and the currency.
    public struct MoneyJSON: Codable, Hashable, Sendable {
        public let amount: String
        public let minorUnits: Int64
        public let currency: String

        init(_ money: Money) {
            amount = money.plainAmount
            minorUnits = money.minorUnits
            currency = money.currency.code
        }
    }

    /// One exported item (the shape documented above).
    public struct ItemJSON: Codable, Hashable, Sendable {
        public struct Documentation: Codable, Hashable, Sendable {
            public let photo, receipt, value, serial, room, category, documented: Bool
        }
        public struct Photo: Codable, Hashable, Sendable {
            public let sha256, contentType: String
        }
        public struct ReceiptJSON: Codable, Hashable, Sendable {
            public let sha256, contentType: String
            public let vendor: String?
            public let total, tax: MoneyJSON?
            public let purchaseDate, rawText: String?

            public func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(sha256, forKey: .sha256); try c.encode(contentType, forKey: .contentType)
                try c.encode(vendor, forKey: .vendor); try c.encode(total, forKey: .total); try c.encode(tax, forKey: .tax)
                try c.encode(purchaseDate, forKey: .purchaseDate); try c.encode(rawText, forKey: .rawText)
            }
        }

        public let id: String
        public let name: String
        public let brand, modelNumber, serialNumber, barcode: String?
        public let quantity: Int
        public let unitPrice, totalValue: MoneyJSON?
        public let currency: String
        public let purchaseDate, warrantyExpiry: String?
        public let condition: String
        public let conditionNotes: String?
        public let room, category: String?
        public let tags: [String]
        public let notes: String?
        public let documentation: Documentation
        public let photos: [Photo]
        public let receiptCount: Int
        public let receipts: [ReceiptJSON]
        public let createdAt, updatedAt: String
        public let valuation: ValuationJSON?

        public init(_ row: ReportItem) {
            let item = row.item
            let status = row.documentation
            id = item.id.description
            name = item.name
            brand = item.brand
            modelNumber = item.modelNumber
            serialNumber = item.serialNumber
            barcode = item.barcode
            quantity = item.quantity
            unitPrice = item.purchasePrice.map(MoneyJSON.init)
            totalValue = item.totalValue.map(MoneyJSON.init)
            currency = item.currency.code
            purchaseDate = item.purchaseDate?.iso
            warrantyExpiry = item.warrantyExpiry?.iso
            condition = item.condition.rawValue
            conditionNotes = item.conditionNotes
            room = row.roomName
            category = row.categoryName
            tags = item.tags
            notes = item.notes
            documentation = Documentation(photo: status.hasPhoto, receipt: status.hasReceipt, value: status.hasValue,
                                          serial: status.hasSerial, room: status.hasRoom, category: status.hasCategory,
                                          documented: status.isDocumented)
            photos = row.photos.map { Photo(sha256: $0.sha256, contentType: $0.contentType) }
            receiptCount = row.receiptCount
            receipts = row.receipts.map {
                ReceiptJSON(sha256: $0.attachment.sha256, contentType: $0.attachment.contentType, vendor: $0.vendor,
                            total: $0.total.map(MoneyJSON.init), tax: $0.tax.map(MoneyJSON.init), purchaseDate: $0.purchaseDate?.iso,
                            rawText: $0.rawText)
            }
            createdAt = InventoryExport.iso(item.createdAt)
            updatedAt = InventoryExport.iso(item.updatedAt)
            valuation = row.valuation.map(ValuationJSON.init)
        }

        // Absent values are written as null, so every key is always present.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id); try c.encode(name, forKey: .name)
            try c.encode(brand, forKey: .brand); try c.encode(modelNumber, forKey: .modelNumber)
            try c.encode(serialNumber, forKey: .serialNumber); try c.encode(barcode, forKey: .barcode)
            try c.encode(quantity, forKey: .quantity); try c.encode(unitPrice, forKey: .unitPrice)
            try c.encode(totalValue, forKey: .totalValue); try c.encode(currency, forKey: .currency)
            try c.encode(purchaseDate, forKey: .purchaseDate); try c.encode(warrantyExpiry, forKey: .warrantyExpiry)
            try c.encode(condition, forKey: .condition); try c.encode(conditionNotes, forKey: .conditionNotes)
            try c.encode(room, forKey: .room); try c.encode(category, forKey: .category)
            try c.encode(tags, forKey: .tags); try c.encode(notes, forKey: .notes)
            try c.encode(documentation, forKey: .documentation); try c.encode(photos, forKey: .photos)
            try c.encode(receiptCount, forKey: .receiptCount); try c.encode(receipts, forKey: .receipts)
            try c.encode(createdAt, forKey: .createdAt); try c.encode(updatedAt, forKey: .updatedAt)
            try c.encode(valuation, forKey: .valuation)
        }
    }

    /// An item's latest valuation in the JSON export.
    public struct ValuationJSON: Codable, Hashable, Sendable {
        public struct Range: Codable, Hashable, Sendable {
            public let value, low, high: MoneyJSON
        }
        public struct Source: Codable, Hashable, Sendable {
            public let url, title: String
            public let amount: MoneyJSON
            public let fetchedAt: String
        }
        public let replacementCost, actualCashValue: Range?
        public let method, confidence, valuedOn: String
        public let explanation: String?
        public let sources: [Source]

        init(_ valuation: Valuation) {
            func range(_ r: ValueRange?) -> Range? { r.map { Range(value: MoneyJSON($0.value), low: MoneyJSON($0.low), high: MoneyJSON($0.high)) } }
            replacementCost = range(valuation.replacementCost)
            actualCashValue = range(valuation.actualCashValue)
            method = valuation.method.rawValue
            confidence = valuation.confidence.rawValue
            valuedOn = valuation.valuedOn.iso
            explanation = valuation.explanation
            sources = valuation.sources.map { Source(url: $0.url, title: $0.title, amount: MoneyJSON($0.amount), fetchedAt: InventoryExport.iso($0.fetchedAt)) }
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(replacementCost, forKey: .replacementCost); try c.encode(actualCashValue, forKey: .actualCashValue)
            try c.encode(method, forKey: .method); try c.encode(confidence, forKey: .confidence); try c.encode(valuedOn, forKey: .valuedOn)
            try c.encode(explanation, forKey: .explanation); try c.encode(sources, forKey: .sources)
        }
    }
}
