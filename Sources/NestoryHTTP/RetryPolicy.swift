import Foundation

/// When and how often a call to another service (a valuation provider, an object store) is tried again: the
/// server's own word first (`retry-after-ms`, then `retry-after` in seconds or as an HTTP date), else exponential
/// backoff with full jitter (a random wait between zero and `baseDelay` × 2^(attempt − 1), never above `maxDelay`). A server that asks for a longer wait than
/// `maxDelay` is not waited for: the call fails at once with what it said. Sleeping, randomness and the clock are
/// passed in, so tests never wait for real.
public struct RetryPolicy: Sendable {
    /// Tries in all, the first included.
    public var maxAttempts: Int
    public var baseDelay: Duration
    /// The longest single wait.
    public var maxDelay: Duration
    public var sleep: @Sendable (Duration) async throws -> Void
    /// A number in 0..<1.
    public var random: @Sendable () -> Double
    public var now: @Sendable () -> Date

    /// Four tries, backoff from one second, no wait over thirty seconds.
    public init(maxAttempts: Int = 4, baseDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(30),
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.sleep = sleep
        self.random = random
        self.now = now
    }

    public static let standard = RetryPolicy()

    /// The wait after try number `attempt` (from 1) failed with `headers` (names in lower case), or nil when the
    /// server asks for more than `maxDelay`.
    public func delay(afterAttempt attempt: Int, headers: [String: String]) -> Duration? {
        if let text = headers["retry-after-ms"], let ms = Double(text.trimmingCharacters(in: .whitespaces)), ms >= 0 {
            return capped(.milliseconds(Int64(ms.rounded(.up))))
        }
        if let text = headers["retry-after"]?.trimmingCharacters(in: .whitespaces) {
            if let seconds = Double(text), seconds >= 0 { return capped(.milliseconds(Int64((seconds * 1000).rounded(.up)))) }
            if let date = Self.httpDate(text) { return capped(.milliseconds(Int64(max(0, date.timeIntervalSince(now()) * 1000).rounded(.up)))) }
        }
        let exponent = min(max(attempt - 1, 0), 30)
        let ceiling = min(maxDelay, baseDelay * (1 << exponent))
        return ceiling * min(max(random(), 0), 1)
    }

    func capped(_ wait: Duration) -> Duration? { wait <= maxDelay ? wait : nil }

    /// An IMF-fixdate (RFC 9110): "Sun, 06 Nov 1994 08:49:37 GMT".
    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}
