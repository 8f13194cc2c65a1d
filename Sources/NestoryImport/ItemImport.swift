import Foundation
import NestoryDomain

/// The item fields a CSV column can fill.
public enum ImportField: String, CaseIterable, Sendable, Codable {
    case name, brand, model, serial, price, currency, purchaseDate = "purchase_date", room, category, tags, notes
    case quantity, condition, conditionNotes = "condition_notes", barcode, warranty

    public var label: String {
        switch self {
        case .name: return "Name"
        case .brand: return "Brand"
        case .model: return "Model"
        case .serial: return "Serial number"
        case .price: return "Purchase price"
        case .currency: return "Currency"
        case .purchaseDate: return "Purchase date"
        case .room: return "Room"
        case .category: return "Category"
        case .tags: return "Tags"
        case .notes: return "Notes"
        case .quantity: return "Quantity"
        case .condition: return "Condition"
        case .conditionNotes: return "Condition notes"
        case .barcode: return "Barcode"
        case .warranty: return "Warranty expiry"
        }
    }

    /// Header names (folded) that mean this field, for guessing the mapping.
    var synonyms: [String] {
        switch self {
        case .name: return ["name", "item", "item name", "title", "description", "product"]
        case .brand: return ["brand", "manufacturer", "make", "maker"]
        case .model: return ["model", "model number", "model no", "model_number", "modelnumber"]
        case .serial: return ["serial", "serial number", "serial no", "serial_number", "serialnumber", "s/n"]
        // "unit price" is Nestory's own CSV export's column (its "total value" is the price times the quantity).
        case .price: return ["price", "purchase price", "cost", "value", "amount", "purchase_price", "paid", "unit price"]
        case .currency: return ["currency", "currency code"]
        case .purchaseDate: return ["purchase date", "date", "purchased", "bought", "purchase_date", "date purchased"]
        case .room: return ["room", "location", "place", "area"]
        case .category: return ["category", "type", "kind", "group"]
        case .tags: return ["tags", "labels", "tag", "label"]
        case .notes: return ["notes", "note", "comments", "comment", "remarks"]
        case .quantity: return ["quantity", "qty", "count", "number", "amount owned"]
        case .condition: return ["condition", "state"]
        case .conditionNotes: return ["condition notes", "condition details"]
        case .barcode: return ["barcode", "upc", "ean", "gtin", "isbn"]
        case .warranty: return ["warranty", "warranty expiry", "warranty expires", "warranty_expires", "warranty until"]
        }
    }
}

/// Which column fills which field. Columns are indexes into the header.
public struct ColumnMapping: Sendable, Hashable, Codable {
    public var columns: [ImportField: Int]

    public init(columns: [ImportField: Int] = [:]) {
        self.columns = columns
    }

    /// A first guess from the header names.
    public static func guess(header: [String]) -> ColumnMapping {
        var mapping = ColumnMapping()
        var used = Set<Int>()
        let folded = header.map(fold)
        for field in ImportField.allCases {
            for synonym in field.synonyms {
                if let index = folded.firstIndex(of: synonym), !used.contains(index) {
                    mapping.columns[field] = index
                    used.insert(index)
                    break
                }
            }
        }
        return mapping
    }

    /// `name=Title,price=Cost` (field=header name, or field=column number from 1; `field=` or
    /// `field=-` leaves it out). Fields not named keep their guessed column.
    public static func parse(_ spec: String, header: [String]) throws(ImportError) -> ColumnMapping {
        var mapping = guess(header: header)
        let folded = header.map(fold)
        for part in spec.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, let field = ImportField(rawValue: pair[0].lowercased().replacingOccurrences(of: "-", with: "_")) else {
                throw .badMapping("“\(part)” is not field=column (fields: \(ImportField.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            if pair[1].isEmpty || pair[1] == "-" {
                mapping.columns[field] = nil
            } else if let index = folded.firstIndex(of: fold(pair[1])) {
                mapping.columns[field] = index
            } else if let number = Int(pair[1]), (1...header.count).contains(number) {
                mapping.columns[field] = number - 1
            } else {
                throw .badMapping("there is no column “\(pair[1])” (columns: \(header.joined(separator: ", ")))")
            }
        }
        return mapping
    }

    static func fold(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: "_", with: " ")
    }
}

/// How ambiguous values are read.
public struct ImportOptions: Sendable, Hashable {
    /// Used for prices without a currency of their own.
    public var currency: CurrencyCode
    /// How `03/04/2024` is read.
    public var dateOrder: DateOrder
    /// The household's calendar day (for "not in the future").
    public var today: CalendarDate

    public enum DateOrder: String, Sendable, Hashable, CaseIterable { case dmy, mdy }

    public init(currency: CurrencyCode, dateOrder: DateOrder = .mdy, today: CalendarDate) {
        self.currency = currency
        self.dateOrder = dateOrder
        self.today = today
    }
}

/// One item ready to be stored: its draft (without room or category ids yet) and the names of its
/// room and category, created when missing.
public struct ImportedItem: Sendable, Hashable {
    public var line: Int
    public var draft: ItemDraft
    public var roomName: String?
    public var categoryName: String?
}

/// A problem with one row, for the person fixing the file.
public struct RowError: Error, Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var column: String?
    public var message: String

    public init(line: Int, column: String?, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String {
        "Line \(line)\(column.map { " (\($0))" } ?? ""): \(message)"
    }
}

public enum ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A file is checked until this many problems are found: enough to fix a pattern, and the memory stays small.
    public static let listedRows = 1_000

    case csv(CSVError)
    case badMapping(String)
    case noNameColumn
    case rows([RowError])
    /// The file could not be read (gone, unreadable).
    case badFile(String)

    public var description: String {
        switch self {
        case .csv(let error): return error.description
        case .badMapping(let detail): return "The column mapping is not valid: \(detail)."
        case .noNameColumn: return "No column is mapped to the item name; choose which column holds it."
        case .badFile(let detail): return "The file could not be read: \(detail)."
        case .rows(let errors):
            let shown = errors.prefix(20).map(\.description).joined(separator: "\n")
            // A row can have several problems (a price that is not an amount and a date that is not a date): both counts.
            let rows = Set(errors.map(\.line)).count
            let found = "\(errors.count) problem\(errors.count == 1 ? "" : "s") in \(rows) row\(rows == 1 ? "" : "s")"
            let count = errors.count >= Self.listedRows ? "At least \(found)" : found
            return "\(count); nothing was imported.\n\(shown)\(errors.count > 20 ? "\n…" : "")"
        }
    }
}

/// Turns CSV rows into items: every row is checked and every problem reported with its line;
/// when any row has a problem, nothing is returned (so nothing is half-imported).
public enum ItemImport {
    public static func items(from table: CSVTable, mapping: ColumnMapping, options: ImportOptions) throws(ImportError) -> [ImportedItem] {
        let converter = try ImportConverter(header: table.header, mapping: mapping, options: options)
        var out: [ImportedItem] = []
        var errors: [RowError] = []
        for record in table.rows {
            if let item = converter.item(record, errors: &errors) { out.append(item) }
        }
        guard errors.isEmpty else { throw .rows(errors) }
        return out
    }

    /// Checks every row a source has left, reading it one record at a time: how many items it holds, or the rows'
    /// problems (the first `ImportError.listedRows`; reading stops there). The source is used up: `reopened()` reads
    /// the file again for the import.
    public static func check(_ source: inout ImportSource) throws(ImportError) -> Int {
        var errors: [RowError] = []
        var count = 0
        while errors.count < ImportError.listedRows, let record = try source.nextRecord() {
            if source.converter.item(record, errors: &errors) != nil { count += 1 }
        }
        guard errors.isEmpty else { throw .rows(errors) }
        return count
    }

    /// The domain's own rules, with the row's line.
    static func check(_ item: ImportedItem, _ errors: inout [RowError], options: ImportOptions) -> ImportedItem? {
        var item = item
        do {
            item.draft = try item.draft.validated(today: options.today)
            if let room = item.roomName { item.roomName = try PlaceName.validated(room, field: "room") }
            if let category = item.categoryName { item.categoryName = try PlaceName.validated(category, field: "category") }
            return item
        } catch {
            if case .validation(let fields) = error {
                errors += fields.map { RowError(line: item.line, column: $0.field, message: $0.message) }
            } else {
                errors.append(RowError(line: item.line, column: nil, message: "\(error)"))
            }
            return nil
        }
    }

}

/// Reads typed values from one record, collecting errors with the column's name.
struct RowReader {
    let record: CSVRecord
    let header: [String]
    let options: ImportOptions
    var errors: [RowError] = []

    /// nil (and the error noted) when the record has more or fewer fields than the header.
    init?(record: CSVRecord, header: [String], options: ImportOptions, errors: inout [RowError]) {
        guard record.fields.count == header.count else {
            errors.append(RowError(line: record.line, column: nil,
                                   message: "it has \(record.fields.count) fields, the header has \(header.count)"))
            return nil
        }
        self.record = record
        self.header = header
        self.options = options
    }

    func text(_ column: Int) -> String? {
        guard column < record.fields.count else { return nil }
        let raw = record.fields[column]
        // Nothing to trim when both ends are printable ASCII (most fields): Foundation's trimming is not free.
        if let first = raw.utf8.first, let last = raw.utf8.last, (0x21..<0x7F).contains(first), (0x21..<0x7F).contains(last) {
            return first == UInt8(ascii: "'") ? Self.unprotected(raw) : raw
        }
        let value = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty ? nil : Self.unprotected(value)
    }

    /// Text as it was before a spreadsheet-safe export put `'` in front of it because it starts like a formula
    /// (`=`, `+`, `-`, `@`, a tab or a line break): Nestory's own export does (CSVWriter.protected), as do other tools,
    /// and spreadsheets never write that `'` themselves (it only marks a cell typed as text). Any other text is kept.
    static func unprotected(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard scalars.first == "'", let second = scalars.dropFirst().first, "=+-@\t\r\n".unicodeScalars.contains(second) else { return text }
        return String(text.dropFirst())
    }

    private mutating func fail(_ column: Int, _ message: String) {
        errors.append(RowError(line: record.line, column: column < header.count ? header[column] : nil, message: message))
    }

    mutating func currency(_ column: Int?) -> CurrencyCode? {
        guard let column, let raw = text(column) else { return nil }
        guard let code = try? CurrencyCode(raw.uppercased()) else {
            fail(column, "“\(raw)” is not a currency code such as USD or EUR")
            return nil
        }
        return code
    }

    mutating func money(_ column: Int, currency: CurrencyCode) -> Money? {
        guard let raw = text(column) else { return nil }
        switch ValueParsing.amount(raw) {
        case .success(let plain):
            do {
                return try Money.parse(plain, currency: currency)
            } catch {
                fail(column, "“\(raw)”: \(error.message)")
            }
        case .failure(let message):
            fail(column, "“\(raw)” \(message)")
        }
        return nil
    }

    mutating func date(_ column: Int) -> CalendarDate? {
        guard let raw = text(column) else { return nil }
        guard let date = ValueParsing.date(raw, order: options.dateOrder) else {
            fail(column, "“\(raw)” is not a date (use 2024-03-31)")
            return nil
        }
        return date
    }

    mutating func quantity(_ column: Int) -> Int? {
        guard let raw = text(column) else { return nil }
        let trimmed = raw.hasSuffix(".0") ? String(raw.dropLast(2)) : raw
        guard let value = Int(trimmed), value >= 1 else {
            fail(column, "“\(raw)” is not a whole number of 1 or more")
            return nil
        }
        return value
    }

    mutating func condition(_ column: Int) -> ItemCondition? {
        guard let raw = text(column) else { return nil }
        let key = raw.lowercased().replacingOccurrences(of: " ", with: "_").replacingOccurrences(of: "-", with: "_")
        if let condition = ItemCondition(rawValue: key) { return condition }
        if let condition = ItemCondition.allCases.first(where: { $0.label.lowercased() == raw.lowercased() }) { return condition }
        switch key {
        case "excellent", "mint": return .likeNew
        case "used", "ok": return .good
        case "damaged", "broken", "bad": return .poor
        default:
            fail(column, "“\(raw)” is not a condition (new, like new, good, fair, poor)")
            return nil
        }
    }
}

/// Numbers and dates as people type them into spreadsheets.
public enum ValueParsing {
    /// A plain decimal (`1234.56`) from `$1,234.56`, `1.234,56 €`, `12,50` or `1 234`. Negative
    /// amounts and text that is not a number are refused rather than guessed.
    public static func amount(_ raw: String) -> Result<String, AmountError> {
        let text = raw.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("-") || text.hasPrefix("−") || (text.hasPrefix("(") && text.hasSuffix(")")) { return .failure(.negative) }
        guard let plain = Money.plainText(typed: text) else { return .failure(.notANumber) }
        return .success(plain)
    }

    public enum AmountError: Error, Hashable, CustomStringConvertible {
        case negative, notANumber
        public var description: String {
            switch self {
            case .negative: return "is negative (a price is 0 or more)"
            case .notANumber: return "is not an amount"
            }
        }
    }

    /// `2024-03-31`, `2024/03/31`, `2024-03-31T10:00:00Z`, `31.03.2024`, and `03/31/2024` or
    /// `31/03/2024` by `order` (a day over 12 decides by itself).
    public static func date(_ raw: String, order: ImportOptions.DateOrder) -> CalendarDate? {
        let text = raw.trimmingCharacters(in: .whitespaces)
        let head = text.split(whereSeparator: { $0 == "T" || $0 == " " }).first.map(String.init) ?? text
        let parts = head.split(whereSeparator: { $0 == "-" || $0 == "/" || $0 == "." }).map(String.init)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }) else { return nil }
        let numbers = parts.compactMap { Int($0) }
        guard numbers.count == 3 else { return nil }
        if parts[0].count == 4 { return try? CalendarDate(year: numbers[0], month: numbers[1], day: numbers[2]) }
        guard parts[2].count == 4 else { return nil }
        let year = numbers[2]
        if head.contains(".") { return try? CalendarDate(year: year, month: numbers[1], day: numbers[0]) }
        var (month, day) = order == .mdy ? (numbers[0], numbers[1]) : (numbers[1], numbers[0])
        if month > 12 && day <= 12 { swap(&month, &day) }
        return try? CalendarDate(year: year, month: month, day: day)
    }
}

/// Turns one record into an item, with the file's columns: a plain table through its column mapping, or Homebox's
/// export (recognised by its `HB.*` columns). Every row goes through the same checks, whether the table is in
/// memory or read from a file.
public struct ImportConverter: Sendable {
    let header: [String]
    let mapping: ColumnMapping
    let options: ImportOptions
    /// Homebox's columns by name, when the file is its export.
    let homebox: [String: Int]?

    public init(header: [String], mapping: ColumnMapping, options: ImportOptions) throws(ImportError) {
        self.header = header
        self.mapping = mapping
        self.options = options
        if HomeboxImport.isHomebox(header) {
            homebox = HomeboxImport.columns(header)
        } else {
            guard mapping.columns[.name] != nil else { throw .noNameColumn }
            homebox = nil
        }
    }

    /// The record's item, checked; nil with its problems added to `errors` when it has any.
    public func item(_ record: CSVRecord, errors: inout [RowError]) -> ImportedItem? {
        guard var row = RowReader(record: record, header: header, options: options, errors: &errors) else { return nil }
        let item = homebox.map { HomeboxImport.item(&row, record: record, columns: $0, header: header, options: options) }
            ?? plainItem(&row, record: record)
        errors += row.errors
        guard row.errors.isEmpty else { return nil }
        return ItemImport.check(item, &errors, options: options)
    }

    private func plainItem(_ row: inout RowReader, record: CSVRecord) -> ImportedItem {
        let copy = row
        func value(_ field: ImportField) -> String? {
            mapping.columns[field].flatMap { copy.text($0) }
        }
        let currency = row.currency(mapping.columns[.currency]) ?? options.currency
        var draft = ItemDraft(name: value(.name) ?? "", currency: currency)
        draft.brand = value(.brand)
        draft.modelNumber = value(.model)
        draft.serialNumber = value(.serial)
        draft.barcode = value(.barcode)
        draft.notes = value(.notes)
        draft.conditionNotes = value(.conditionNotes)
        if let column = mapping.columns[.price] { draft.purchasePrice = row.money(column, currency: currency) }
        if let column = mapping.columns[.purchaseDate] { draft.purchaseDate = row.date(column) }
        if let column = mapping.columns[.warranty] { draft.warrantyExpiry = row.date(column) }
        if let column = mapping.columns[.quantity] { draft.quantity = row.quantity(column) ?? 1 }
        if let column = mapping.columns[.condition] { draft.condition = row.condition(column) ?? .good }
        if let tags = value(.tags) { draft.tags = Tag.normalize(Tag.split(tags)) }
        return ImportedItem(line: record.line, draft: draft, roomName: value(.room), categoryName: value(.category))
    }
}

/// A CSV file read for import one record at a time: its reader and the converter made from its header.
public struct ImportSource {
    let file: URL
    var reader: CSVReader
    public let converter: ImportConverter

    /// `mapping` makes the column mapping from the header (a `--map` spec); nil guesses it.
    public init(_ file: URL, mapping: (([String]) throws(ImportError) -> ColumnMapping)? = nil,
                options: ImportOptions) throws(ImportError) {
        self.file = file
        reader = try Self.reader(file, windows1252: nil)
        let columns = try mapping?(reader.header) ?? ColumnMapping.guess(header: reader.header)
        converter = try ImportConverter(header: reader.header, mapping: columns, options: options)
    }

    private init(file: URL, reader: CSVReader, converter: ImportConverter) {
        self.file = file
        self.reader = reader
        self.converter = converter
    }

    private static func reader(_ file: URL, windows1252: Bool?) throws(ImportError) -> CSVReader {
        do {
            return try CSVReader(url: file, windows1252: windows1252)
        } catch let error as CSVError {
            throw .csv(error)
        } catch {
            throw .badFile("\(error.localizedDescription)")
        }
    }

    /// The same file from its first record again, with the same columns and the encoding already found.
    public func reopened() throws(ImportError) -> ImportSource {
        ImportSource(file: file, reader: try Self.reader(file, windows1252: reader.decodedAsWindows1252), converter: converter)
    }

    public var header: [String] { reader.header }

    public mutating func nextRecord() throws(ImportError) -> CSVRecord? {
        do { return try reader.next() } catch let error as CSVError { throw .csv(error) } catch { throw .badFile("\(error.localizedDescription)") }
    }

    /// Up to `size` more items, converted and checked; nil at the end. A row that fails its checks here (the file
    /// changed since it was checked) stops the import with its problem.
    public mutating func nextBatch(_ size: Int = 1_000) throws(ImportError) -> [ImportedItem]? {
        var batch: [ImportedItem] = []
        batch.reserveCapacity(size)
        var errors: [RowError] = []
        while batch.count < size, let record = try nextRecord() {
            guard let item = converter.item(record, errors: &errors) else { throw .rows(errors) }
            batch.append(item)
        }
        return batch.isEmpty ? nil : batch
    }
}
