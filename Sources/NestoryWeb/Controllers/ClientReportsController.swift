import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import NestoryDomain
import NestoryServices

/// What the pages report about themselves (issue 16): the capture screen's counters. Nothing personal is
/// kept: a counter is a name from a fixed list.
struct ClientReportsController {
    let dependencies: WebDependencies

    func addRoutes(to api: RouterGroup<AppRequestContext>) {
        api.post("events", use: event)
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
}
