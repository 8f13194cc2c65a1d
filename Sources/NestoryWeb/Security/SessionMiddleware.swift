import Foundation
import Hummingbird
import HTTPTypes
import NestoryAuth
import NestoryDomain
import NestoryServices
import NestoryStoreInterfaces

/// Cookie settings shared by sign-in, sign-out and the middleware.
public struct CookiePolicy: Sendable {
    /// Sets `Secure` on cookies: on whenever the server is reached over HTTPS (behind a proxy).
    public var secure: Bool
    public var sessionLifetime: TimeInterval

    public init(secure: Bool = false, sessionLifetime: TimeInterval = 30 * 24 * 3600) {
        self.secure = secure
        self.sessionLifetime = sessionLifetime
    }

    static let sessionCookie = "nestory_session"
    static let csrfCookie = "nestory_csrf"

    func session(_ token: String) -> Cookie {
        Cookie(name: Self.sessionCookie, value: token, maxAge: Int(sessionLifetime), path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }

    func expiredSession() -> Cookie {
        Cookie(name: Self.sessionCookie, value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }

    /// The pre-sign-in CSRF token (double-submit: cookie and hidden field must match).
    func csrf(_ token: String) -> Cookie {
        Cookie(name: Self.csrfCookie, value: token, path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }

    /// The time zone the browser said it is in: the `tz` cookie the app's script sets (an IANA name), nil without one or
    /// with a name this system does not know.
    static func browserTimeZone(_ request: Request) -> TimeZone? {
        guard let name = request.cookies["tz"]?.value.removingPercentEncoding, name.count <= 64 else { return nil }
        return TimeZone(identifier: name)
    }
}

/// Loads the viewer from the session cookie, and refuses state-changing requests that fail the
/// CSRF check: a token in the `X-CSRF-Token` header or the `_csrf` form field must match the
/// session's (or, before sign-in, the CSRF cookie's), and a cross-origin `Origin` is refused.
struct SessionMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    /// Sessions, their users and households, on whichever engine the bootstrap chose.
    let accounts: any AccountStore
    /// The store's free "anything committed?" counter, where it has one (SQLite): while it holds, the cache answers
    /// without reading even the account version.
    let commits: (any CommitCounter)?
    let cookies: CookiePolicy
    let now: @Sendable () -> Date
    /// How signed-in pages' scripts prepare photos (from the settings).
    var photos = PhotoHints(Limits())
    let sessions = SessionCache()

    /// Personal API tokens (`Authorization: Bearer`), for the API and MCP only.
    var tokens: TokenService?

    init(accounts: any AccountStore, cookies: CookiePolicy, now: @escaping @Sendable () -> Date, photos: PhotoHints = PhotoHints(Limits()),
         tokens: TokenService? = nil) {
        self.accounts = accounts
        commits = accounts as? any CommitCounter
        self.cookies = cookies
        self.now = now
        self.photos = photos
        self.tokens = tokens
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        var request = request
        if let authorization = request.headers[.authorization] {
            // A bearer token is never sent by a browser on its own, so a request carrying one cannot be forged by
            // another site: it needs no CSRF token or Origin check. A cookie on the same request is ignored.
            context.viewer = try await bearerViewer(authorization, request: request)
            return try await next(request, context)
        }
        // MCP takes a bearer token only: without one it is 401, as MCP clients expect, not a CSRF refusal or a sign-in page.
        if request.uri.path == "/mcp" { throw WebError.invalidToken }
        if let token = request.cookies[CookiePolicy.sessionCookie]?.value, !token.isEmpty {
            let hash = SessionToken.hash(token)
            let at = now()
            if let (session, household, role) = try await sessions.session(
                tokenHash: hash, now: at, committed: try? commits?.commitCount(), accountVersion: { try await accounts.accountVersion() },
                lookup: { try await accounts.sessionWithMembership(tokenHash: hash, now: at) }) {
                context.viewer = Viewer(user: session.user, household: household, role: role,
                                        csrfToken: session.csrfToken, sessionTokenHash: hash, theme: session.theme, photos: photos)
                context.viewer?.lock = SessionLock(session)
                if let language = request.headers[.acceptLanguage]?.split(separator: ",").first?.split(separator: ";").first
                    .map({ $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "-", with: "_") }),
                   !language.isEmpty, language.count <= 35, language != "*" {
                    context.viewer?.locale = Locale(identifier: language)
                }
                if let zone = CookiePolicy.browserTimeZone(request) { context.viewer?.timeZone = zone }
                if at.timeIntervalSince(session.lastSeenAt) > 60 {
                    try await accounts.touchSession(tokenHash: hash, now: at, expiresAt: at.addingTimeInterval(cookies.sessionLifetime))
                }
            }
        }
        if ![.get, .head, .options].contains(request.method) {
            try checkOrigin(request)
            try await checkCSRF(&request, context: context)
        }
        return try await next(request, context)
    }

    /// The viewer a bearer token stands for, after its scope and its request budget allow this request.
    private func bearerViewer(_ authorization: String, request: Request) async throws -> Viewer {
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", let tokens,
              let access = try await tokens.authenticate(parts[1].trimmingCharacters(in: .whitespaces)) else {
            throw WebError.invalidToken
        }
        try TokenScopePolicy.check(access.scope, method: request.method, path: request.uri.path)
        if let wait = try await tokens.admit(access) { throw WebError.rateLimited(seconds: wait) }
        var viewer = Viewer(user: access.user, household: access.household, role: access.role, csrfToken: "", sessionTokenHash: "",
                            photos: photos)
        viewer.token = TokenGrant(id: access.id, scope: access.scope)
        return viewer
    }

    private func checkOrigin(_ request: Request) throws {
        guard let origin = request.headers[.origin], origin != "null" else { return }
        let host = request.head.authority ?? ""
        guard let originHost = URL(string: origin).flatMap({ url in url.host.map { $0 + (url.port.map { ":\($0)" } ?? "") } }),
              originHost == host else {
            throw WebError.forbidden("This request came from another site and was refused.")
        }
    }

    private func checkCSRF(_ request: inout Request, context: Context) async throws {
        let expected = context.viewer?.csrfToken ?? request.cookies[CookiePolicy.csrfCookie]?.value
        var presented = request.headers[HTTPField.Name("X-CSRF-Token")!]
        if presented == nil, request.headers[.contentType]?.hasPrefix("application/x-www-form-urlencoded") == true {
            let buffer = try await request.collectBody(upTo: context.maxUploadSize)
            presented = Form(String(buffer: buffer))["_csrf"]
        }
        guard let expected, !expected.isEmpty, let presented, SessionToken.constantTimeEquals(expected, presented) else {
            throw WebError.csrfFailed
        }
    }
}

/// What a personal API token may reach, decided here and nowhere else: the API (`/api/v1`) and MCP (`/mcp`) only, never
/// the pages; the household's photos and receipts (`/files/SHA`), a backup's archive
/// (`/settings/data/export/ID/download`) and a report's PDF (`/reports/ID/download`), read, since the API's and the
/// tools' answers link to them there (a job's or the history's `links.download`); a read token only GET and HEAD (MCP's own tools are filtered by scope, since every MCP message is a
/// POST); and no token manages tokens (making or revoking one needs a signed-in person).
enum TokenScopePolicy {
    static func check(_ scope: TokenScope, method: HTTPRequest.Method, path: String) throws {
        if path == "/mcp" || path.hasPrefix("/mcp/") { return }
        let reads = method == .get || method == .head
        if reads, path.hasPrefix("/files/") { return }
        if reads, path.hasPrefix("/settings/data/export/"), path.hasSuffix("/download"), path.split(separator: "/").count == 5 { return }
        if reads, path.hasPrefix("/reports/"), path.hasSuffix("/download"), path.split(separator: "/").count == 3 { return }
        guard path.hasPrefix("/api/v1/") else { throw WebError.tokenNotAccepted }
        if path == "/api/v1/tokens" || path.hasPrefix("/api/v1/tokens/") {
            if reads { return }
            throw WebError.insufficientScope("Tokens are made and revoked by a signed-in person (Settings or `nestory token`), not with a token.")
        }
        if scope == .read, !reads {
            throw WebError.insufficientScope("This token is read-only: it cannot change anything. Make a read and write token for this.")
        }
    }
}
