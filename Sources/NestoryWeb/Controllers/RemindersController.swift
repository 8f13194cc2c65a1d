import Foundation
import HTTPTypes
import Hummingbird
import NestoryDomain
import NestoryReminders
import NestoryServices
import NestoryStore

/// The reminders list, Settings → Notifications (per user), the calendar feed and the household's webhook.
struct RemindersController {
    let dependencies: WebDependencies

    var reminders: RemindersService { dependencies.services.reminders }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("reminders", use: list)
        router.post("settings/notifications", use: setPreferences)
        router.post("settings/calendar", use: calendarFeed)
        router.post("settings/webhook", use: setWebhook)
        router.post("settings/webhook/remove", use: removeWebhook)
        router.post("settings/webhook/test", use: testWebhook)
        router.get("calendar/:file", use: calendar)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let overview = try await reminders.overview(user: viewer.user.id, household: viewer.household)
        return HTMLResponse.page(ReminderViews.list(viewer: viewer, overview: overview, notice: request.notice))
    }

    @Sendable func setPreferences(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let form = try await Form.read(request, context: context)
        let preferences = ReminderPreferences(warranties: form["warranties"] != nil, weeklyNudge: form["nudge"] != nil)
        try await reminders.setPreferences(viewer.user.id, preferences)
        return .redirect(to: "/settings#notifications", notice: "Notifications saved.")
    }

    /// Makes, replaces or removes the user's calendar feed address.
    @Sendable func calendarFeed(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        if try await Form.read(request, context: context)["action"] == "remove" {
            try await reminders.removeCalendarFeed(viewer.user.id)
            return .redirect(to: "/settings#notifications", notice: "The calendar address was removed; calendars subscribed to it stop updating.")
        }
        let had = try await reminders.calendarToken(viewer.user.id) != nil
        _ = try await reminders.resetCalendarFeed(viewer.user.id)
        return .redirect(to: "/settings#notifications", notice: had
            ? "A new calendar address was made; the old one no longer works." : "Your calendar address is ready: add it to your calendar app.")
    }

    /// The feed itself: `/calendar/TOKEN.ics`. No session: the secret address is the key.
    @Sendable func calendar(_ request: Request, context: AppRequestContext) async throws -> Response {
        var token = context.parameters.get("file") ?? ""
        if token.hasSuffix(".ics") { token.removeLast(4) }
        guard let text = try await reminders.calendar(token: token, origin: Self.origin(request, secure: dependencies.cookies.secure)) else {
            throw DomainError.notFound("This calendar")
        }
        var headers = HTTPFields()
        headers[.contentType] = CalendarFeed.contentType
        headers[.cacheControl] = "private, max-age=300"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    @Sendable func setWebhook(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let form = try await Form.read(request, context: context)
        let url = form["url"] ?? ""
        do {
            try await reminders.setWebhook(viewer.household.id, by: viewer.role, url: url, newSecret: form["newSecret"] != nil)
        } catch let error as DomainError {
            if case .forbidden = error { throw error }
            return try await AccountController(dependencies: dependencies).settings(viewer, webhookForm: ["url": url],
                                                                              webhookErrors: FieldErrors.fields(of: error))
        }
        return .redirect(to: "/settings#notifications", notice: "Webhook saved.")
    }

    @Sendable func removeWebhook(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        try await reminders.removeWebhook(viewer.household.id, by: viewer.role)
        return .redirect(to: "/settings#notifications", notice: "Webhook removed.")
    }

    @Sendable func testWebhook(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        try await reminders.sendTest(viewer.household.id, by: viewer.role)
        return .redirect(to: "/settings#notifications", notice: "A test event is on its way; reload to see how it was answered.")
    }

    /// The server's address as the browser reached it, for links that leave the page (calendar apps).
    static func origin(_ request: Request, secure: Bool) -> String? {
        guard let authority = request.head.authority, !authority.isEmpty,
              authority.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.:[]".contains($0)) }) else { return nil }
        return (secure ? "https://" : "http://") + authority
    }
}

/// For signed-in page loads: the number of the viewer's reminders (the bell's badge) and the tips they
/// dismissed, in one read of their choices; for every signed-in request, the server's address as the browser
/// reached it.
struct ViewerPreferencesMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let reminders: RemindersService
    let secure: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        guard let viewer = context.viewer else { return try await next(request, context) }
        context.viewer?.origin = RemindersController.origin(request, secure: secure)
        let path = request.uri.path
        if request.method == .get, !path.hasPrefix("/api/"), !path.hasPrefix("/assets/"), !path.hasPrefix("/files/"),
           let (preferences, tips) = try? await reminders.pagePreferences(viewer.user.id) {
            context.viewer?.dismissedTips = tips
            context.viewer?.reminders = (try? await reminders.overview(preferences: preferences, household: viewer.household).count) ?? 0
        }
        return try await next(request, context)
    }
}
