import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NestoryDomain
import NestoryServices

/// What the pages report about themselves (issue 16): the capture screen's counters and non-fatal errors.
/// Neither keeps anything personal: a counter is a name from a fixed list, and an error's text is cut short
/// and loses anything that looks like an email address, an id or a long number before it reaches the log.
struct ClientReportsController {
    let dependencies: WebDependencies

    func addRoutes(to api: RouterGroup<AppRequestContext>) {
        api.post("events", use: event)
        api.post("client-errors", use: clientError)
    }

    /// `{"event": NAME}`: one more for today's counter (UTC) of that name; 204.
    @Sendable func event(_ request: Request, context: AppRequestContext) async throws -> Response {
        struct Body: Decodable { let event: String }
        let viewer = try context.requireViewer()
        let body: Body
        do { body = try await request.decode(as: Body.self, context: context) } catch {
            throw WebError.badRequest("The body must be {\"event\": NAME} (see /api/v1/openapi.json).")
        }
        guard let event = CaptureEvent(rawValue: body.event) else {
            throw DomainError.invalid(field: "event", message: "event is one of \(CaptureEvent.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        if try await dependencies.services.captureCounters.record(event, household: viewer.household.id) {
            Counter(label: "nestory_capture_events_total", dimensions: [("event", event.rawValue)]).increment()
        }
        return Response(status: .noContent)
    }

    /// `{"kind": "uncaught"|"upload", "message": TEXT, "page": PATH}`: one warning in the log with the request
    /// id, the message scrubbed and cut to 300 characters, the page reduced to its path; 204.
    @Sendable func clientError(_ request: Request, context: AppRequestContext) async throws -> Response {
        struct Body: Decodable {
            let kind: String
            let message: String
            let page: String
        }
        let viewer = try context.requireViewer()
        let body: Body
        do { body = try await request.decode(as: Body.self, context: context) } catch {
            throw WebError.badRequest("The body must be {\"kind\": \"uncaught\" or \"upload\", \"message\": TEXT, \"page\": PATH}.")
        }
        guard ["uncaught", "upload"].contains(body.kind) else {
            throw DomainError.invalid(field: "kind", message: "kind is uncaught or upload.")
        }
        if let seconds = try await dependencies.services.clientErrors.admit(session: viewer.sessionTokenHash) {
            var response = ErrorMiddleware.response(.tooManyRequests, code: "too_many_reports",
                                                    message: "Too many error reports from this page. Try again in \(seconds) s.")
            response.headers[.retryAfter] = String(seconds)
            return response
        }
        dependencies.logger.warning("client error", metadata: [
            "request_id": .string(context.requestID), "kind": .string(body.kind),
            "page": .string(ClientReport.page(body.page)), "message": .string(ClientReport.message(body.message)),
        ])
        return Response(status: .noContent)
    }
}

/// Makes a page's error report safe to log.
enum ClientReport {
    static let maxMessage = 300

    /// The text without email addresses, UUIDs, runs of 6 or more digits, query strings or control
    /// characters, at most 300 characters.
    static func message(_ raw: String) -> String {
        var text = String(raw.prefix(4_000))
        text = scrub(text)
        text = String(text.map { $0.isNewline || ($0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } ?? false) ? " " : $0 })
        if text.count > maxMessage { text = String(text.prefix(maxMessage - 1)) + "…" }
        return text
    }

    /// The page's path: no scheme or host, no query or fragment, ids and long numbers replaced.
    static func page(_ raw: String) -> String {
        var path = String(raw.prefix(2_000))
        if let url = URL(string: path), url.scheme != nil { path = url.path }
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = String(path[..<cut]) }
        path = scrub(path).filter { !$0.isWhitespace && !$0.isNewline }
        guard path.hasPrefix("/") else { return "/" }
        return String(path.prefix(200))
    }

    private static func scrub(_ text: String) -> String {
        text.replacing(/[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(\.[A-Za-z0-9\-]+)+/, with: "[email]")
            .replacing(/[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}/, with: "[id]")
            .replacing(/[0-9]{6,}/, with: "[number]")
            .replacing(/\?[^\s"'<>)]+/, with: "?[query]")
    }
}
