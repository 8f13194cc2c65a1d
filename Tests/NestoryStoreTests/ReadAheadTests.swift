import Foundation
import NestoryStore
import Synchronization
import Testing

/// The read-ahead used by bulk imports and restores: values in order, the producer's error where it happened, and no more work
/// than asked for once the consumer is done.
@Suite struct ReadAheadTests {
    @Test func valuesComeInOrderAndEndWithNil() throws {
        let counter = Mutex(0)
        let ahead = ReadAhead<Int>(capacity: 2) {
            counter.withLock { count in
                guard count < 100 else { return nil }
                count += 1
                return count
            }
        }
        var seen: [Int] = []
        while let value = try ahead.next() { seen.append(value) }
        #expect(seen == Array(1...100))
        #expect(try ahead.next() == nil)
    }

    struct Broken: Error {}

    @Test func theProducersErrorArrivesAfterTheValuesBeforeIt() throws {
        let counter = Mutex(0)
        let ahead = ReadAhead<Int>(capacity: 3) {
            try counter.withLock { count in
                count += 1
                if count == 5 { throw Broken() }
                return count
            }
        }
        #expect(try ahead.next() == 1)
        #expect(try ahead.next() == 2)
        #expect(try ahead.next() == 3)
        #expect(try ahead.next() == 4)
        #expect(throws: Broken.self) { try ahead.next() }
        #expect(try ahead.next() == nil)
        #expect(counter.withLock { $0 } == 5)
    }

    @Test func aConsumerThatStopsStopsTheProducerWithinItsCapacity() async throws {
        let counter = Mutex(0)
        let ahead = ReadAhead<Int>(capacity: 2) { counter.withLock { count in count += 1; return count } }
        #expect(try ahead.next() == 1)
        ahead.finish()
        try await Task.sleep(for: .milliseconds(200))
        let produced = counter.withLock { $0 }
        try await Task.sleep(for: .milliseconds(200))
        // One taken, two waiting, and at most one more made while it waited to hand it over.
        #expect(produced <= 4)
        #expect(counter.withLock { $0 } == produced)
    }
}
