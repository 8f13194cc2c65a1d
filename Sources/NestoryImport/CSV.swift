import Foundation

/// A parsed CSV file: the header and the records, each with the line it starts on.
public struct CSVTable: Sendable, Hashable {
    public var header: [String]
    public var rows: [CSVRecord]
    public var delimiter: Character
    /// The text was not UTF-8 and was read as Windows-1252 (what spreadsheets on Windows save).
    public var decodedAsWindows1252: Bool
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

    public var description: String {
        switch self {
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
    public static let maxRows = 200_000

    public static func parse(_ data: Data, delimiter: Character? = nil) throws -> CSVTable {
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        var latin = false
        var text: String
        if let utf8 = String(validating: bytes, as: UTF8.self) {
            text = utf8
        } else {
            text = String(bytes.map { Character(Unicode.Scalar(windows1252[Int($0)]) ?? "\u{FFFD}") })
            latin = true
        }
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        let scalars = Array(text.unicodeScalars)
        let sep = delimiter.map { $0.unicodeScalars.first! } ?? detectDelimiter(scalars)

        var records: [CSVRecord] = []
        var fields: [String] = []
        var field = String.UnicodeScalarView()
        var line = 1
        var recordLine = 1
        var inQuotes = false
        var quotedField = false
        var i = 0
        func endField() {
            fields.append(String(field))
            field = String.UnicodeScalarView()
            quotedField = false
        }
        func endRecord() throws {
            endField()
            let blank = fields.count == 1 && fields[0].trimmingCharacters(in: .whitespaces).isEmpty
            if !blank {
                records.append(CSVRecord(line: recordLine, fields: fields))
                if records.count > maxRows + 1 { throw CSVError.tooManyRows(limit: maxRows) }
            }
            fields = []
        }
        while i < scalars.count {
            let c = scalars[i]
            if inQuotes {
                if c == "\"" {
                    if i + 1 < scalars.count, scalars[i + 1] == "\"" {
                        field.append("\"")
                        i += 1
                    } else {
                        inQuotes = false
                    }
                } else {
                    if c == "\n" || (c == "\r" && !(i + 1 < scalars.count && scalars[i + 1] == "\n")) { line += 1 }
                    field.append(c)
                }
            } else if c == "\"" && field.isEmpty && !quotedField {
                inQuotes = true
                quotedField = true
            } else if c == sep {
                endField()
            } else if c == "\r" || c == "\n" {
                if c == "\r", i + 1 < scalars.count, scalars[i + 1] == "\n" { i += 1 }
                try endRecord()
                line += 1
                recordLine = line
            } else {
                field.append(c)
            }
            i += 1
        }
        if inQuotes { throw CSVError.unterminatedQuote(line: recordLine) }
        if !field.isEmpty || !fields.isEmpty { try endRecord() }
        guard let first = records.first else { throw CSVError.empty }
        let header = first.fields.map { $0.trimmingCharacters(in: .whitespaces) }
        return CSVTable(header: header, rows: Array(records.dropFirst()), delimiter: Character(sep), decodedAsWindows1252: latin)
    }

    /// The delimiter that splits the first line (outside quotes) the most.
    static func detectDelimiter(_ scalars: [Unicode.Scalar]) -> Unicode.Scalar {
        var counts: [Unicode.Scalar: Int] = [",": 0, ";": 0, "\t": 0]
        var inQuotes = false
        for c in scalars {
            if c == "\"" { inQuotes.toggle(); continue }
            if !inQuotes && (c == "\n" || c == "\r") { break }
            if !inQuotes, counts[c] != nil { counts[c]! += 1 }
        }
        let best = counts.max { a, b in a.value < b.value || (a.value == b.value && a.key != ",") }!
        return best.value == 0 ? "," : best.key
    }

    /// Windows-1252 to Unicode (0x80–0x9F differ from Latin-1).
    static let windows1252: [UInt32] = (0..<256).map { byte in
        let high: [UInt32] = [0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0xFFFD, 0x017D, 0xFFFD,
                              0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178]
        return (0x80..<0xA0).contains(byte) ? high[byte - 0x80] : UInt32(byte)
    }
}
