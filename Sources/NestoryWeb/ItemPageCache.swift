import Foundation
import NIOCore
import NestoryDomain

/// The JSON item list's recent answers as their bytes, per household and query, each with the household's item
/// content version the page is at least as new as (`ItemStore.itemsVersioned`). An answer is sent again only while
/// `itemContentVersion` still gives that number: any change to an item, its tags or its photos, by this server or
/// another (or another process on the same file), moves it on, and the next request lists afresh. A phone opening
/// its inventory again, or polling it, then costs a lookup instead of a page read and written out again.
///
/// Each answer also carries the store's `dataVersion` read before it was listed (or before its content version
/// was last confirmed), when the store has one (SQLite): while that is still the current one nothing at all was
/// committed since, and the answer is sent without reading its household's content version. A store without one
/// (PostgreSQL) has the content version read for every answer sent again.
///
/// Bounded by bytes: an answer larger than `largest` is not kept, and the oldest kept go first.
final class ItemPageCache: @unchecked Sendable {
    struct Key: Hashable {
        let household: HouseholdID
        let query: ItemQuery
    }

    private struct Entry {
        let version: Int64
        var confirmed: Int64?
        let bytes: ByteBuffer
        let serial: Int
    }

    let capacity: Int
    let largest: Int
    private let lock = NSLock()
    private var entries: [Key: Entry] = [:]
    /// Keys in the order they were kept, with the serial of the entry each was kept as (a key kept again is listed
    /// again; its older listing is skipped when reached). `head` is the oldest still to consider.
    private var order: [(key: Key, serial: Int)] = []
    private var head = 0
    private var held = 0
    private var serial = 0

    init(capacity: Int = 8 << 20, largest: Int = 512 << 10) {
        self.capacity = capacity
        self.largest = largest
    }

    /// The kept answer for `key` while it is current: `dataVersion` is the store's, read now (nil without one);
    /// `contentVersion` reads the household's item content version (only when something may have been committed since
    /// the answer's last check).
    func answer(_ key: Key, dataVersion: Int64?, contentVersion: () async throws -> Int64) async rethrows -> ByteBuffer? {
        guard let entry = lock.withLock({ entries[key] }) else { return nil }
        if let dataVersion, entry.confirmed == dataVersion { return entry.bytes }
        guard try await contentVersion() == entry.version else { return nil }
        if let dataVersion {
            lock.withLock {
                if entries[key]?.serial == entry.serial, entries[key]!.confirmed ?? .min < dataVersion { entries[key]!.confirmed = dataVersion }
            }
        }
        return entry.bytes
    }

    /// Keeps `bytes`, listed at least as new as the household's item content `version`, after the store's
    /// `dataVersion` was read (nil without one).
    func keep(_ bytes: ByteBuffer, for key: Key, version: Int64, dataVersion: Int64?) {
        guard bytes.readableBytes <= largest else { return }
        lock.withLock {
            if let old = entries[key] {
                guard old.version < version else { return }  // a slower request's older answer
                held -= old.bytes.readableBytes
            }
            serial += 1
            entries[key] = Entry(version: version, confirmed: dataVersion, bytes: bytes, serial: serial)
            order.append((key, serial))
            held += bytes.readableBytes
            while held > capacity, head < order.count {
                let oldest = order[head]
                head += 1
                if let entry = entries[oldest.key], entry.serial == oldest.serial {
                    entries[oldest.key] = nil
                    held -= entry.bytes.readableBytes
                }
            }
            // Drop the listings already passed and those of answers replaced since (one key kept again and
            // again would otherwise grow the list without ever reaching the capacity).
            if order.count - head > 2 * entries.count + 64 || head > 64 && head * 2 > order.count {
                order = order[head...].filter { entries[$0.key]?.serial == $0.serial }
                head = 0
            }
        }
    }

    /// How many bytes the kept answers hold, and how long the list of keys in order is (for tests).
    var heldBytes: Int { lock.withLock { held } }
    var orderLength: Int { lock.withLock { order.count - head } }
}
