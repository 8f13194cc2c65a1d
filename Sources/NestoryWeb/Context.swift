import Foundation
import HTTPTypes
import Hummingbird
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces
import NIOCore

/// Who is asking: the signed-in user and the household they act in.
/// What a page's script needs to prepare a photo: the long side past which it is downsized, the JPEG quality,
/// and the most the server accepts (a photo that cannot be downsized goes up as it is if it fits).
struct PhotoHints: Sendable {
    let longSide: Int
    let quality: Int
    let maxBytes: Int64

    init(_ limits: Limits) {
        (longSide, quality, maxBytes) = (limits.photoLongSide, limits.photoQuality, limits.maxPhotoBytes)
    }
}

public struct Viewer: Sendable {
    public let user: User
    public let household: Household
    public let role: MemberRole
    public let csrfToken: String
    let sessionTokenHash: String
    /// How this person wants the app to look (rendered on <html>, so the first paint is right).
    var theme = Theme.system
    /// How this person's browser prepares photos before upload (from the server's settings).
    var photos = PhotoHints(Limits())
    /// How this person reads dates and numbers: their browser's first language (Accept-Language).
    var locale = Locale(identifier: "en_US")
    /// Where this person's clock is: their browser's time zone (the `tz` cookie the app's script sets), else the
    /// server's.
    var timeZone = TimeZone.current
    /// How many reminders this person has (the badge on pages); filled for page loads.
    var reminders = 0
    /// The tips this person dismissed (filled for page loads).
    var dismissedTips: Set<Tip> = []
    /// The server's address as this browser reaches it (`https://host`), for links that leave the app.
    var origin: String?
    /// The app lock of this session (from the session middleware; the timeout from the lock middleware).
    var lock = SessionLock()
    /// The personal API token this request came with (`Authorization: Bearer`); nil for a browser's session.
    public var token: TokenGrant?

    /// A calendar day as people read it in their language ("Mar 5, 2024", "5 mars 2024"); ISO stays in
    /// form inputs and the API.
    func day(_ date: CalendarDate) -> String {
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateStyle = .medium
        formatter.timeStyle = .none
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard let noon = calendar.date(from: DateComponents(year: date.year, month: date.month, day: date.day, hour: 12)) else {
            return date.iso
        }
        return formatter.string(from: noon)
    }

    /// A moment (a report made, say) as people read it in their language and on their clock:
    /// "Nov 25, 2026 at 3:08 AM", "25 nov. 2026, 03:08".
    func moment(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.timeZone = timeZone
        formatter.dateStyle = .medium
        formatter.timeStyle = .short
        return formatter.string(from: date)
    }
}

/// The request context every route gets: the client's socket address (for rate limits; headers
/// such as X-Forwarded-For are never trusted for that) and, once the session middleware ran, the viewer.
public struct AppRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    public var viewer: Viewer?
    /// This request's id (X-Request-ID), set by the first middleware; in responses, error bodies and logs.
    public var requestID: String = ""

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The API's answers other than `JSONWriter`'s (JSONEncoder.api).
    public var responseEncoder: JSONEncoder { .api() }

    /// Uploads are streamed by their own routes; other bodies are small forms and JSON.
    public var maxUploadSize: Int { 1 << 20 }

    /// The signed-in viewer, or an error that sends a browser to sign in (and an API client a 401).
    public func requireViewer() throws -> Viewer {
        guard let viewer else { throw WebError.signInRequired }
        return viewer
    }

    /// Whether the client is on this machine (127.0.0.0/8 or ::1), by the socket's address.
    var isLoopback: Bool {
        switch remoteAddress {
        case .v4(let address): return address.host.hasPrefix("127.")
        case .v6(let address): return address.host == "::1" || address.host.hasPrefix("::ffff:127.")
        default: return false
        }
    }

    /// A key for per-client limits: the peer address without the port.
    var clientKey: String {
        switch remoteAddress {
        case .v4(let address): return address.host
        case .v6(let address): return address.host
        default: return "unknown"
        }
    }
}

/// Errors the web layer itself raises; the error middleware renders them.
enum WebError: Error, Equatable {
    case signInRequired
    case forbidden(String)
    case csrfFailed
    case badRequest(String)
    /// Well-formed but unusable input (a picture that is not an image, say): 422 with this message.
    case unprocessable(String)
    /// Barcode scanning is turned off (by the operator or the owner).
    case scanningDisabled
    /// An `Idempotency-Key` header that is not 1 to 255 printable ASCII characters (400).
    case idempotencyKeyInvalid
    /// A request with this `Idempotency-Key` is still running (409).
    case idempotencyKeyInUse
    /// The `Idempotency-Key` was used for a different request (422).
    case idempotencyKeyReused
    /// The session is locked (the app lock): 423 until it is unlocked with the password or a passkey.
    case locked
    /// Unlocking, or signing in with a passkey, failed (401) for this reason.
    case authenticationFailed(String)
    /// Too many failed attempts: wait this many seconds (429).
    case tooManyAttempts(seconds: Int)
    /// An `Authorization` header that is not a live personal API token (401).
    case invalidToken
    /// A token used where tokens are not accepted (the web pages): 401.
    case tokenNotAccepted
    /// The token's scope does not allow this request (403).
    case insufficientScope(String)
    /// A token's request budget is spent: wait this many seconds (429).
    case rateLimited(seconds: Int)
}

/// The token a request was authenticated with: its id (its rate limit) and scope.
public struct TokenGrant: Sendable, Hashable {
    public let id: String
    public let scope: TokenScope
}

/// A session's app lock as the request found it.
struct SessionLock: Sendable {
    /// The person's choice, in minutes (0: never), and the timeout in seconds it means on this server.
    var minutes = 0
    var timeout: TimeInterval = 0
    var lastActiveAt = Date.distantPast
    var locked = false
    /// How many passkeys the person has (the lock screen offers one when there is any).
    var passkeys = 0

    init() {}

    init(_ session: SessionRecord) {
        (minutes, lastActiveAt, locked, passkeys) = (session.lockMinutes, session.lastActiveAt, session.locked, session.passkeys)
    }
}

extension AppRequestContext {
    /// The item named by the route's `:id`; anything that is not an id is "not found", like another household's item.
    func itemID() throws -> ItemID {
        guard let id = parameters.get("id").flatMap(ItemID.init(string:)) else { throw DomainError.notFound("The item") }
        return id
    }
}

extension JSONEncoder {
    /// How the API writes JSON with Foundation: dates as ISO 8601 (as Hummingbird's default), keys in order (an answer
    /// reads the same every time, not in the order of a hash) and slashes as they are ("Asia/Kolkata", not "Asia\/Kolkata").
    static func api() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
