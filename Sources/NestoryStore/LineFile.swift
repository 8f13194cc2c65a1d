import Foundation
#if canImport(Glibc)
import Glibc
#endif

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
        var ends: [Int] = []
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            pending.append(chunk)
            // The line breaks are found with memchr over the bytes: Data's own index walk (firstIndex(of:)) went a byte
            // at a time through its storage, with an exclusivity check each (5% of a restore's CPU).
            ends.removeAll(keepingCapacity: true)
            pending.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
                guard let base = raw.baseAddress else { return }
                var offset = 0
                while offset < raw.count, let found = memchr(base + offset, 0x0A, raw.count - offset) {
                    let end = base.distance(to: UnsafeRawPointer(found))
                    ends.append(end)
                    offset = end + 1
                }
            }
            var start = pending.startIndex
            for end in ends {
                let newline = pending.startIndex + end
                number += 1
                try body(pending[start..<newline], number)
                start = newline + 1
            }
            pending = Data(pending[start...])
            if pending.count > maxLineBytes { throw Failure.lineTooLong(line: number + 1) }
        }
        if !pending.isEmpty { try body(pending, number + 1) }
    }
}
