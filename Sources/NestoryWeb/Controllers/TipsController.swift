import Foundation
import HTTPTypes
import Hummingbird
import NestoryDomain
import NestoryServices

/// Dismissing a tip (remembered per user), and showing them all again.
struct TipsController {
    let dependencies: WebDependencies

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post("tips/:tip/dismiss", use: dismiss)
        router.post("settings/tips/reset", use: reset)
    }

    /// The script's fetch gets 204; a form posted without script goes back to the page it came from.
    @Sendable func dismiss(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        try await dependencies.accounts.dismissTip(viewer.user.id, context.parameters.get("tip") ?? "")
        if request.headers[.accept]?.contains("application/json") == true { return Response(status: .noContent) }
        let back = try await Form.read(request, context: context)["back"]
        return .redirect(to: AccountController.safeNext(back) ?? "/")
    }

    @Sendable func reset(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        try await dependencies.accounts.resetTips(viewer.user.id)
        return .redirect(to: "/settings#appearance", notice: "Tips will show again.")
    }
}
