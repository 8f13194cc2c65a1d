import Foundation
import HTTPTypes
import Hummingbird
import NestoryDomain
import NestoryServices

/// Personal API tokens: Settings → API tokens (forms) and `/api/v1/tokens` (JSON). Making or revoking one needs a
/// signed-in person (TokenScopePolicy refuses tokens there); listing works with a token too.
struct TokensController {
    let dependencies: WebDependencies
    var tokens: TokenService { dependencies.services.tokens }

    func addRoutes(to router: Router<AppRequestContext>, api: RouterGroup<AppRequestContext>, settings: AccountController) {
        router.post("settings/tokens") { request, context in
            let viewer = try context.requireViewer()
            let form = try await Form.read(request, context: context)
            do {
                let made = try await create(viewer, name: form["name"] ?? "", scope: form["scope"] ?? "", expires: form["expires"])
                return try await settings.settings(viewer, notice: "Token made. Copy it now.", newToken: made)
            } catch DomainError.validation(let errors) {
                return try await settings.settings(viewer, tokenForm: form.first, tokenErrors: errors)
            }
        }
        router.post("settings/tokens/:id/revoke") { _, context in
            let viewer = try context.requireViewer()
            try await tokens.revoke(viewer.user.id, id: context.parameters.get("id") ?? "")
            return Response.redirect(to: "/settings#tokens", notice: "Token revoked.")
        }
        api.get("tokens") { _, context in
            let viewer = try context.requireViewer()
            return ListJSON(items: try await tokens.tokens(of: viewer.user.id).map(TokenJSON.init))
        }
        api.post("tokens") { request, context in
            let viewer = try context.requireViewer()
            let body: [String: JSONField]
            do { body = try await request.decode(as: [String: JSONField].self, context: context) } catch {
                throw WebError.badRequest("The body must be {\"name\": \"…\", \"scope\": \"read\" or \"write\", \"expires\": \"YYYY-MM-DD\" (optional)}.")
            }
            // A misspelt "expiresOn" is refused, not dropped: dropped, the token would never expire.
            let input = try JSONFields.texts(body, known: ["name", "scope", "expires"], of: "a token").get()
            let made = try await create(viewer, name: input["name"] ?? "", scope: input["scope"] ?? "", expires: input["expires"])
            var json = TokenJSON(made.summary)
            json.token = made.token
            return EditedResponse(status: .created, response: json)
        }
        api.delete("tokens/:id") { _, context in
            let viewer = try context.requireViewer()
            try await tokens.revoke(viewer.user.id, id: context.parameters.get("id") ?? "")
            return Response(status: .noContent)
        }
    }

    private func create(_ viewer: Viewer, name: String, scope: String, expires: String?) async throws -> (token: String, summary: APITokenSummary) {
        var date: CalendarDate?
        if let raw = expires?.trimmingCharacters(in: .whitespaces), !raw.isEmpty {
            do { date = try CalendarDate(iso: raw) } catch {
                throw DomainError.invalid(field: "expires", message: "The expiry is a date, YYYY-MM-DD.")
            }
        }
        return try await tokens.create(user: viewer.user.id, household: viewer.household.id, name: name, scope: scope, expires: date)
    }
}

/// A token as the API shows it; `token` only in the answer that made it.
struct TokenJSON: ResponseEncodable {
    let id: String
    let name: String
    let scope: String
    let createdAt: String
    let expiresAt: String?
    let lastUsedAt: String?
    var token: String?

    init(_ summary: APITokenSummary) {
        let iso = ISO8601DateFormatter()
        id = summary.id
        name = summary.name
        scope = summary.scope.rawValue
        createdAt = iso.string(from: summary.createdAt)
        expiresAt = summary.expiresAt.map { iso.string(from: $0) }
        lastUsedAt = summary.lastUsedAt.map { iso.string(from: $0) }
    }
}
