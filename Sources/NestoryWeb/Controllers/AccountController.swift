import Foundation
import HTTPTypes
import Hummingbird
import NestoryAuth
import NestoryDomain
import NestoryStore

/// First-run set-up, sign in and out, and the household's members.
struct AccountController {
    let dependencies: WebDependencies

    var database: AppDatabase { dependencies.database }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("setup", use: setupPage)
        router.post("setup", use: setup)
        router.get("signin", use: signInPage)
        router.post("signin", use: signIn)
        router.post("signout", use: signOut)
        router.get("settings", use: settingsPage)
        router.post("settings/members", use: addMember)
        router.post("settings/members/:userID/remove", use: removeMember)
        router.post("settings/password", use: changePassword)
    }

    // MARK: - First run

    @Sendable func setupPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard try !database.hasUsers() else { return .redirect(to: "/signin") }
        return try pageWithCSRF(request) { csrf in AccountViews.setup(csrf: csrf, form: [:], errors: []) }
    }

    @Sendable func setup(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard try !database.hasUsers() else { return .redirect(to: "/signin") }
        let form = try await Form.read(request, context: context)
        let values = ["household": form["household"] ?? "", "currency": form["currency"] ?? "USD", "name": form["name"] ?? "",
                      "email": form["email"] ?? ""]
        var errors: [FieldError] = []
        func collect(_ body: () throws -> Void) {
            do { try body() } catch let error as DomainError {
                if case .validation(let fields) = error { errors += fields } else { errors.append(FieldError(field: "form", message: error.message)) }
            } catch { errors.append(FieldError(field: "form", message: "\(error)")) }
        }
        var currency = CurrencyCode.usd
        collect { _ = try Household.validatedName(values["household"]!) }
        collect { currency = try CurrencyCode(values["currency"]!) }
        collect { _ = try User.normalizedEmail(values["email"]!) }
        collect { try PasswordPolicy.validate(form["password"] ?? "") }
        if form["password"] != form["confirm"] {
            errors.append(FieldError(field: "confirm", message: "The two passwords are not the same."))
        }
        let csrf = request.cookies[CookiePolicy.csrfCookie]?.value ?? ""
        guard errors.isEmpty, let password = form["password"] else {
            return HTMLResponse.page(AccountViews.setup(csrf: csrf, form: values, errors: errors), status: .unprocessableContent)
        }
        let hash = try await offload { try dependencies.passwordHasher.hash(password) }
        let now = dependencies.now()
        let user = try database.createUser(email: values["email"]!, displayName: values["name"]!, passwordHash: hash, now: now)
        let household = try database.createHousehold(name: values["household"]!, currency: currency, now: now)
        try database.addMember(household.id, user: user.id, role: .owner, now: now)
        return try startSession(for: user.id, redirectTo: "/")
    }

    // MARK: - Sign in and out

    @Sendable func signInPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard try database.hasUsers() else { return .redirect(to: "/setup") }
        if context.viewer != nil { return .redirect(to: "/") }
        let next = request.uri.queryParameters["next"].map(String.init)
        return try pageWithCSRF(request) { csrf in AccountViews.signIn(csrf: csrf, email: "", next: next, message: nil) }
    }

    @Sendable func signIn(_ request: Request, context: AppRequestContext) async throws -> Response {
        let form = try await Form.read(request, context: context)
        let email = (form["email"] ?? "").trimmingCharacters(in: .whitespaces)
        let next = Self.safeNext(form["next"])
        let csrf = request.cookies[CookiePolicy.csrfCookie]?.value ?? ""
        let now = dependencies.now()
        let accountKey = "account:" + email.lowercased()
        let clientKey = "client:" + context.clientKey
        for key in [accountKey, clientKey] {
            if let wait = await dependencies.signInLimiter.retryAfter(key, now: now) {
                var response = HTMLResponse.page(
                    AccountViews.signIn(csrf: csrf, email: email, next: next,
                                        message: "Too many attempts. Wait \(wait) seconds and try again."),
                    status: .tooManyRequests)
                response.headers[.retryAfter] = String(wait)
                return response
            }
        }
        let password = form["password"] ?? ""
        let credentials = try database.userCredentials(email: email)
        let hasher = dependencies.passwordHasher
        let dummy = dependencies.dummyPasswordHash
        // An unknown email costs the same hash check as a wrong password, and gets the same answer.
        let valid = await offload { hasher.verify(password, against: credentials?.passwordHash ?? dummy) }
        guard let credentials, valid else {
            await dependencies.signInLimiter.recordFailure(accountKey, now: now)
            await dependencies.signInLimiter.recordFailure(clientKey, now: now)
            return HTMLResponse.page(
                AccountViews.signIn(csrf: csrf, email: email, next: next, message: "That email and password don’t match an account."),
                status: .unauthorized)
        }
        await dependencies.signInLimiter.reset(accountKey)
        return try startSession(for: credentials.user.id, redirectTo: next ?? "/")
    }

    @Sendable func signOut(_ request: Request, context: AppRequestContext) async throws -> Response {
        if let viewer = context.viewer { try database.deleteSession(tokenHash: viewer.sessionTokenHash) }
        var response = Response.redirect(to: "/signin")
        response.setCookie(dependencies.cookies.expiredSession())
        return response
    }

    // MARK: - Settings: members and password

    @Sendable func settingsPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        return HTMLResponse.page(AccountViews.settings(viewer: viewer, members: try database.members(of: viewer.household.id),
                                                       form: [:], errors: [], notice: request.uri.queryParameters["notice"].map(String.init),
                                                       onlineLookup: try database.onlineProductLookup(viewer.household.id)))
    }

    @Sendable func addMember(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        guard viewer.role == .owner else { throw WebError.forbidden("Only the household’s owner can add members.") }
        let form = try await Form.read(request, context: context)
        let values = ["email": form["email"] ?? "", "name": form["name"] ?? ""]
        do {
            let password = form["password"] ?? ""
            try PasswordPolicy.validate(password)
            _ = try User.normalizedEmail(values["email"]!)
            let hash = try await offload { try dependencies.passwordHasher.hash(password) }
            let user = try database.createUser(email: values["email"]!, displayName: values["name"]!, passwordHash: hash, now: dependencies.now())
            try database.addMember(viewer.household.id, user: user.id, role: .member, now: dependencies.now())
            return .redirect(to: "/settings?notice=" + (user.email.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") + "+added")
        } catch let error as DomainError {
            let fields: [FieldError]
            if case .validation(let list) = error { fields = list } else { fields = [FieldError(field: "email", message: error.message)] }
            return HTMLResponse.page(AccountViews.settings(viewer: viewer, members: try database.members(of: viewer.household.id),
                                                           form: values, errors: fields, notice: nil), status: .unprocessableContent)
        }
    }

    @Sendable func removeMember(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        guard viewer.role == .owner else { throw WebError.forbidden("Only the household’s owner can remove members.") }
        guard let id = context.parameters.get("userID").flatMap(UserID.init(string:)) else { throw DomainError.notFound("The member") }
        try database.removeMember(viewer.household.id, user: id)
        return .redirect(to: "/settings?notice=Member+removed")
    }

    @Sendable func changePassword(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let form = try await Form.read(request, context: context)
        guard let credentials = try database.userCredentials(email: viewer.user.email),
              await offload({ dependencies.passwordHasher.verify(form["current"] ?? "", against: credentials.passwordHash) }) else {
            return HTMLResponse.page(AccountViews.settings(viewer: viewer, members: try database.members(of: viewer.household.id), form: [:],
                                                           errors: [FieldError(field: "current", message: "That is not your current password.")],
                                                           notice: nil), status: .unprocessableContent)
        }
        let password = form["password"] ?? ""
        do { try PasswordPolicy.validate(password) } catch {
            return HTMLResponse.page(AccountViews.settings(viewer: viewer, members: try database.members(of: viewer.household.id), form: [:],
                                                           errors: [FieldError(field: "password", message: error.message)], notice: nil),
                                     status: .unprocessableContent)
        }
        let hash = try await offload { try dependencies.passwordHasher.hash(password) }
        try database.changePasswordHash(viewer.user.id, to: hash)  // ends every session, this one too
        return try startSession(for: viewer.user.id, redirectTo: "/settings?notice=Password+changed")
    }

    // MARK: - Helpers

    /// A new session id at every sign-in (no fixation), with its own CSRF token.
    private func startSession(for userID: UserID, redirectTo path: String) throws -> Response {
        let token = SessionToken.generate()
        let now = dependencies.now()
        try database.createSession(tokenHash: SessionToken.hash(token), userID: userID, csrfToken: SessionToken.generate(), now: now,
                                   expiresAt: now.addingTimeInterval(dependencies.cookies.sessionLifetime))
        var response = Response.redirect(to: path)
        response.setCookie(dependencies.cookies.session(token))
        return response
    }

    /// Renders a signed-out form with a fresh CSRF cookie (reusing one the browser already has).
    private func pageWithCSRF(_ request: Request, _ page: (String) -> HTML) throws -> Response {
        let existing = request.cookies[CookiePolicy.csrfCookie]?.value
        let csrf = existing.flatMap { $0.count >= 32 ? $0 : nil } ?? SessionToken.generate()
        var response = HTMLResponse.page(page(csrf))
        if existing != csrf { response.setCookie(dependencies.cookies.csrf(csrf)) }
        return response
    }

    /// Only same-site relative paths are followed after sign-in (no open redirect).
    static func safeNext(_ next: String?) -> String? {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), !next.contains("\\"), !next.contains("://") else { return nil }
        return next
    }
}

/// Runs slow, blocking work (password hashing) off the server's cooperative threads.
func offload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global(qos: .userInitiated).async { continuation.resume(with: Result { try body() }) }
    }
}

func offload<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        DispatchQueue.global(qos: .userInitiated).async { continuation.resume(returning: body()) }
    }
}

extension Response {
    /// 303 See Other: after a form post, the browser follows with a GET.
    static func redirect(to path: String) -> Response {
        Response(status: .seeOther, headers: [.location: path])
    }
}

/// HTML responses with the headers every page carries.
enum HTMLResponse {
    static func page(_ html: HTML, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] = "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; style-src-attr 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html.rendered)))
    }
}
