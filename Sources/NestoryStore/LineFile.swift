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
        var lines = Lines(handle, maxLineBytes: maxLineBytes)
        while let (line, number) = try lines.next() { try body(line, number) }
    }

    /// The lines of a file one at a time, for a reader that pulls them (a read-ahead thread); `forEachLine` in steps.
    public struct Lines {
        private let handle: FileHandle
        private let maxLineBytes: Int
        /// The bytes read and not yet given out, from `start`; `ends` are the offsets of their line breaks from the
        /// start of `pending`, `nextEnd` the first not given out yet.
        private var pending = Data()
        private var start = 0
        private var ends: [Int] = []
        private var nextEnd = 0
        private var number = 0
        private var atEnd = false

        public init(_ handle: FileHandle, maxLineBytes: Int = 64 << 20) {
            self.handle = handle
            self.maxLineBytes = maxLineBytes
        }

        /// The next line (without its `\n`) and its number from 1; nil after the last.
        public mutating func next() throws -> (line: Data, number: Int)? {
            while true {
                if nextEnd < ends.count {
                    let newline = pending.startIndex + ends[nextEnd]
                    let line = pending[(pending.startIndex + start)..<newline]
                    nextEnd += 1
                    start = ends[nextEnd - 1] + 1
                    number += 1
                    return (line, number)
                }
                if atEnd {
                    guard start < pending.count else { return nil }
                    let line = Data(pending[(pending.startIndex + start)...])
                    start = pending.count
                    number += 1
                    return (line, number)
                }
                // Everything read so far is given out: keep the unfinished line and read the next chunk.
                pending = Data(pending[(pending.startIndex + start)...])
                start = 0
                ends.removeAll(keepingCapacity: true)
                nextEnd = 0
                if pending.count > maxLineBytes { throw Failure.lineTooLong(line: number + 1) }
                guard let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty else {
                    atEnd = true
                    continue
                }
                let scanned = pending.count
                pending.append(chunk)
                // The line breaks are found with memchr over the bytes: Data's own index walk (firstIndex(of:)) went a
                // byte at a time through its storage, with an exclusivity check each (5% of a restore's CPU).
                pending.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
                    guard let base = raw.baseAddress else { return }
                    var offset = scanned
                    while offset < raw.count, let found = memchr(base + offset, 0x0A, raw.count - offset) {
                        let end = base.distance(to: UnsafeRawPointer(found))
                        ends.append(end)
                        offset = end + 1
                    }
                }
            }
        }
    }
}
