import Foundation
import NestoryDomain
@testable import NestoryImport
import Testing

/// Reading a file one record at a time gives what reading it whole gives, across the reader's 1 MB buffer edges.
@Suite struct CSVReaderTests {
    func temporaryFile(_ bytes: [UInt8]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("csv-reader-\(UUID().uuidString).csv")
        try Data(bytes).write(to: url)
        return url
    }

    func records(_ url: URL) throws -> (CSVReader, [CSVRecord]) {
        var reader = try CSVReader(url: url)
        var rows: [CSVRecord] = []
        while let record = try reader.next() { rows.append(record) }
        return (reader, rows)
    }

    @Test func aLargeFileReadsAsTheWholeTableDoesAcrossBufferEdges() throws {
        // Rows of uneven length with two- and four-byte characters, quoted delimiters and line breaks, CRLF and
        // CR line ends, so that quotes, line ends and multi-byte characters fall on every side of the 1 MB edges.
        var text = "Name;Notes;Price\r\n"
        var index = 0
        while text.utf8.count < 3 * (1 << 20) + 777 {
            let padding = String(repeating: "x", count: index % 97)
            switch index % 4 {
            case 0: text += "Café \(index);\"line one\nline \"\"two\"\"; still\";\(index),50\r\n"
            case 1: text += "Würfel 🎲 \(index)\(padding);plain;\(index)\n"
            case 2: text += "\"Ünïcödé; \(index)\";\"\";1\r"
            default: text += "Lamp \(index);\(padding)ß;2\r\n\r\n"
            }
            index += 1
        }
        let bytes = [0xEF, 0xBB, 0xBF] + Array(text.utf8)
        let url = try temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(at: url) }
        let whole = try CSV.parse(Data(bytes))
        let (reader, streamed) = try records(url)
        #expect(reader.header == ["Name", "Notes", "Price"])
        #expect(reader.delimiter == ";")
        #expect(!reader.decodedAsWindows1252)
        #expect(streamed.count == whole.rows.count)
        #expect(streamed == whole.rows)
        #expect(streamed.count == index)
        #expect(streamed[1].fields[0].hasPrefix("Würfel 🎲 1"))
        #expect(streamed[0].fields[1] == "line one\nline \"two\"; still")
        #expect(streamed[4].line == whole.rows[4].line)
    }

    @Test func aByteThatIsNotUTF8PastTheFirstBufferMakesTheWholeFileWindows1252() throws {
        var bytes = Array("Name,Notes\n".utf8)
        while bytes.count < (1 << 20) + 100 { bytes += Array("Sofa,plain text\n".utf8) }
        bytes += Array("Caf".utf8) + [0xE9] + Array(",\u{80} is not here\n".utf8.filter { $0 < 0x80 }) + [0x80, 0x0A]
        let url = try temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(at: url) }
        let (reader, rows) = try records(url)
        #expect(reader.decodedAsWindows1252)
        #expect(rows.last?.fields == ["€"])
        #expect(rows[rows.count - 2].fields[0] == "Café")
        #expect(try CSV.parse(Data(bytes)).rows == rows)
        // Told the encoding an earlier reading found, a second reading skips the check and reads the same.
        var again = try CSVReader(url: url, windows1252: true)
        var second: [CSVRecord] = []
        while let record = try again.next() { second.append(record) }
        #expect(again.decodedAsWindows1252)
        #expect(second == rows)
    }

    @Test func aCharacterCutAtTheEndOfTheFileIsNotUTF8() throws {
        let bytes = Array("Name\nCaf".utf8) + [0xC3]
        let url = try temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(at: url) }
        let (reader, rows) = try records(url)
        #expect(reader.decodedAsWindows1252)
        #expect(rows.map(\.fields) == [["CafÃ"]])
    }

    @Test func anUnclosedQuoteAndAnEmptyFileAreErrors() throws {
        let open = try temporaryFile(Array("Name\n\"open\nstill".utf8))
        let empty = try temporaryFile([])
        defer { for url in [open, empty] { try? FileManager.default.removeItem(at: url) } }
        #expect(throws: CSVError.unterminatedQuote(line: 2)) { _ = try records(open) }
        #expect(throws: CSVError.empty) { _ = try CSVReader(url: empty) }
    }

    @Test func checkingAFileStopsAtTheListedRowsAndSaysAtLeast() throws {
        let options = ImportOptions(currency: .usd, today: try CalendarDate(iso: "2025-11-22"))
        let rows = (0..<(ImportError.listedRows + 500)).map { "Chair \($0),twelve" }.joined(separator: "\n")
        let url = try temporaryFile(Array("Name,Price\n\(rows)\n".utf8))
        defer { try? FileManager.default.removeItem(at: url) }
        /// How checking the file refuses it; nil (and an issue) when it is accepted.
        func refusal(_ file: URL) throws -> ImportError? {
            do {
                var source = try ImportSource(file, options: options)
                _ = try ItemImport.check(&source)
                Issue.record("\(file.lastPathComponent), a file with bad rows, was accepted")
                return nil
            } catch {
                return error
            }
        }
        if let error = try refusal(url) {
            guard case .rows(let errors) = error else { Issue.record("\(error)"); return }
            #expect(errors.count == ImportError.listedRows)
            #expect(error.description.hasPrefix("At least 1000 problems in 1000 rows; nothing was imported."))
        }
        // Three problems in one row and one in another: both counts, then every problem with its line.
        let mixed = try temporaryFile(Array("Name,Price,Purchase date,Quantity\nLamp,abc,2020-13-45,-3\nChair,12.50,2021-02-03,2\n,5,,\n".utf8))
        defer { try? FileManager.default.removeItem(at: mixed) }
        if let error = try refusal(mixed) {
            let lines = error.description.split(separator: "\n")
            #expect(lines.first == "4 problems in 2 rows; nothing was imported.")
            #expect(lines.dropFirst().map { $0.prefix(7) } == ["Line 2 ", "Line 2 ", "Line 2 ", "Line 4 "])
        }
        let good = try temporaryFile(Array("Name,Price\nChair,12\n\nTable,\"1,200.00\"\n".utf8))
        defer { try? FileManager.default.removeItem(at: good) }
        var checked = try ImportSource(good, options: options)
        #expect(try ItemImport.check(&checked) == 2)
        #expect(try checked.nextRecord() == nil)
        var source = try checked.reopened()
        let batch = try #require(try source.nextBatch(1))
        #expect(batch.map(\.draft.name) == ["Chair"])
        #expect(try source.nextBatch(1)?.map(\.draft.purchasePrice?.minorUnits) == [120_000])
        #expect(try source.nextBatch(1) == nil)
    }
}
