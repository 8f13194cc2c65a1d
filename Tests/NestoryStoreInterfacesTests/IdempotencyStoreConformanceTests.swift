import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import NestoryStorePostgres
import Testing

/// Idempotency keys behave the same on every engine: one claim wins, the answer ends the claim, a claim lapses, an
/// answer is kept for its window, and keys belong to their household.
@Suite struct IdempotencyStoreConformanceTests {
    let now = Date(millis: 1_763_800_000_000)

    func at(_ seconds: TimeInterval) -> Date { now.addingTimeInterval(seconds) }

    func response(_ body: String, at time: Date) -> StoredResponse {
        StoredResponse(fingerprint: String(repeating: "f", count: 64), status: 201,
                       headers: ["Content-Type": "application/json", "Location": "/api/v1/items/1"], body: Data(body.utf8), createdAt: time)
    }

    func household(_ stores: Stores, _ name: String) async throws -> HouseholdID {
        try await stores.accounts.createHousehold(name: name, currency: .usd, now: now).id
    }

    @Test(arguments: Engine.available)
    func theFirstClaimRunsTheNextWaitsAndTheAnswerIsReplayedExactly(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let home = try await household(stores, "Home")
            let store = stores.idempotency
            #expect(try await store.claimIdempotencyKey(home, key: "k1", notBefore: at(-86_400), until: at(900), now: now) == .claimed)
            #expect(try await store.claimIdempotencyKey(home, key: "k1", notBefore: at(-86_400), until: at(901), now: at(1)) == .running)
            #expect(try await store.storedResponse(home, key: "k1", notBefore: .distantPast) == nil)

            // Bytes that are not text survive too.
            let answer = StoredResponse(fingerprint: String(repeating: "0", count: 64), status: 201, headers: ["Content-Type": "image/png"],
                                        body: Data([0, 0xFF, 0x80, 0x0A, 0x00]), createdAt: at(2))
            try await store.storeResponse(home, key: "k1", answer)
            #expect(try await store.storedResponse(home, key: "k1", notBefore: at(-86_400)) == answer)
            // Storing the answer ended the claim: the next request with the key gets the answer.
            #expect(try await store.claimIdempotencyKey(home, key: "k1", notBefore: at(-86_400), until: at(903), now: at(3)) == .answered(answer))
            #expect(try await store.claimIdempotencyKey(home, key: "k1", notBefore: at(-86_400), until: at(904), now: at(4)) == .answered(answer))
            // Once the answer is past the window, the key is free at once (its claim ended with the answer, long before
            // the claim would have lapsed).
            #expect(try await store.claimIdempotencyKey(home, key: "k1", notBefore: at(5), until: at(905), now: at(5)) == .claimed)
        }
    }

    @Test(arguments: Engine.available)
    func aReleasedClaimIsFreeAtOnceAndAnAbandonedOneWhenItLapses(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let home = try await household(stores, "Home")
            let store = stores.idempotency
            #expect(try await store.claimIdempotencyKey(home, key: "k", notBefore: .distantPast, until: at(10), now: now) == .claimed)
            try await store.releaseIdempotencyKey(home, key: "k")
            #expect(try await store.claimIdempotencyKey(home, key: "k", notBefore: .distantPast, until: at(10), now: now) == .claimed)
            // Its server died: the claim holds to its last millisecond, then the key is free again.
            #expect(try await store.claimIdempotencyKey(home, key: "k", notBefore: .distantPast, until: at(20), now: at(9.999)) == .running)
            #expect(try await store.claimIdempotencyKey(home, key: "k", notBefore: .distantPast, until: at(20), now: at(10)) == .claimed)
            #expect(try await store.claimIdempotencyKey(home, key: "k", notBefore: .distantPast, until: at(30), now: at(15)) == .running)
        }
    }

    @Test(arguments: Engine.available)
    func anAnswerOlderThanTheWindowIsNotReplayedAndIsSweptAway(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let home = try await household(stores, "Home")
            let store = stores.idempotency
            try await store.storeResponse(home, key: "old", response("old", at: now))
            try await store.storeResponse(home, key: "new", response("new", at: at(3_600)))
            #expect(try await store.storedResponse(home, key: "old", notBefore: now) == response("old", at: now))
            #expect(try await store.storedResponse(home, key: "old", notBefore: at(0.001)) == nil)
            // Past the window the key runs again, and its new answer replaces the old one.
            #expect(try await store.claimIdempotencyKey(home, key: "old", notBefore: at(1), until: at(900), now: at(2)) == .claimed)
            try await store.storeResponse(home, key: "old", response("again", at: at(5)))
            #expect(try await store.storedResponse(home, key: "old", notBefore: at(1)) == response("again", at: at(5)))

            // A lapsed claim goes with the sweep; a live one stays.
            #expect(try await store.claimIdempotencyKey(home, key: "lapsed", notBefore: .distantPast, until: at(100), now: now) == .claimed)
            #expect(try await store.claimIdempotencyKey(home, key: "live", notBefore: .distantPast, until: at(10_000), now: now) == .claimed)
            #expect(try await store.deleteStoredResponses(before: at(3_000)) == 1)
            #expect(try await store.storedResponse(home, key: "old", notBefore: .distantPast) == nil)
            #expect(try await store.storedResponse(home, key: "new", notBefore: .distantPast) == response("new", at: at(3_600)))
            #expect(try await store.claimIdempotencyKey(home, key: "live", notBefore: .distantPast, until: at(10_000), now: at(50)) == .running)
            #expect(try await store.deleteStoredResponses(before: at(3_000)) == 0)
        }
    }

    @Test(arguments: Engine.available)
    func keysBelongToTheirHousehold(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let (home, away) = (try await household(stores, "Home"), try await household(stores, "Away"))
            let store = stores.idempotency
            #expect(try await store.claimIdempotencyKey(home, key: "same", notBefore: .distantPast, until: at(900), now: now) == .claimed)
            #expect(try await store.claimIdempotencyKey(away, key: "same", notBefore: .distantPast, until: at(900), now: now) == .claimed)
            try await store.storeResponse(home, key: "same", response("home", at: now))
            #expect(try await store.storedResponse(away, key: "same", notBefore: .distantPast) == nil)
            #expect(try await store.claimIdempotencyKey(away, key: "same", notBefore: .distantPast, until: at(900), now: now) == .running)
            try await store.releaseIdempotencyKey(away, key: "same")
            // Releasing the other household's key did not touch this one's answer.
            #expect(try await store.claimIdempotencyKey(home, key: "same", notBefore: .distantPast, until: at(900), now: now)
                    == .answered(response("home", at: now)))
        }
    }

    /// Many requests with one key at once, on one store: exactly one runs.
    @Test(arguments: Engine.available)
    func ofSimultaneousClaimsExactlyOneWins(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let home = try await household(stores, "Home")
            let outcomes = try await Self.claimTogether([stores.idempotency], home, keys: 10, claimsPerKey: 6, now: now)
            #expect(outcomes == Array(repeating: 1, count: 10))
        }
    }

    /// Claims `keys` keys, each `claimsPerKey` times at once spread over the stores; returns how many claims won per key.
    static func claimTogether(_ stores: [any IdempotencyStore], _ home: HouseholdID, keys: Int, claimsPerKey: Int, now: Date) async throws -> [Int] {
        try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for key in 0..<keys {
                for index in 0..<claimsPerKey {
                    let store = stores[index % stores.count]
                    group.addTask {
                        let claim = try await store.claimIdempotencyKey(home, key: "key-\(key)", notBefore: .distantPast,
                                                                        until: now.addingTimeInterval(900), now: now)
                        return (key, claim == .claimed)
                    }
                }
            }
            var wins = Array(repeating: 0, count: keys)
            for try await (key, won) in group where won { wins[key] += 1 }
            return wins
        }
    }
}

/// Two PostgreSQL stores on one schema, as two servers on one database behind a proxy that sends a retry to either.
@Suite(.enabled(if: Engine.available.contains(.postgres)))
struct IdempotencyAcrossServersTests {
    let now = Date(millis: 1_763_800_000_000)

    func response(_ body: String, at time: Date) -> StoredResponse {
        StoredResponse(fingerprint: String(repeating: "f", count: 64), status: 201, headers: ["Content-Type": "application/json"],
                       body: Data(body.utf8), createdAt: time)
    }

    /// Two servers on one database: of the claims of one key made on both at once, exactly one wins.
    @Test func twoServersClaimingOneKeyRunItOnce() async throws {
        try await withTwoPostgresStores { first, second in
            let home = try await first.createHousehold(name: "Home", currency: .usd, now: now).id
            let outcomes = try await IdempotencyStoreConformanceTests.claimTogether([first, second], home, keys: 20, claimsPerKey: 6, now: now)
            #expect(outcomes == Array(repeating: 1, count: 20))
        }
    }

    /// A retry reaching the second server while the first stores its answer either waits (running) or gets the answer:
    /// it never runs the request again.
    @Test func aRetryOnTheOtherServerWhileTheAnswerIsStoredNeverRunsAgain() async throws {
        try await withTwoPostgresStores { first, second in
            let home = try await first.createHousehold(name: "Home", currency: .usd, now: now).id
            let now = self.now
            var seen: [String: Int] = [:]
            for round in 0..<40 {
                let key = "k\(round)"
                #expect(try await first.claimIdempotencyKey(home, key: key, notBefore: .distantPast, until: now.addingTimeInterval(900), now: now)
                        == .claimed)
                let answer = response("\(round)", at: now)
                let outcomes = try await withThrowingTaskGroup(of: IdempotencyClaim?.self) { group in
                    group.addTask {
                        try await first.storeResponse(home, key: key, answer)
                        return nil
                    }
                    for _ in 0..<3 {
                        group.addTask {
                            try await second.claimIdempotencyKey(home, key: key, notBefore: .distantPast, until: now.addingTimeInterval(900), now: now)
                        }
                    }
                    return try await group.reduce(into: [IdempotencyClaim]()) { if let claim = $1 { $0.append(claim) } }
                }
                for outcome in outcomes {
                    switch outcome {
                    case .claimed: seen["claimed", default: 0] += 1
                    case .running: seen["running", default: 0] += 1
                    case .answered(let stored):
                        #expect(stored == answer)
                        seen["answered", default: 0] += 1
                    }
                }
            }
            #expect(seen["claimed"] == nil, "a retry ran the request again: \(seen)")
            #expect(seen.values.reduce(0, +) == 120)
        }
    }
}
