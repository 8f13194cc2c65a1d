import Foundation

/// A parsed CSV file: the header and the records, each with the line it starts on (all of them, or the first few
/// of a preview).
public struct CSVTable: Sendable, Hashable {
    public var header: [String]
    public var rows: [CSVRecord]
    public var delimiter: Character
    /// The text was not UTF-8 and was read as Windows-1252 (what spreadsheets on Windows save).
    public var decodedAsWindows1252: Bool
    /// How many records the file has after the header (more than `rows` in a preview).
    public var rowCount: Int

    public init(header: [String], rows: [CSVRecord], delimiter: Character, decodedAsWindows1252: Bool, rowCount: Int? = nil) {
        self.header = header
        self.rows = rows
        self.delimiter = delimiter
        self.decodedAsWindows1252 = decodedAsWindows1252
        self.rowCount = rowCount ?? rows.count
    }
}

public struct CSVRecord: Sendable, Hashable {
    /// The line the record starts on (1 is the header).
    public var line: Int
    public var fields: [String]
}

public enum CSVError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case unterminatedQuote(line: Int)
    case tooManyRows(limit: Int)
    /// An Excel workbook (.xlsx, .xls) or an OpenDocument spreadsheet, not its CSV: a common upload by mistake.
    case workbook
    /// Bytes that are no text in an 8-bit encoding: UTF-16, a picture, a PDF.
    case notText

    public var description: String {
        switch self {
        case .workbook:
            return "This is a spreadsheet workbook (Excel or OpenDocument), not a CSV file: in the spreadsheet, save or download the sheet as CSV (UTF-8) and import that file."
        case .notText:
            return "This is not a CSV file: it holds bytes that are not text (a picture, a PDF, or text saved as UTF-16). Save the sheet as CSV (UTF-8) and import that file."
        case .empty: return "The file is empty: a CSV file needs a header row naming its columns."
        case .unterminatedQuote(let line): return "Line \(line): a quoted field is never closed (a missing \")."
        case .tooManyRows(let limit): return "The file has more than \(limit) rows; split it into smaller files."
        }
    }
}

/// RFC 4180 CSV, as spreadsheets write it: quoted fields with doubled quotes, line breaks inside
/// quotes, CRLF, LF or CR line ends, a UTF-8 byte order mark, and `,`, `;` or tab as the delimiter
/// (found from the header). Blank lines are skipped.
public enum CSV {
    /// The most rows `parse` holds in memory; `CSVReader` reads any number, one at a time.
    public static let maxRows = 200_000

    /// A file's header, its first `keeping` records and how many there are, read one record at a time (so the whole
    /// file's structure is checked in little memory, whatever its size).
    public static func preview(_ url: URL, keeping: Int = 5) throws -> CSVTable {
        var reader = try CSVReader(url: url)
        var rows: [CSVRecord] = []
        var count = 0
        while let record = try reader.next() {
            if count < keeping { rows.append(record) }
            count += 1
        }
        return CSVTable(header: reader.header, rows: rows, delimiter: reader.delimiter, decodedAsWindows1252: reader.decodedAsWindows1252,
                        rowCount: count)
    }

    /// The whole table in memory: at most `maxRows` rows.
    public static func parse(_ data: Data, delimiter: Character? = nil) throws -> CSVTable {
        var reader = try CSVReader(data: data, delimiter: delimiter)
        var rows: [CSVRecord] = []
        while let record = try reader.next() {
            rows.append(record)
            if rows.count > maxRows { throw CSVError.tooManyRows(limit: maxRows) }
        }
        return CSVTable(header: reader.header, rows: rows, delimiter: reader.delimiter, decodedAsWindows1252: reader.decodedAsWindows1252)
    }

    /// Windows-1252 to Unicode (0x80–0x9F differ from Latin-1).
    static let windows1252: [UInt32] = (0..<256).map { byte in
        let high: [UInt32] = [0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0xFFFD, 0x017D, 0xFFFD,
                              0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178]
        return (0x80..<0xA0).contains(byte) ? high[byte - 0x80] : UInt32(byte)
    }
}

/// Reads a CSV file one record at a time, holding a 1 MB buffer and the record being read, so a file of any size
/// is read in the same little memory (a million-row import reads its file twice: once to check every row, once
/// to store them). The rules are `CSV`'s. The text is UTF-8 when the whole file is (a first pass checks), else
/// Windows-1252; the structure (quotes, delimiters, line ends) is ASCII in both, so records are split on bytes and
/// each field decoded once.
public struct CSVReader {
    public private(set) var header: [String]
    public let delimiter: Character
    /// The text was not UTF-8 and was read as Windows-1252.
    public let decodedAsWindows1252: Bool

    private var source: ByteSource
    private let separator: UInt8
    private var line = 1
    private var field: [UInt8] = []

    /// Reads a file, streaming. `windows1252`: the encoding an earlier reading of the same file found, so this one
    /// skips the pass that checks it.
    public init(url: URL, delimiter: Character? = nil, windows1252: Bool? = nil) throws {
        var isUTF8 = !(windows1252 ?? false)
        if windows1252 == nil {
            var check = try ByteSource.file(url)
            isUTF8 = try check.isValidUTF8()
        }
        try self.init(source: try .file(url), isUTF8: isUTF8, delimiter: delimiter)
    }

    /// Reads bytes already in memory.
    public init(data: Data, delimiter: Character? = nil) throws {
        let bytes = [UInt8](data)
        var check = ByteSource(bytes: bytes)
        try self.init(source: ByteSource(bytes: bytes), isUTF8: try check.isValidUTF8(), delimiter: delimiter)
    }

    private init(source: ByteSource, isUTF8: Bool, delimiter: Character?) throws {
        self.source = source
        decodedAsWindows1252 = !isUTF8
        // Not text at all: said as such, rather than read as a table whose one column is no item name.
        let start = try self.source.peek(4096)
        // A ZIP (.xlsx, .ods) or an OLE compound file (.xls).
        if start.starts(with: [0x50, 0x4B, 0x03, 0x04]) || start.starts(with: [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) {
            throw CSVError.workbook
        }
        if start.contains(0) { throw CSVError.notText }
        if start.starts(with: [0xEF, 0xBB, 0xBF]) { try self.source.skip(3) }
        let sep: UInt8
        if let delimiter, let ascii = delimiter.asciiValue {
            sep = ascii
        } else {
            sep = CSVReader.detectDelimiter(try self.source.firstLine())
        }
        separator = sep
        self.delimiter = Character(Unicode.Scalar(sep))
        header = []
        guard let first = try readRecord() else { throw CSVError.empty }
        header = first.fields.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The next record after the header, or nil at the end.
    public mutating func next() throws -> CSVRecord? { try readRecord() }

    private mutating func readRecord() throws -> CSVRecord? {
        while true {
            guard try source.peekByte() != nil else { return nil }
            var fields: [String] = []
            let recordLine = line
            var inQuotes = false
            var quotedField = false
            field.removeAll(keepingCapacity: true)
            recordLoop: while true {
                guard let c = try source.nextByte() else {
                    if inQuotes { throw CSVError.unterminatedQuote(line: recordLine) }
                    break recordLoop
                }
                if inQuotes {
                    if c == UInt8(ascii: "\"") {
                        if try source.peekByte() == UInt8(ascii: "\"") {
                            field.append(c)
                            try source.skip(1)
                        } else {
                            inQuotes = false
                        }
                    } else {
                        if c == 0x0A { line += 1 }
                        if c == 0x0D, try source.peekByte() != 0x0A { line += 1 }
                        field.append(c)
                    }
                } else if c == UInt8(ascii: "\""), field.isEmpty, !quotedField {
                    inQuotes = true
                    quotedField = true
                } else if c == separator {
                    fields.append(decode(field))
                    field.removeAll(keepingCapacity: true)
                    quotedField = false
                } else if c == 0x0D || c == 0x0A {
                    if c == 0x0D, try source.peekByte() == 0x0A { try source.skip(1) }
                    line += 1
                    break recordLoop
                } else {
                    field.append(c)
                }
            }
            fields.append(decode(field))
            let blank = fields.count == 1 && fields[0].trimmingCharacters(in: .whitespaces).isEmpty
            if !blank { return CSVRecord(line: recordLine, fields: fields) }
        }
    }

    private func decode(_ bytes: [UInt8]) -> String {
        if !decodedAsWindows1252 { return String(decoding: bytes, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        for byte in bytes { scalars.append(Unicode.Scalar(CSV.windows1252[Int(byte)]) ?? "\u{FFFD}") }
        return String(scalars)
    }

    /// The delimiter that splits the first line (outside quotes) the most.
    static func detectDelimiter(_ line: [UInt8]) -> UInt8 {
        var counts: [UInt8: Int] = [UInt8(ascii: ","): 0, UInt8(ascii: ";"): 0, UInt8(ascii: "\t"): 0]
        var inQuotes = false
        for c in line {
            if c == UInt8(ascii: "\"") { inQuotes.toggle(); continue }
            if !inQuotes && (c == 0x0A || c == 0x0D) { break }
            if !inQuotes, counts[c] != nil { counts[c]! += 1 }
        }
        let best = counts.max { a, b in a.value < b.value || (a.value == b.value && a.key != UInt8(ascii: ",")) }!
        return best.value == 0 ? UInt8(ascii: ",") : best.key
    }
}

/// Bytes from a file (read 1 MB at a time) or from memory, with a little look-ahead.
private struct ByteSource {
    private var handle: FileHandle?
    private var buffer: [UInt8]
    private var position = 0
    private var exhausted: Bool

    static let chunk = 1 << 20

    static func file(_ url: URL) throws -> ByteSource {
        guard let handle = try? FileHandle(forReadingFrom: url) else { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: url.path]) }
        return ByteSource(handle: handle)
    }

    private init(handle: FileHandle) {
        self.handle = handle
        buffer = []
        exhausted = false
    }

    init(bytes: [UInt8]) {
        handle = nil
        buffer = bytes
        exhausted = true
    }

    /// Makes at least `count` bytes available from `position` when the source has them.
    private mutating func fill(_ count: Int) throws {
        while buffer.count - position < count, !exhausted, let handle {
            if position > 0 {
                buffer.removeFirst(position)
                position = 0
            }
            guard let more = try handle.read(upToCount: Self.chunk), !more.isEmpty else {
                exhausted = true
                try? handle.close()
                return
            }
            buffer.append(contentsOf: more)
        }
    }

    mutating func peekByte() throws -> UInt8? {
        if position >= buffer.count { try fill(1) }
        return position < buffer.count ? buffer[position] : nil
    }

    mutating func nextByte() throws -> UInt8? {
        if position >= buffer.count { try fill(1) }
        guard position < buffer.count else { return nil }
        defer { position += 1 }
        return buffer[position]
    }

    mutating func peek(_ count: Int) throws -> [UInt8] {
        try fill(count)
        return Array(buffer[position..<min(buffer.count, position + count)])
    }

    mutating func skip(_ count: Int) throws {
        try fill(count)
        position = min(buffer.count, position + count)
    }

    /// The bytes up to the first line end outside quotes (for finding the delimiter), without consuming them.
    mutating func firstLine() throws -> [UInt8] {
        var inQuotes = false
        var length = 0
        while true {
            try fill(length + 1)
            guard position + length < buffer.count else { break }
            let c = buffer[position + length]
            if c == UInt8(ascii: "\"") { inQuotes.toggle() }
            if !inQuotes && (c == 0x0A || c == 0x0D) { break }
            length += 1
            if length > 1 << 20 { break }
        }
        return Array(buffer[position..<(position + length)])
    }

    /// Reads everything once, checking it is UTF-8 as Swift's strings accept it (no overlong forms, no surrogates,
    /// nothing past U+10FFFF, no sequence cut short at the end). Consumes the source.
    mutating func isValidUTF8() throws -> Bool {
        var need = 0
        var lower: UInt8 = 0x80, upper: UInt8 = 0xBF
        while true {
            if position >= buffer.count {
                try fill(1)
                if position >= buffer.count { return need == 0 }
            }
            let end = buffer.count
            var index = position
            while index < end {
                let b = buffer[index]
                index += 1
                if need == 0 {
                    if b < 0x80 { continue }
                    switch b {
                    case 0xC2...0xDF: need = 1
                    case 0xE0: need = 2; lower = 0xA0
                    case 0xE1...0xEC, 0xEE, 0xEF: need = 2
                    case 0xED: need = 2; upper = 0x9F
                    case 0xF0: need = 3; lower = 0x90
                    case 0xF1...0xF3: need = 3
                    case 0xF4: need = 3; upper = 0x8F
                    default: return false
                    }
                } else {
                    guard b >= lower && b <= upper else { return false }
                    lower = 0x80
                    upper = 0xBF
                    need -= 1
                }
            }
            position = end
        }
    }
}
