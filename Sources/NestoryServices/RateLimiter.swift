import Foundation

/// Counts failures per key in a sliding window and says when a key must wait. In memory: one
/// server process holds it, which is how Nestory runs on its embedded database.
public actor RateLimiter {
    let limit: Int
    let window: TimeInterval
    private var failures: [String: [Date]] = [:]

    public init(limit: Int, window: TimeInterval) {
        self.limit = limit
        self.window = window
    }

    /// Seconds to wait before the next attempt, or nil when an attempt is allowed now.
    public func retryAfter(_ key: String, now: Date) -> Int? {
        let recent = prune(key, now: now)
        guard recent.count >= limit, let oldest = recent.first else { return nil }
        return max(1, Int((oldest.addingTimeInterval(window).timeIntervalSince(now)).rounded(.up)))
    }

    public func recordFailure(_ key: String, now: Date) {
        var recent = prune(key, now: now)
        recent.append(now)
        failures[key] = recent
        if failures.count > 100_000 { failures = failures.filter { !$0.value.isEmpty } }
    }

    public func reset(_ key: String) {
        failures[key] = nil
    }

    private func prune(_ key: String, now: Date) -> [Date] {
        let recent = (failures[key] ?? []).filter { now.timeIntervalSince($0) < window }
        failures[key] = recent.isEmpty ? nil : recent
        return recent
    }
}
