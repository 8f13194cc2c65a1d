import CZlibCRC
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a ZIP archive as a stream of stored (uncompressed) entries, so photos keep their exact bytes
/// and memory stays flat whatever the archive's size.
///
/// Each entry's header is written first with a zero CRC; the bytes follow as they are read, and the CRC
/// (zlib's, which is fast) is patched into the header afterwards. ZIP64 records are added when offsets,
/// sizes or the entry count pass the classic format's limits, so archives over 4 GiB open everywhere.
final class ZipWriter {
    private let fd: Int32
    private let path: String
    private var offset: UInt64 = 0
    private var central: [CentralRecord] = []
    private var names = Set<String>()
    private let dosTime: UInt16
    private let dosDate: UInt16
    private var buffer: UnsafeMutableRawBufferPointer
    static let chunkSize = 1 << 20

    private struct CentralRecord {
        let name: [UInt8]
        let crc: UInt32
        let size: UInt64
        let headerOffset: UInt64
    }

    /// Creates (or truncates) the file at `url`.
    init(url: URL, date: Date = Date()) throws {
        path = url.path
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BackupError.io("cannot create \(path): \(String(cString: strerror(errno)))") }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        dosTime = UInt16((c.hour ?? 0) << 11 | (c.minute ?? 0) << 5 | (c.second ?? 0) / 2)
        dosDate = UInt16(max(0, (c.year ?? 1980) - 1980) << 9 | (c.month ?? 1) << 5 | (c.day ?? 1))
        buffer = .allocate(byteCount: Self.chunkSize, alignment: 16)
    }

    deinit {
        buffer.deallocate()
        if fd >= 0 { close(fd) }
    }

    /// Adds an entry whose bytes come from a file, read in chunks. `expectedSize` guards against a
    /// file that changed underneath; `hasher` sees every byte (for the manifest's checksum).
    @discardableResult
    func addFile(named name: String, from source: URL, expectedSize: Int64? = nil,
                 hasher: ((UnsafeRawBufferPointer) -> Void)? = nil) throws -> UInt64 {
        let input = open(source.path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw BackupError.missingFile(source.path) }
        defer { close(input) }
        var st = stat()
        guard fstat(input, &st) == 0 else { throw BackupError.io("cannot read \(source.path)") }
        let size = UInt64(st.st_size)
        if let expectedSize, UInt64(expectedSize) != size {
            throw BackupError.io("\(source.lastPathComponent) has \(size) bytes, the database says \(expectedSize)")
        }
        #if os(Linux)
        posix_fadvise(input, 0, 0, POSIX_FADV_SEQUENTIAL)
        #endif
        let headerOffset = try beginEntry(name: name, size: size)
        var crc = UInt(crc32(0, nil, 0))
        var remaining = size
        while remaining > 0 {
            let want = Int(min(UInt64(Self.chunkSize), remaining))
            let n = read(input, buffer.baseAddress, want)
            if n < 0 {
                if errno == EINTR { continue }
                throw BackupError.io("cannot read \(source.path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { throw BackupError.io("\(source.lastPathComponent) became shorter while it was being read") }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            crc = crc32(crc, chunk.bindMemory(to: UInt8.self).baseAddress, UInt32(n))
            hasher?(chunk)
            try writeAll(chunk)
            remaining -= UInt64(n)
        }
        try finishEntry(name: name, headerOffset: headerOffset, crc: UInt32(crc), size: size)
        return size
    }

    /// Adds an entry from bytes in memory (the manifest).
    func addData(named name: String, _ data: Data) throws {
        let size = UInt64(data.count)
        let headerOffset = try beginEntry(name: name, size: size)
        let crc = data.withUnsafeBytes { raw -> UInt in
            crc32(0, raw.bindMemory(to: UInt8.self).baseAddress, UInt32(raw.count))
        }
        try data.withUnsafeBytes { try writeAll($0) }
        try finishEntry(name: name, headerOffset: headerOffset, crc: UInt32(crc), size: size)
    }

    /// Writes the central directory and end records, and fsyncs the file.
    func finish() throws {
        let cdStart = offset
        for record in central {
            let needs64 = record.size >= 0xFFFF_FFFF || record.headerOffset >= 0xFFFF_FFFF
            var h = Bytes()
            h.u32(0x0201_4b50)
            h.u16(3 << 8 | 45)  // made by: Unix, spec 4.5
            h.u16(needs64 ? 45 : 20)
            h.u16(0x0800)  // UTF-8 names
            h.u16(0)  // stored
            h.u16(dosTime); h.u16(dosDate)
            h.u32(record.crc)
            h.u32(needs64 ? 0xFFFF_FFFF : UInt32(record.size))
            h.u32(needs64 ? 0xFFFF_FFFF : UInt32(record.size))
            h.u16(UInt16(record.name.count))
            h.u16(needs64 ? 28 : 0)
            h.u16(0); h.u16(0)  // comment, disk
            h.u16(0)  // internal attributes
            h.u32(UInt32(0o100644) << 16)  // regular file, rw-r--r--
            h.u32(needs64 ? 0xFFFF_FFFF : UInt32(record.headerOffset))
            h.bytes.append(contentsOf: record.name)
            if needs64 {
                h.u16(0x0001); h.u16(24)
                h.u64(record.size); h.u64(record.size); h.u64(record.headerOffset)
            }
            try write(h.bytes)
        }
        let cdSize = offset - cdStart
        let count = UInt64(central.count)
        if count >= 0xFFFF || cdStart >= 0xFFFF_FFFF || cdSize >= 0xFFFF_FFFF {
            let zip64Offset = offset
            var e = Bytes()
            e.u32(0x0606_4b50); e.u64(44)
            e.u16(3 << 8 | 45); e.u16(45)
            e.u32(0); e.u32(0)
            e.u64(count); e.u64(count); e.u64(cdSize); e.u64(cdStart)
            e.u32(0x0706_4b50); e.u32(0); e.u64(zip64Offset); e.u32(1)
            try write(e.bytes)
        }
        var end = Bytes()
        end.u32(0x0605_4b50)
        end.u16(0); end.u16(0)
        end.u16(UInt16(min(count, 0xFFFF))); end.u16(UInt16(min(count, 0xFFFF)))
        end.u32(UInt32(min(cdSize, 0xFFFF_FFFF))); end.u32(UInt32(min(cdStart, 0xFFFF_FFFF)))
        end.u16(0)
        try write(end.bytes)
        guard fsync(fd) == 0 else { throw BackupError.io("cannot flush \(path): \(String(cString: strerror(errno)))") }
    }

    var bytesWritten: UInt64 { offset }

    // MARK: - Entries

    private func beginEntry(name: String, size: UInt64) throws -> UInt64 {
        precondition(names.insert(name).inserted, "duplicate archive entry \(name)")
        let nameBytes = Array(name.utf8)
        let needs64 = size >= 0xFFFF_FFFF || offset >= 0xFFFF_FFFF
        let headerOffset = offset
        var h = Bytes()
        h.u32(0x0403_4b50)
        h.u16(needs64 ? 45 : 20)
        h.u16(0x0800)
        h.u16(0)
        h.u16(dosTime); h.u16(dosDate)
        h.u32(0)  // CRC, patched once the bytes are written
        h.u32(needs64 ? 0xFFFF_FFFF : UInt32(size))
        h.u32(needs64 ? 0xFFFF_FFFF : UInt32(size))
        h.u16(UInt16(nameBytes.count))
        h.u16(needs64 ? 20 : 0)
        h.bytes.append(contentsOf: nameBytes)
        if needs64 {
            h.u16(0x0001); h.u16(16); h.u64(size); h.u64(size)
        }
        try write(h.bytes)
        return headerOffset
    }

    private func finishEntry(name: String, headerOffset: UInt64, crc: UInt32, size: UInt64) throws {
        var le = crc.littleEndian
        let n = withUnsafeBytes(of: &le) { pwrite(fd, $0.baseAddress, 4, off_t(headerOffset + 14)) }
        guard n == 4 else { throw BackupError.io("cannot write \(path): \(String(cString: strerror(errno)))") }
        central.append(CentralRecord(name: Array(name.utf8), crc: crc, size: size, headerOffset: headerOffset))
    }

    private func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try writeAll($0) }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        try Self.writeFully(fd, bytes, path: path)
        offset += UInt64(bytes.count)
    }

    /// write(2) until every byte is written (it may write fewer, or be interrupted).
    static func writeFully(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw BackupError.io("cannot write \(path): \(String(cString: strerror(errno)))")
            }
            done += n
        }
    }
}

/// Little-endian field builder for ZIP headers.
struct Bytes {
    var bytes: [UInt8] = []
    mutating func u16(_ v: UInt16) { bytes.append(UInt8(v & 0xFF)); bytes.append(UInt8(v >> 8)) }
    mutating func u32(_ v: UInt32) { for i in 0..<4 { bytes.append(UInt8((v >> (8 * i)) & 0xFF)) } }
    mutating func u64(_ v: UInt64) { for i in 0..<8 { bytes.append(UInt8((v >> (8 * i)) & 0xFF)) } }
}
