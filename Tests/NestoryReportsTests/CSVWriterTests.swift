import Foundation
import NestoryDomain
import Testing
@testable import NestoryReports

/// An RFC 4180 reader, independent of the writer: quoted fields, doubled quotes, CRLF or LF.
func parseCSV(_ text: String) -> [[String]] {
    var rows: [[String]] = [], row: [String] = [], field = ""
    var inQuotes = false, fieldStarted = false
    var iterator = Array(text.unicodeScalars).makeIterator()
    var pending: Unicode.Scalar? = nil
    func next() -> Unicode.Scalar? {
        if let p = pending { pending = nil; return p }
        return iterator.next()
    }
    while let c = next() {
        if inQuotes {
            if c == "\"" {
                if let n = next() {
                    if n == "\"" { field.unicodeScalars.append("\"") } else { inQuotes = false; pending = n }
                } else { inQuotes = false }
            } else { field.unicodeScalars.append(c) }
        } else if c == "\"" && !fieldStarted {
            inQuotes = true; fieldStarted = true
        } else if c == "," {
            row.append(field); field = ""; fieldStarted = false
        } else if c == "\r" || c == "\n" {
            if c == "\r", let n = next(), n != "\n" { pending = n }
            row.append(field); rows.append(row); row = []; field = ""; fieldStarted = false
        } else {
            field.unicodeScalars.append(c); fieldStarted = true
        }
    }
    if fieldStarted || !row.isEmpty { row.append(field); rows.append(row) }
    return rows
}

func csv(_ rows: [[CSVField]]) throws -> Data {
    var out = Data()
    var writer = CSVWriter(bufferLimit: 16) { out.append($0) }
    for row in rows { try writer.write(row) }
    try writer.finish()
    return out
}

@Suite struct CSVWriterTests {
    @Test func startsWithAByteOrderMarkAndEndsLinesWithCRLF() throws {
        let data = try csv([[.text("a"), .number("1")], [.text("b"), .number("2")]])
        #expect(Array(data.prefix(3)) == [0xEF, 0xBB, 0xBF])
        #expect(String(decoding: data.dropFirst(3), as: UTF8.self) == "a,1\r\nb,2\r\n")
    }

    @Test func trickyTextRoundTripsThroughACSVParser() throws {
        let values = ["plain", "comma, inside", "quote \"here\"", "line\nbreak", "crlf\r\nbreak", "Café €1,234.56 ¥5,000", "日本の花瓶",
                      "Ωμέγα", "Привет", "", "  spaced  ", "emoji 📺"]
        let data = try csv([values.map { .text($0) }])
        let parsed = parseCSV(String(decoding: data.dropFirst(3), as: UTF8.self))
        #expect(parsed == [values])
    }

    @Test(arguments: [
        ("=SUM(A1:A9)", "'=SUM(A1:A9)"), ("+1+1", "'+1+1"), ("-2+3", "'-2+3"), ("@cmd", "'@cmd"), ("\tTAB", "'\tTAB"),
        ("\r=1", "'\r=1"), ("=HYPERLINK(\"http://evil\",\"x\")", "'=HYPERLINK(\"http://evil\",\"x\")"),
        ("-12.50", "-12.50"), ("+44", "+44"), ("-7", "-7"), ("normal", "normal"), ("a=b", "a=b"), ("-", "'-"), ("-.5", "'-.5"),
    ])
    func formulaInjectionIsNeutralisedWithoutCorruptingNumbers(input: String, expected: String) throws {
        #expect(CSVWriter.protected(input) == expected)
        let parsed = parseCSV(String(decoding: try csv([[.text(input)]]).dropFirst(3), as: UTF8.self))
        #expect(parsed == [[expected]])
    }

    @Test func numberFieldsAreNeverPrefixed() throws {
        let data = try csv([[.number("-12.50"), .number("-0.01"), .number("2026-11-22")]])
        #expect(String(decoding: data.dropFirst(3), as: UTF8.self) == "-12.50,-0.01,2026-11-22\r\n")
    }
}
