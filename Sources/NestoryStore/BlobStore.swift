import Crypto
import Foundation
import NestoryStoreInterfaces
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where stored files are kept once in place, named by the SHA-256 of their bytes: the data folder
/// (`LocalBlobBackend`, the default) or S3-compatible object storage (NestoryObjectStorage). Chosen once, in the
/// bootstrap, and passed to `AppDatabase.open`.
///
/// The guarantees are the store's, whichever backend: a row never commits before its file is kept (`upload`
/// before the write transaction, `ensurePresent` inside it), and a file is removed only inside a write
/// transaction that has just confirmed no row uses it.
public protocol BlobBackend: Sendable {
    /// Where the files are, for messages and the start-up log: "the data folder", "s3://bucket/blobs/".
    var location: String { get }
    /// Before the write transaction that records a row: the bytes kept where files are stored unless already there
    /// (idempotent; an object store checks with HEAD, then PUTs). The data folder does nothing here: its rename
    /// happens inside the transaction.
    func upload(_ staged: BlobStore.Staged) throws
    /// Inside the write transaction that records the row: sure the file is in place when the row commits.
    /// `recorded`: a `blob` row for these bytes existed before this transaction, so nothing can have removed the
    /// file since (a file is removed only with its row, in a write transaction).
    func ensurePresent(_ staged: BlobStore.Staged, recorded: Bool) throws
    func exists(_ sha256: String) throws -> Bool
    /// The stored bytes; `StoreError.attachmentMissing` when there are none.
    func read(_ sha256: String) throws -> Data
    /// A file on this machine with the stored bytes: the stored file itself, or a copy fetched into `tmp`
    /// (`temporary`: the caller removes it when done; one left behind goes with the temporary-file sweep).
    func localFile(_ sha256: String, tmp: URL) throws -> (url: URL, temporary: Bool)
    /// Deletes a stored file (nothing if there is none). Only call inside a write transaction that saw no row uses it.
    func remove(_ sha256: String) throws
    /// Every stored hash, for the sweep of files no row names. An object store lists only objects last written
    /// before `cutoff` (its uploads precede their transaction); files in the data folder are renamed into place
    /// inside the transaction, so every one is listed.
    func storedHashes(writtenBefore cutoff: Date) throws -> [String]
}

/// Files in the data folder, `blobs/ab/cd/abcd…`. Durability order: the bytes go to a temporary file that is
/// fsynced (`BlobStore.stage`); inside the database write transaction that records the row pointing at them, the
/// file is renamed into place and the folder fsynced (`ensurePresent`), so the row never commits before its file
/// is on disk.
public struct LocalBlobBackend: BlobBackend {
    let root: URL

    public init(folder: DataFolder) {
        root = folder.blobsURL
    }

    public var location: String { "the data folder (\(root.path))" }

    /// Where the file for a hash lives: `blobs/ab/cd/abcd…`.
    public func url(for sha256: String) -> URL {
        let chars = Array(sha256)
        precondition(chars.count == 64, "a SHA-256 hex digest has 64 characters")
        return root.appendingPathComponent(String(chars[0..<2]), isDirectory: true)
            .appendingPathComponent(String(chars[2..<4]), isDirectory: true)
            .appendingPathComponent(sha256)
    }

    public func upload(_ staged: BlobStore.Staged) {}

    public func exists(_ sha256: String) -> Bool {
        FileManager.default.fileExists(atPath: url(for: sha256).path)
    }

    public func read(_ sha256: String) throws -> Data {
        do {
            return try Data(contentsOf: url(for: sha256))
        } catch {
            throw StoreError.attachmentMissing(sha256: sha256)
        }
    }

    public func localFile(_ sha256: String, tmp: URL) -> (url: URL, temporary: Bool) {
        (url(for: sha256), false)
    }

    /// Puts a staged file in place unless identical bytes are already there; fsyncs the folders.
    public func ensurePresent(_ staged: BlobStore.Staged, recorded: Bool) throws {
        let final = url(for: staged.sha256)
        if FileManager.default.fileExists(atPath: final.path) { return }
        let shard2 = final.deletingLastPathComponent()
        let shard1 = shard2.deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: shard2.path) {
            try FileManager.default.createDirectory(at: shard2, withIntermediateDirectories: true)
            try BlobStore.fsyncDirectory(shard1)
            try BlobStore.fsyncDirectory(root)
        }
        guard FileManager.default.fileExists(atPath: staged.tmpURL.path) else {
            throw StoreError.io("the staged file for \(staged.sha256.prefix(12)) is gone")
        }
        guard rename(staged.tmpURL.path, final.path) == 0 else {
            throw StoreError.io("rename into \(final.path) failed: \(String(cString: strerror(errno)))")
        }
        try BlobStore.fsyncDirectory(shard2)
    }

    public func remove(_ sha256: String) throws {
        let final = url(for: sha256)
        if unlink(final.path) == 0 {
            try BlobStore.fsyncDirectory(final.deletingLastPathComponent())
        } else if errno != ENOENT {
            throw StoreError.io("cannot remove \(final.path): \(String(cString: strerror(errno)))")
        }
    }

    public func storedHashes(writtenBefore cutoff: Date) -> [String] {
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        var out: [String] = []
        for case let url as URL in enumerator where url.lastPathComponent.count == 64 {
            out.append(url.lastPathComponent)
        }
        return out
    }
}

/// Stores files by the SHA-256 of their bytes, kept byte-exact, in a `BlobBackend` (the data folder unless the
/// settings name an object store).
///
/// Bytes are staged on this machine first: a temporary file that is fsynced and hashed (`stage`, `Writer`). Then
/// `upload` (before the write transaction) and `ensurePresent` (inside the write transaction that records the row
/// pointing at them) keep them in the backend, so the row never commits before its file. Files are removed only
/// inside a write transaction that has just confirmed no row uses them, so removal cannot race with a new row for
/// the same bytes.
public struct BlobStore: Sendable {
    let root: URL
    let tmp: URL
    public let backend: any BlobBackend
    private let local: LocalBlobBackend

    /// Files of the data folder, kept in `backend` (nil: the data folder's `blobs/`). `AppDatabase.open` makes its
    /// own; another engine's store is given one.
    public init(folder: DataFolder, backend: (any BlobBackend)? = nil) {
        root = folder.blobsURL
        tmp = folder.tmpURL
        local = LocalBlobBackend(folder: folder)
        self.backend = backend ?? local
    }

    /// Bytes written to a temporary file and hashed, not yet in place (the interfaces' type, so every engine's
    /// attachment store takes the same staged file).
    public typealias Staged = StagedBlob

    /// Where the file for a hash lives in the data folder, `blobs/ab/cd/abcd…` (the local backend's layout).
    public func url(for sha256: String) -> URL {
        local.url(for: sha256)
    }

    public func exists(_ sha256: String) throws -> Bool {
        try backend.exists(sha256)
    }

    /// The stored bytes.
    public func read(_ sha256: String) throws -> Data {
        try backend.read(sha256)
    }

    /// A file on this machine with the stored bytes, for `body` (a copy fetched from an object store is removed after).
    public func withLocalFile<T>(_ sha256: String, _ body: (URL) throws -> T) throws -> T {
        let (url, temporary) = try backend.localFile(sha256, tmp: tmp)
        defer { if temporary { unlink(url.path) } }
        return try body(url)
    }

    /// A file on this machine with the stored bytes that stays a while (a report being rendered): the stored file,
    /// or a copy in tmp/ (`fetched-<sha256>`, fetched once and used again while it is there) that the
    /// temporary-file sweep removes once it is an hour old.
    public func localFile(_ sha256: String) throws -> URL {
        let kept = tmp.appendingPathComponent("fetched-\(sha256)")
        if FileManager.default.fileExists(atPath: kept.path) { return kept }
        let (url, temporary) = try backend.localFile(sha256, tmp: tmp)
        guard temporary else { return url }
        guard rename(url.path, kept.path) == 0 else {
            unlink(url.path)
            throw StoreError.io("cannot keep a copy of \(sha256.prefix(12))… in \(tmp.path)")
        }
        return kept
    }

    /// Keeps a staged file in the backend; call before the write transaction that records it (nothing for the data folder).
    public func upload(_ staged: Staged) throws {
        try backend.upload(staged)
    }

    /// Writes bytes to a temporary file, fsynced, and hashes them.
    public func stage(_ data: Data) throws -> Staged {
        let tmpURL = tmp.appendingPathComponent("stage-\(UUID().uuidString.lowercased())")
        let fd = try Self.openNew(tmpURL)
        defer { close(fd) }
        do {
            try data.withUnsafeBytes { buffer in try Self.writeAll(fd, buffer) }
            try Self.fsyncOrThrow(fd, tmpURL)
        } catch {
            unlink(tmpURL.path)
            throw error
        }
        let digest = SHA256.hash(data: data)
        return Staged(sha256: Self.hex(digest), byteCount: Int64(data.count), tmpURL: tmpURL)
    }

    /// Copies a file (for example an upload already spooled to disk) in chunks, hashing as it goes,
    /// so memory stays flat whatever the size. `maxBytes` refuses anything larger.
    public func stage(contentsOf source: URL, maxBytes: Int64 = .max) throws -> Staged {
        guard let input = InputStream(url: source) else { throw StoreError.io("cannot read \(source.path)") }
        input.open()
        defer { input.close() }
        let tmpURL = tmp.appendingPathComponent("stage-\(UUID().uuidString.lowercased())")
        let fd = try Self.openNew(tmpURL)
        defer { close(fd) }
        var hasher = SHA256()
        var total: Int64 = 0
        let chunk = 1 << 16
        var buffer = [UInt8](repeating: 0, count: chunk)
        do {
            while true {
                let n = input.read(&buffer, maxLength: chunk)
                if n < 0 { throw StoreError.io("cannot read \(source.path)") }
                if n == 0 { break }
                total += Int64(n)
                if total > maxBytes { throw StoreError.io("the file is larger than \(maxBytes) bytes") }
                try buffer.withUnsafeBytes { try Self.writeAll(fd, UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                hasher.update(data: buffer[0..<n])
            }
            try Self.fsyncOrThrow(fd, tmpURL)
        } catch {
            unlink(tmpURL.path)
            throw error
        }
        return Staged(sha256: Self.hex(hasher.finalize()), byteCount: total, tmpURL: tmpURL)
    }

    /// Takes a finished file on this machine (a rendered report) as staged: moved into tmp/ (copied when it is on
    /// another file system), hashed and fsynced there, never held whole in memory. The file is gone from `source`
    /// afterwards, kept or not.
    public func stage(movingFile source: URL) throws -> Staged {
        let tmpURL = tmp.appendingPathComponent("stage-\(UUID().uuidString.lowercased())")
        guard rename(source.path, tmpURL.path) == 0 else {
            guard errno == EXDEV else { throw StoreError.io("cannot move \(source.path) into \(tmp.path): \(String(cString: strerror(errno)))") }
            defer { unlink(source.path) }
            return try stage(contentsOf: source)
        }
        do {
            let fd = open(tmpURL.path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw StoreError.io("cannot read \(tmpURL.path): \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            var hasher = SHA256()
            var total: Int64 = 0
            let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: false)
            while let chunk = try handle.read(upToCount: 1 << 16), !chunk.isEmpty {
                total += Int64(chunk.count)
                hasher.update(data: chunk)
            }
            try Self.fsyncOrThrow(fd, tmpURL)
            return Staged(sha256: Self.hex(hasher.finalize()), byteCount: total, tmpURL: tmpURL)
        } catch {
            unlink(tmpURL.path)
            throw error
        }
    }

    /// Writes a stream of chunks (an upload as it arrives) to a staging file, hashing as it goes and
    /// refusing more than `maxBytes`. Call `finish` once, or `abandon` on failure.
    public final class Writer: @unchecked Sendable {
        let url: URL
        let maxBytes: Int64
        private var fd: Int32
        private var hasher = SHA256()
        public private(set) var byteCount: Int64 = 0

        init(directory: URL, maxBytes: Int64) throws {
            url = directory.appendingPathComponent("stage-\(UUID().uuidString.lowercased())")
            self.maxBytes = maxBytes
            fd = try BlobStore.openNew(url)
        }

        deinit { abandon() }

        /// Appends bytes; throws `StoreError.tooLarge` past the limit (the file is then removed).
        public func append(_ bytes: UnsafeRawBufferPointer) throws {
            byteCount += Int64(bytes.count)
            guard byteCount <= maxBytes else {
                abandon()
                throw StoreError.tooLarge(limit: maxBytes)
            }
            try BlobStore.writeAll(fd, bytes)
            hasher.update(bufferPointer: bytes)
        }

        public func finish() throws -> Staged {
            try BlobStore.fsyncOrThrow(fd, url)
            close(fd)
            fd = -1
            return Staged(sha256: BlobStore.hex(hasher.finalize()), byteCount: byteCount, tmpURL: url)
        }

        public func abandon() {
            if fd >= 0 {
                close(fd)
                fd = -1
                unlink(url.path)
            }
        }
    }

    public func makeWriter(maxBytes: Int64) throws -> any StagedBlobWriter {
        try Writer(directory: tmp, maxBytes: maxBytes)
    }

    /// Puts a staged file in place unless identical bytes are already there. Call inside the write transaction
    /// that records the row; `recorded`: its `blob` row existed before that transaction.
    public func ensurePresent(_ staged: Staged, recorded: Bool = false) throws {
        try backend.ensurePresent(staged, recorded: recorded)
    }

    /// The bytes of a staged file (to check an upload before it is kept).
    public func contents(of staged: Staged) throws -> Data {
        try Data(contentsOf: staged.tmpURL)
    }

    /// Removes the temporary file if it was not moved into place.
    public func discard(_ staged: Staged) {
        unlink(staged.tmpURL.path)
    }

    /// Deletes a stored file. Only call inside a write transaction that saw no row uses it.
    public func remove(_ sha256: String) throws {
        try backend.remove(sha256)
    }

    // MARK: - Pinning files for a backup

    /// A shared lock on `blobs/.pin` (flock, so it holds across processes): while any backup holds
    /// it, stored files are not unlinked. Rows may still be deleted; their files stay as orphans
    /// that the next garbage sweep removes. A backup reads its rows after taking the pin, so every
    /// file its snapshot names is still on disk when it is copied.
    public final class Pin: @unchecked Sendable {
        private var fd: Int32

        init(url: URL, exclusive: Bool, wait: Bool) throws {
            fd = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw StoreError.io("cannot open \(url.path): \(String(cString: strerror(errno)))") }
            let operation = (exclusive ? LOCK_EX : LOCK_SH) | (wait ? 0 : LOCK_NB)
            while flock(fd, operation) != 0 {
                if errno == EINTR { continue }
                let code = errno
                close(fd)
                fd = -1
                throw code == EWOULDBLOCK ? StoreError.locked(path: url.path) : StoreError.io("cannot lock \(url.path)")
            }
        }

        public func release() {
            if fd >= 0 {
                flock(fd, LOCK_UN)
                close(fd)
                fd = -1
            }
        }

        deinit { release() }
    }

    var pinURL: URL { root.appendingPathComponent(".pin") }

    /// Keeps every stored file on disk until `release` (for a backup). Waits for a deletion in progress.
    public func pinForBackup() throws -> Pin {
        try Pin(url: pinURL, exclusive: false, wait: true)
    }

    /// The right to unlink files now, or nil while a backup holds its pin.
    func tryPinForRemoval() -> Pin? {
        try? Pin(url: pinURL, exclusive: true, wait: false)
    }

    /// Every hash that has a stored file, for the garbage sweep (in an object store, those written over an hour
    /// before `now`: younger ones may be uploads whose rows are being written).
    func allStoredHashes(now: Date = Date()) throws -> [String] {
        try backend.storedHashes(writtenBefore: now.addingTimeInterval(-3600))
    }

    /// Removes staging files left by a crash, older than `age` seconds.
    /// Removes what crashes and abandoned work leave in tmp/: staged uploads, reports and exports being
    /// written, backup and restore work folders, and the web app's uploads and finished backups (tmp/web/)
    /// once the newest file in them is older than `age`. With `orphans`, files in tmp/web/ that `keep` does
    /// not name go at once (at start no upload is waiting: they live in the server's memory). Returns how
    /// many entries and bytes were removed.
    @discardableResult
    public func sweepTemporaryFiles(olderThan age: TimeInterval, now: Date, keep: Set<String> = [], orphans: Bool = false)
        -> (entries: Int, bytes: Int64) {
        var removed = 0
        var bytes: Int64 = 0
        func sweep(_ folder: URL, isWeb: Bool) {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
            for name in names {
                let url = folder.appendingPathComponent(name)
                if !isWeb && name == "web" { sweep(url, isWeb: true); continue }
                if keep.contains(name) { continue }
                let (newest, size) = Self.newestModification(url)
                if now.timeIntervalSince(newest) > age || (isWeb && orphans) {
                    if (try? FileManager.default.removeItem(at: url)) != nil {
                        removed += 1
                        bytes += size
                    }
                }
            }
        }
        sweep(tmp, isWeb: false)
        return (removed, bytes)
    }

    /// The newest modification time in a file or folder tree, and its size in bytes.
    static func newestModification(_ url: URL) -> (Date, Int64) {
        let fm = FileManager.default
        guard let attributes = try? fm.attributesOfItem(atPath: url.path) else { return (.distantFuture, 0) }
        var newest = attributes[.modificationDate] as? Date ?? .distantFuture
        var size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        if attributes[.type] as? FileAttributeType == .typeDirectory, let walker = fm.enumerator(atPath: url.path) {
            while let relative = walker.nextObject() as? String {
                guard let inner = try? fm.attributesOfItem(atPath: url.appendingPathComponent(relative).path) else { continue }
                if let date = inner[.modificationDate] as? Date, date > newest { newest = date }
                size += (inner[.size] as? NSNumber)?.int64Value ?? 0
            }
        }
        return (newest, size)
    }

    // MARK: - POSIX helpers

    /// Lowercase hex, as stored file names are written.
    public static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        let table = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        for byte in digest {
            bytes.append(table[Int(byte >> 4)])
            bytes.append(table[Int(byte & 0x0f)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func openNew(_ url: URL) throws -> Int32 {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StoreError.failed("cannot create \(url.path)", code: errno) }
        return fd
    }

    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < buffer.count {
            let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw StoreError.failed("cannot write", code: errno)
            }
            offset += n
        }
    }

    static func fsyncOrThrow(_ fd: Int32, _ url: URL) throws {
        guard fsync(fd) == 0 else { throw StoreError.failed("cannot flush \(url.path)", code: errno) }
    }

    static func fsyncDirectory(_ url: URL) throws {
        let fd = open(url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError.io("cannot open folder \(url.path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw StoreError.failed("cannot flush \(url.path)", code: errno) }
    }
}

/// The files as every engine's attachment store uses them (`BlobFiles`).
extension BlobStore: BlobFiles {
    public var location: String { backend.location }

    public func removalPin() -> (any BlobRemovalPin)? { tryPinForRemoval() }

    public func sweepableHashes(now: Date) throws -> [String] { try allStoredHashes(now: now) }

    public func backupPin() throws -> any BlobRemovalPin { try pinForBackup() }
}

extension BlobStore.Pin: BlobRemovalPin {}

extension BlobStore.Writer: StagedBlobWriter {}
