import Foundation

/// The app lock (spec §7.4, "Lock after 5 minutes inactive"): a signed-in session that has not been used for
/// the person's chosen time is locked, on the server, until they unlock it with their password or a passkey.
public enum AppLock {
    /// The choices Settings offers, in minutes (0: never lock).
    public static let choices = [0, 1, 5, 15]

    /// A choice as people read it.
    public static func label(minutes: Int) -> String {
        switch minutes {
        case 0: "Never"
        case 1: "After 1 minute"
        default: "After \(minutes) minutes"
        }
    }

    public static func validated(minutes raw: String) throws -> Int {
        guard let minutes = Int(raw.trimmingCharacters(in: .whitespaces)), choices.contains(minutes) else {
            throw DomainError.invalid(field: "lock", message: "Choose never, or 1, 5 or 15 minutes.")
        }
        return minutes
    }

    /// How finely activity is recorded for a timeout: the page reports a person's typing and tapping at most this
    /// often, and the server writes a session's last activity at most this often (a tenth of the timeout, at most
    /// 15 s; every 60 s with no lock).
    public static func granularity(timeout: TimeInterval) -> TimeInterval {
        timeout <= 0 ? 60 : min(15, timeout / 10)
    }

    /// Whether a session is locked now. The page locks itself at `timeout` after the person's last action; the server
    /// allows twice the granularity more, since it hears of activity that much later at worst, so a page still in use
    /// never meets a locked server first.
    public static func isLocked(timeout: TimeInterval, lastActive: Date, lockedFlag: Bool, now: Date) -> Bool {
        if lockedFlag { return true }
        guard timeout > 0 else { return false }
        return now.timeIntervalSince(lastActive) > timeout + 2 * granularity(timeout: timeout)
    }

    /// Whether a new activity should be written (the stored one is older than the granularity).
    public static func shouldRecordActivity(timeout: TimeInterval, lastActive: Date, now: Date) -> Bool {
        now.timeIntervalSince(lastActive) >= granularity(timeout: timeout)
    }
}
