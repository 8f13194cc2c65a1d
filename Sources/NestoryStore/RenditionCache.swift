import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Smaller images made from a stored photo (thumbnail, display size). They can always be made again
/// from the original, so they are a cache: written atomically, not fsynced, removed with their original.
public struct RenditionCache: Sendable {
    let root: URL
    let tmp: URL

    public enum Kind: String, Sendable, CaseIterable {
        case thumbnail, display
    }

    /// The data folder's `renditions/` (renamed into place from its `tmp/`): one per server, however the stored files
    /// are kept (a cache each server fills from the originals as it needs them).
    public init(folder: DataFolder) {
        root = folder.renditionsURL
        tmp = folder.tmpURL
    }

    public func url(for sha256: String, _ kind: Kind) -> URL {
        root.appendingPathComponent(String(sha256.prefix(2)), isDirectory: true)
            .appendingPathComponent("\(sha256)-\(kind.rawValue).jpg")
    }

    public func read(_ sha256: String, _ kind: Kind) -> Data? {
        try? Data(contentsOf: url(for: sha256, kind))
    }

    /// Writes through a temporary file and a rename, so a reader never sees half an image.
    public func write(_ data: Data, for sha256: String, _ kind: Kind) throws {
        let final = url(for: sha256, kind)
        try FileManager.default.createDirectory(at: final.deletingLastPathComponent(), withIntermediateDirectories: true)
        let staging = tmp.appendingPathComponent("rendition-\(UUID().uuidString.lowercased())")
        try data.write(to: staging)
        guard rename(staging.path, final.path) == 0 else {
            unlink(staging.path)
            throw StoreError.io("cannot write \(final.path)")
        }
    }

    /// The stored files with a rendition here written before `cutoff` (a rendition may be written a moment before its
    /// photo's row commits, so younger ones are left to the next sweep).
    public func hashes(writtenBefore cutoff: Date) -> [String] {
        let fm = FileManager.default
        var hashes = Set<String>()
        for prefix in (try? fm.contentsOfDirectory(atPath: root.path)) ?? [] {
            let directory = root.appendingPathComponent(prefix, isDirectory: true)
            for name in (try? fm.contentsOfDirectory(atPath: directory.path)) ?? [] {
                guard let dash = name.firstIndex(of: "-"), name.hasSuffix(".jpg") else { continue }
                var info = stat()
                guard stat(directory.appendingPathComponent(name).path, &info) == 0,
                      TimeInterval(info.st_mtim.tv_sec) < cutoff.timeIntervalSince1970 else { continue }
                hashes.insert(String(name[..<dash]))
            }
        }
        return hashes.sorted()
    }

    /// Removes every rendition of a stored file.
    public func remove(_ sha256: String) {
        for kind in Kind.allCases { unlink(url(for: sha256, kind).path) }
    }
}
