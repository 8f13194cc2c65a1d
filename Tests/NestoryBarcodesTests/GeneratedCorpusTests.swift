import Foundation
import NestoryChildProcess
import NestoryBarcodes
import NestoryBarcodesLive
import NestoryDomain
import Testing

/// The generated robustness corpus (scripts/barcode_corpus.py, the one `make bench-barcodes-stress` measures) in a
/// reduced form: 312 pictures, four of each format under each degradation, the same every run (seed 22). The bounds
/// were measured when the test was written; a change that makes the reader say something wrong, or read much less,
/// fails here.
@Suite(.serialized) struct GeneratedCorpusTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Entry: Decodable {
        struct Other: Decodable { let format: String; let text: String }
        let file: String
        let format: String
        let text: String
        let degradation: String
        let others: [Other]
    }

    /// Makes the corpus with the project's generator (its venv is made by scripts/install-deps.sh --test).
    static func generate(count: Int, seed: Int) throws -> (folder: URL, entries: [Entry]) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-barcode-corpus-\(UUID().uuidString)")
        let finished = try ChildProcess.run(root.appendingPathComponent("scripts/barcode-corpus.sh").path,
                                            ["--out", folder.path, "--count", String(count), "--seed", String(seed)])
        guard finished.exitCode == 0 else {
            throw CorpusError("scripts/barcode-corpus.sh failed (\(finished.exitCode)): \(finished.errorText)")
        }
        let lines = try String(contentsOf: folder.appendingPathComponent("manifest.jsonl"), encoding: .utf8).split(separator: "\n")
        return (folder, try lines.map { try JSONDecoder().decode(Entry.self, from: Data($0.utf8)) })
    }

    struct CorpusError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Whether a read is one of the codes in the picture: product codes by GTIN key, anything else exactly.
    static func isIn(_ code: DecodedBarcode, _ known: [(format: String, text: String)]) -> Bool {
        known.contains { format, text in
            guard let expectedFormat = BarcodeFormat(rawValue: format) else { return false }
            if let gtinFormat = expectedFormat.gtinFormat {
                guard let expected = GTIN(text, format: gtinFormat), let actual = code.gtin else { return false }
                return expected.key == actual.key
            }
            return code.format == expectedFormat && code.text == text
        }
    }

    @Test func theReducedCorpusHasNoWrongReadsAndKeepsItsDecodeRate() throws {
        let (folder, entries) = try Self.generate(count: 312, seed: 22)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(entries.count == 312)
        let reader = BarcodeReader()
        var decoded = 0, uncertainRight = 0
        var wrong: [String] = [], uncertainWrong: [String] = []
        for entry in entries {
            let data = try Data(contentsOf: folder.appendingPathComponent(entry.file))
            let codes = try reader.decode(imageData: data)
            let known = [(entry.format, entry.text)] + entry.others.map { ($0.format, $0.text) }
            let sure = codes.filter { !$0.isUncertain }, unsure = codes.filter(\.isUncertain)
            // A sure read of a code that is not in the picture is the failure this test exists for.
            for code in sure where !Self.isIn(code, known) { wrong.append("\(entry.file): \(code.format.rawValue) \(code.text)") }
            for code in unsure where !Self.isIn(code, known) { uncertainWrong.append("\(entry.file): \(code.format.rawValue) \(code.text)") }
            if sure.contains(where: { Self.isIn($0, [(entry.format, entry.text)]) }) {
                decoded += 1
            } else if unsure.contains(where: { Self.isIn($0, [(entry.format, entry.text)]) }) {
                uncertainRight += 1
            }
        }
        #expect(wrong.isEmpty, "sure but wrong: \(wrong)")
        // Uncertain reads are shown to be checked; a wrong one now and then is what the check is for.
        #expect(uncertainWrong.count <= 2, "uncertain and wrong: \(uncertainWrong)")
        // Measured when written: 235 sure, 24 uncertain and right, 1 uncertain and wrong (a blurred,
        // low-resolution UPC-A read as a UPC-E by one zbar pass), 0 sure and wrong; the floors leave room for another
        // version of numpy, Pillow or qrcode drawing a few pixels differently.
        #expect(decoded >= 225, "decoded \(decoded) of \(entries.count) for sure")
        #expect(decoded + uncertainRight >= 248, "decoded \(decoded) + \(uncertainRight) uncertain of \(entries.count)")
    }

    @Test func theGeneratorIsDeterministicBySeed() throws {
        let first = try Self.generate(count: 13, seed: 5), second = try Self.generate(count: 13, seed: 5)
        defer {
            try? FileManager.default.removeItem(at: first.folder)
            try? FileManager.default.removeItem(at: second.folder)
        }
        #expect(first.entries.map(\.text) == second.entries.map(\.text))
        for entry in first.entries {
            let a = try Data(contentsOf: first.folder.appendingPathComponent(entry.file))
            let b = try Data(contentsOf: second.folder.appendingPathComponent(entry.file))
            #expect(a == b, "\(entry.file)")
        }
        let other = try Self.generate(count: 13, seed: 6)
        defer { try? FileManager.default.removeItem(at: other.folder) }
        #expect(other.entries.map(\.text) != first.entries.map(\.text))
    }
}
