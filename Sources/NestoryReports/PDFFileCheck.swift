import Foundation

/// Whether a file is a whole PDF: not empty, starts with `%PDF-`, and ends with `%%EOF` (within the
/// last kilobyte, as writers may add a newline or padding). Cairo writes the trailer last, so a write cut
/// short by a full disk or a crash fails this.
public enum PDFFileCheck {
    public struct Incomplete: Error, CustomStringConvertible {
        public let description: String
    }

    public static func check(_ url: URL) throws {
        guard let handle = try? FileHandle(forReadingFrom: url) else { throw Incomplete(description: "the report file is missing") }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        guard size >= 16 else { throw Incomplete(description: "the report file is empty (\(size) bytes)") }
        try handle.seek(toOffset: 0)
        guard let head = try handle.read(upToCount: 5), head == Data("%PDF-".utf8) else {
            throw Incomplete(description: "the report file does not start as a PDF")
        }
        let tailLength = min(size, 1024)
        try handle.seek(toOffset: size - tailLength)
        guard let tail = try handle.read(upToCount: Int(tailLength)), tail.range(of: Data("%%EOF".utf8)) != nil else {
            throw Incomplete(description: "the report file has no PDF trailer")
        }
    }
}
