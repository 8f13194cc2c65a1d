import Foundation
import HTTPTypes
import Hummingbird
import NestoryDomain
import NestoryServices

/// The app lock, enforced here (the page's lock screen is a courtesy on top): a session whose person has not been
/// active for their chosen time is locked, and stays locked until they unlock it with their password or a passkey.
/// While it is locked only unlocking, locking, signing out and the session's state (`GET /api/v1/session`) are
/// reached; a page load gets the lock page (423), which returns to the same address once unlocked; everything else
/// is refused with 423 and the code `locked` (through the error middleware, like every error).
///
/// What counts as a person's activity (what keeps the session unlocked):
/// - a page load: a navigation (`Sec-Fetch-Mode: navigate`; from a client without Sec-Fetch headers, a GET that
///   asks for HTML), and
/// - a request that changes something (not GET, HEAD or OPTIONS), unless it carries `X-Nestory-Background: 1`.
/// The page's own background traffic never counts, so a page left open still locks: its polls (job progress,
/// receipts being read) are script GETs asking for JSON, and its offline-queue replays, error reports and usage
/// counters say `X-Nestory-Background: 1`. A person typing or tapping without reaching the server is reported by
/// the page itself (`POST /session/activity`, at most once per AppLock.granularity).
struct AppLockMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let security: SecurityService
    let secondsPerMinute: TimeInterval
    let now: @Sendable () -> Date

    static let backgroundHeader = HTTPField.Name("X-Nestory-Background")!

    /// Reached while locked (exact paths), besides the calendar feed, which its secret address authorises.
    static let reachableWhileLocked: Set<String> = ["/unlock", "/unlock/passkey/options", "/unlock/passkey", "/lock", "/signout",
                                                   "/api/v1/session"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // A token has no session to lock (the lock guards a device left open).
        guard let viewer = context.viewer, viewer.token == nil else { return try await next(request, context) }
        var context = context
        let timeout = TimeInterval(viewer.lock.minutes) * secondsPerMinute
        context.viewer?.lock.timeout = timeout
        let at = now()
        let path = request.uri.path
        if AppLock.isLocked(timeout: timeout, lastActive: viewer.lock.lastActiveAt, lockedFlag: viewer.lock.locked, now: at) {
            if !viewer.lock.locked { try await security.lock(session: viewer.sessionTokenHash) }
            context.viewer?.lock.locked = true
            if Self.reachableWhileLocked.contains(path) || path.hasPrefix("/calendar/") { return try await next(request, context) }
            if Self.isNavigation(request) {
                // A form posted without script cannot be kept; the lock page then returns to the page it came from.
                let back = request.method == .get ? path + (request.uri.query.map { "?" + $0 } ?? "") : Self.referrerPath(request)
                return HTMLResponse.page(LockViews.page(viewer: context.viewer!, next: back), status: .locked)
            }
            throw WebError.locked
        }
        if Self.countsAsActivity(request), AppLock.shouldRecordActivity(timeout: timeout, lastActive: viewer.lock.lastActiveAt, now: at) {
            try await security.recordActivity(session: viewer.sessionTokenHash)
        }
        return try await next(request, context)
    }

    /// A person's action (see the type's comment).
    static func countsAsActivity(_ request: Request) -> Bool {
        switch request.method {
        case .get, .head: return isNavigation(request)
        case .options: return false
        default: return request.headers[backgroundHeader] != "1"
        }
    }

    /// A page the browser is loading (not a script's request), by Sec-Fetch-Mode where the browser sends it.
    static func isNavigation(_ request: Request) -> Bool {
        guard !request.uri.path.hasPrefix("/api/") else { return false }
        if let mode = request.headers[HTTPField.Name("Sec-Fetch-Mode")!] { return mode == "navigate" }
        return request.headers[.accept]?.contains("text/html") == true
    }

    /// The same-site page a form was posted from, for the lock page to return to ("/" when unknown).
    static func referrerPath(_ request: Request) -> String {
        guard let referrer = request.headers[.referer], let url = URL(string: referrer), url.host == nil || url.host == request.head.authority?
            .split(separator: ":").first.map(String.init) else { return "/" }
        return AccountController.safeNext(url.path + (url.query.map { "?" + $0 } ?? "")) ?? "/"
    }
}
