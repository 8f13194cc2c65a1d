import Foundation

/// Requests counted per key per minute: an API token's budget, a page's error reports. Every server on the store
/// counts against the same budget, so two servers behind a proxy allow what one would.
///
/// Both engines keep the same rule (`RequestWindow`): the requests of the current clock minute, plus those of the
/// minute before weighted by how much of it still lies within the last 60 seconds. Each request costs the same
/// whatever the limit (two counters per key), where keeping every request's time would grow with the limit.
public protocol RequestBudget: Sendable {
    /// Counts one request under `key` when the estimate of the last 60 seconds is below `limit`: nil when it may go
    /// ahead, else the whole seconds to wait (at least 1), and the request is not counted.
    func admit(_ key: String, limit: Int, at: Date) async throws -> Int?
    /// Forgets the counts of minutes that no longer matter at `now` (the housekeeping pass).
    func forgetCounts(now: Date) async throws
}

/// The sliding-window estimate, in one place: the minute `at` falls in (minutes since 1970, UTC) and how much the
/// minute before still weighs.
public struct RequestWindow: Sendable, Equatable {
    public let minute: Int64
    /// Seconds of `minute` gone by at `at`, in [0, 60).
    public let elapsed: Double

    public init(_ at: Date) {
        let seconds = at.timeIntervalSince1970
        minute = Int64((seconds / 60).rounded(.down))
        elapsed = max(0, min(59.999_999, seconds - Double(minute) * 60))
    }

    /// How much the minute before counts: the part of it within the last 60 seconds.
    public var previousWeight: Double { 1 - elapsed / 60 }

    /// Whether one more request fits under `limit`, given the counts of the minute before and of this one.
    public func admits(previous: Int, current: Int, limit: Int) -> Bool {
        Double(previous) * previousWeight + Double(current) < Double(limit)
    }

    /// Whole seconds until one more request fits, if no other request comes meanwhile (at least 1).
    public func retryAfter(previous: Int, current: Int, limit: Int) -> Int {
        let limit = Double(max(1, limit))
        let wait: Double
        if Double(current) < limit {
            // This minute: previous × (1 − t/60) + current < limit once t passes this.
            let t = previous > 0 ? 60 * (1 - (limit - Double(current)) / Double(previous)) : elapsed
            wait = t - elapsed
        } else {
            // The next minute, where this one's count becomes the one before: current × (1 − s/60) < limit.
            wait = (60 - elapsed) + 60 * (1 - limit / Double(current))
        }
        // The first whole second after it (at `wait` itself the estimate is still at the limit).
        return max(1, Int(wait.rounded(.down)) + 1)
    }
}

/// Counts kept in this process: the budget of a store that one server holds (SQLite's), and nothing else shares.
public actor ProcessRequestBudget: RequestBudget {
    private struct Counts {
        var minute: Int64
        var previous: Int
        var current: Int
    }
    private var counts: [String: Counts] = [:]

    public init() {}

    public func admit(_ key: String, limit: Int, at: Date) -> Int? {
        let window = RequestWindow(at)
        var entry = counts[key].map { Self.moved($0, to: window.minute) } ?? Counts(minute: window.minute, previous: 0, current: 0)
        guard window.admits(previous: entry.previous, current: entry.current, limit: limit) else {
            counts[key] = entry
            return window.retryAfter(previous: entry.previous, current: entry.current, limit: limit)
        }
        entry.current += 1
        counts[key] = entry
        if counts.count > 100_000 { forget(before: window.minute - 1) }
        return nil
    }

    public func forgetCounts(now: Date) {
        forget(before: RequestWindow(now).minute - 1)
    }

    private func forget(before minute: Int64) {
        counts = counts.filter { $0.value.minute >= minute }
    }

    /// The counts seen from `minute`: the current one becomes the one before after a minute, both go after two.
    private static func moved(_ counts: Counts, to minute: Int64) -> Counts {
        switch minute - counts.minute {
        case ...0: counts
        case 1: Counts(minute: minute, previous: counts.current, current: 0)
        default: Counts(minute: minute, previous: 0, current: 0)
        }
    }
}
