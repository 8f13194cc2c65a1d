import Foundation
import NIOCore
import NestoryDomain
import NestoryStore
import Testing
@testable import NestoryWeb

@Suite struct ItemPageCacheTests {
    let home = HouseholdID()
    func key(_ search: String = "") -> ItemPageCache.Key { ItemPageCache.Key(household: home, query: ItemQuery(search: search)) }
    func bytes(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    @Test func anAnswerIsSentOnlyWhileItsContentVersionHolds() async throws {
        let cache = ItemPageCache()
        cache.keep(bytes("[1]"), for: key(), version: 7, dataVersion: 100)
        // Nothing committed since: no need to read the content version.
        #expect(await cache.answer(key(), dataVersion: 100, contentVersion: { Issue.record("read the content version"); return 7 }) == bytes("[1]"))
        // Something committed, not to these items: the content version is read once, then the answer is confirmed.
        var reads = 0
        #expect(await cache.answer(key(), dataVersion: 101, contentVersion: { reads += 1; return 7 }) == bytes("[1]"))
        #expect(await cache.answer(key(), dataVersion: 101, contentVersion: { reads += 1; return 7 }) == bytes("[1]"))
        #expect(reads == 1)
        // The items changed.
        #expect(await cache.answer(key(), dataVersion: 102, contentVersion: { 8 }) == nil)
        // Another query, another household: nothing kept.
        #expect(await cache.answer(key("lamp"), dataVersion: 101, contentVersion: { 7 }) == nil)
        #expect(await cache.answer(ItemPageCache.Key(household: HouseholdID(), query: ItemQuery()), dataVersion: 101, contentVersion: { 7 }) == nil)
    }

    /// A store without a commit counter (PostgreSQL): every answer sent again has its content version read first.
    @Test func withoutADataVersionTheContentVersionIsReadEveryTime() async throws {
        let cache = ItemPageCache()
        cache.keep(bytes("[1]"), for: key(), version: 7, dataVersion: nil)
        var reads = 0
        #expect(await cache.answer(key(), dataVersion: nil, contentVersion: { reads += 1; return 7 }) == bytes("[1]"))
        #expect(await cache.answer(key(), dataVersion: nil, contentVersion: { reads += 1; return 7 }) == bytes("[1]"))
        #expect(reads == 2)
        #expect(await cache.answer(key(), dataVersion: nil, contentVersion: { 8 }) == nil)
    }

    @Test func aSlowerRequestsOlderAnswerDoesNotReplaceANewerOne() async {
        let cache = ItemPageCache()
        cache.keep(bytes("new"), for: key(), version: 9, dataVersion: 200)
        cache.keep(bytes("old"), for: key(), version: 8, dataVersion: 150)
        #expect(await cache.answer(key(), dataVersion: 200, contentVersion: { 9 }) == bytes("new"))
        #expect(cache.heldBytes == 3)
    }

    @Test func itHoldsAtMostItsCapacityOldestFirstAndNothingTooLarge() async {
        let cache = ItemPageCache(capacity: 100, largest: 50)
        cache.keep(bytes(String(repeating: "x", count: 51)), for: key("big"), version: 1, dataVersion: 1)
        #expect(cache.heldBytes == 0)
        for i in 0..<3 { cache.keep(bytes(String(repeating: "a", count: 40)), for: key("q\(i)"), version: 1, dataVersion: 1) }
        #expect(cache.heldBytes == 80)
        #expect(await cache.answer(key("q0"), dataVersion: 1, contentVersion: { 1 }) == nil)
        #expect(await cache.answer(key("q2"), dataVersion: 1, contentVersion: { 1 }) != nil)
        // One key kept again and again (its items changing each time) neither grows the cache nor evicts the others.
        for version in 2...500 { cache.keep(bytes(String(repeating: "b", count: 40)), for: key("q2"), version: Int64(version), dataVersion: 1) }
        #expect(cache.heldBytes == 80)
        #expect(await cache.answer(key("q1"), dataVersion: 1, contentVersion: { 1 }) != nil)
        #expect(cache.orderLength <= 2 * 2 + 64)
    }
}
