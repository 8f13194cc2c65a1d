import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces
import Synchronization

/// What the operator's side of the server needs from the bootstrap: who may read /metrics and how its text
/// is made, and the checks /health/ready runs.
public struct Operations: Sendable {
    /// Who may read `/metrics`.
    public enum MetricsAccess: Sendable, Equatable {
        case off
        /// Only clients on this machine (the socket's address, never a forwarding header).
        case loopback
        /// Anyone presenting `Authorization: Bearer TOKEN`.
        case token(String)
    }

    /// One readiness check: a name and what it found (nil when all is well).
    public struct Check: Sendable {
        public let name: String
        public let run: @Sendable () async -> String?

        public init(name: String, run: @escaping @Sendable () async -> String?) {
            self.name = name
            self.run = run
        }
    }

    public var metrics: MetricsAccess
    /// The metrics in Prometheus' text format.
    public var emitMetrics: @Sendable () -> String
    public var checks: [Check]

    public init(metrics: MetricsAccess = .off, emitMetrics: @escaping @Sendable () -> String = { "" }, checks: [Check] = []) {
        self.metrics = metrics
        self.emitMetrics = emitMetrics
        self.checks = checks
    }
}

/// `X-Request-ID` on every response (the caller's, when it is a sane one, else a new one), the same id in
/// error bodies and the log, and one access-log line per request.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let logger: Logger

    static let header = HTTPField.Name("X-Request-ID")!

    /// A caller's id is kept if it is 1 to 64 letters, digits, `-`, `_` or `.`.
    static func sane(_ id: String?) -> String? {
        guard let id, (1...64).contains(id.utf8.count),
              id.utf8.allSatisfy({ $0.isASCIILetterOrDigit || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") })
        else { return nil }
        return id
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.requestID = Self.sane(request.headers[Self.header]) ?? UUID().uuidString.lowercased()
        let start = ContinuousClock.now
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            log(request, context, status: 500, start: start)
            throw error
        }
        response.headers[Self.header] = context.requestID
        log(request, context, status: Int(response.status.code), start: start)
        return response
    }

    private func log(_ request: Request, _ context: Context, status: Int, start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        logger.info("request", metadata: [
            "method": .string(request.method.rawValue), "path": .string(Self.loggedPath(request.uri.path)), "status": .stringConvertible(status),
            "ms": .string(String(format: "%.1f", milliseconds)), "request_id": .string(context.requestID),
            // The connection's address (behind a proxy, the proxy's: the one the sign-in limits count), for fail2ban and
            // for finding one client's requests.
            "client": .string(context.remoteAddress?.ipAddress ?? "-"),
        ])
    }
}

extension RequestLogMiddleware {
    /// The path as the log shows it: a calendar feed's address is its secret (whoever has it reads the household's
    /// warranties), so it is not written where everyone who reads the logs would have it.
    static func loggedPath(_ path: String) -> String {
        path.hasPrefix("/calendar/") ? "/calendar/(secret)" : path
    }
}

extension UInt8 {
    fileprivate var isASCIILetterOrDigit: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}

/// `GET /health` (cheap: the process answers) and `GET /health/ready` (can it do its work: database
/// writable, room on disk, native libraries, OCR), and `GET /metrics` for Prometheus.
struct HealthController {
    let database: any DatabaseStatus
    let operations: Operations
    /// Read once, at the first ask: the schema does not change while the server runs.
    let schema: SchemaVersion

    init(database: any DatabaseStatus, operations: Operations) {
        self.database = database
        self.operations = operations
        schema = SchemaVersion(database)
    }

    /// The schema's version, read from the database on the first `/health` and kept.
    final class SchemaVersion: Sendable {
        let database: any DatabaseStatus
        let known = Mutex<String??>(nil)

        init(_ database: any DatabaseStatus) { self.database = database }

        func value() async -> String? {
            if let known = known.withLock({ $0 }) { return known }
            guard let applied = try? await database.appliedMigrations() else { return nil }
            known.withLock { $0 = .some(applied.last) }
            return applied.last
        }
    }

    struct Health: ResponseEncodable {
        let status: String
        let version: String
        let schema: String?
    }

    struct Readiness: ResponseEncodable {
        struct Check: Encodable {
            let name: String
            let ok: Bool
            let detail: String?
        }
        let status: String
        let checks: [Check]
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("health") { _, _ -> Health in
            Health(status: "ok", version: NestoryVersion.current, schema: await schema.value())
        }
        router.get("health/ready") { _, _ -> EditedResponse<Readiness> in
            var checks: [Readiness.Check] = []
            let writable: String?
            do { try await database.checkWritable(); writable = nil } catch { writable = "the database cannot be written: \(error)" }
            checks.append(.init(name: "database", ok: writable == nil, detail: writable))
            for check in operations.checks {
                let problem = await check.run()
                checks.append(.init(name: check.name, ok: problem == nil, detail: problem))
            }
            let ready = checks.allSatisfy(\.ok)
            return EditedResponse(status: ready ? .ok : .serviceUnavailable,
                                  response: Readiness(status: ready ? "ready" : "not_ready", checks: checks))
        }
        router.get("metrics") { request, context -> Response in
            switch operations.metrics {
            case .off:
                throw HTTPError(.notFound)
            case .loopback:
                guard context.isLoopback else { throw HTTPError(.notFound) }
            case .token(let token):
                let given = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil } ?? ""
                guard Self.constantTimeEqual(given, token) else {
                    return Response(status: .unauthorized, headers: [.wwwAuthenticate: "Bearer"])
                }
            }
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: operations.emitMetrics())))
        }
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }
}
