import Foundation
import NestoryStore
import Testing

/// The JSON Lines reader under backups and catalogues: every line once, in order, with its number, whatever the
/// chunk boundaries; a last line without a break; a line over the limit refused with its number.
@Suite struct LineFileTests {
    func lines(of text: Data, maxLineBytes: Int = 64 << 20) throws -> [(String, Int)] {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lines-\(UUID()).jsonl")
        try text.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var out: [(String, Int)] = []
        try LineFile.forEachLine(of: handle, maxLineBytes: maxLineBytes) { line, number in out.append((String(decoding: line, as: UTF8.self), number)) }
        return out
    }

    @Test func smallFile() throws {
        let out = try lines(of: Data("one\n\ntwo\r\nthree".utf8))
        #expect(out.map(\.0) == ["one", "", "two\r", "three"])
        #expect(out.map(\.1) == [1, 2, 3, 4])
        #expect(try lines(of: Data("a\n".utf8)).map(\.0) == ["a"])
        #expect(try lines(of: Data()).isEmpty)
    }

    @Test func linesAcrossChunks() throws {
        // 3 MB of lines of varied lengths (chunks are 1 MB), some breaks right at chunk edges, and a 1.5 MB line.
        var expected: [String] = []
        var total = 0
        var i = 0
        while total < 3 << 20 {
            let line = i == 5_000 ? String(repeating: "x", count: 3 << 19) : "{\"n\":\(i),\"pad\":\"\(String(repeating: "é", count: i % 97))\"}"
            expected.append(line)
            total += line.utf8.count + 1
            i += 1
        }
        var text = Data(expected.joined(separator: "\n").utf8)
        text.append(0x0A)
        let out = try lines(of: text)
        #expect(out.count == expected.count)
        #expect(out.map(\.0) == expected)
        #expect(out.map(\.1) == Array(1...expected.count))
        // A line exactly 1 MB long ends on a chunk boundary.
        let exact = String(repeating: "y", count: (1 << 20) - 1)
        #expect(try lines(of: Data("\(exact)\nafter\n".utf8)).map(\.0) == [exact, "after"])
    }

    @Test func aLineTooLongIsRefusedWithItsNumber() throws {
        let text = Data(("short\n" + String(repeating: "z", count: 3 << 20) + "\n").utf8)
        #expect(throws: LineFile.Failure.lineTooLong(line: 2)) { try lines(of: text, maxLineBytes: 2 << 20) }
    }
}
