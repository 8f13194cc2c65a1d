import Foundation

/// Reads a text file line by line in 1 MB chunks (memory stays flat for any file size): the JSON Lines
/// of backup archives and product catalogues.
public enum LineFile {
    public enum Failure: Error, Equatable {
        /// A line longer than allowed (a file without line breaks, say); `line` is its number.
        case lineTooLong(line: Int)
    }

    /// Calls `body` with each line (without its `\n`) and its number from 1. A last line without a
    /// line break is included.
    public static func forEachLine(of handle: FileHandle, maxLineBytes: Int = 64 << 20, _ body: (Data, Int) throws -> Void) throws {
        var pending = Data()
        var number = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            pending.append(chunk)
            var start = pending.startIndex
            while let newline = pending[start...].firstIndex(of: 0x0A) {
                number += 1
                try body(pending[start..<newline], number)
                start = pending.index(after: newline)
            }
            pending = Data(pending[start...])
            if pending.count > maxLineBytes { throw Failure.lineTooLong(line: number + 1) }
        }
        if !pending.isEmpty { try body(pending, number + 1) }
    }
}
