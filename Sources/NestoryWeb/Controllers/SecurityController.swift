import Foundation
import HTTPTypes
import Hummingbird
import NestoryAuth
import NestoryDomain
import NestoryServices

/// Settings → Security & Privacy (the lock timeout, signed-in sessions, passkeys), locking and unlocking, and signing
/// in with a passkey. The passkey ceremonies are JSON for the page's script (WebAuthn needs script); everything else
/// also works as plain forms.
struct SecurityController {
    let dependencies: WebDependencies
    var security: SecurityService { dependencies.services.security }

    func addRoutes(to router: Router<AppRequestContext>, api: RouterGroup<AppRequestContext>) {
        router.post("settings/lock", use: setLock)
        router.post("settings/sessions/others/signout", use: signOutOthers)
        router.post("settings/sessions/:id/signout", use: signOutSession)
        router.post("settings/passkeys/options", use: registrationOptions)
        router.post("settings/passkeys", use: register)
        router.post("settings/passkeys/:id/remove", use: removePasskey)
        router.post("lock", use: lock)
        router.post("session/activity") { _, context in
            _ = try context.requireViewer()  // the lock middleware recorded it
            return Response(status: .noContent)
        }
        router.post("unlock", use: unlock)
        router.post("unlock/passkey/options", use: unlockOptions)
        router.post("unlock/passkey", use: unlockWithPasskey)
        router.post("signin/passkey/options", use: signInOptions)
        router.post("signin/passkey", use: signInWithPasskey)
        api.get("session", use: sessionState)
    }

    // MARK: - Settings

    @Sendable func setLock(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let minutes = try await security.setLockMinutes(viewer.user.id, try await Form.read(request, context: context)["lock"] ?? "")
        return .redirect(to: "/settings#security", notice: minutes == 0 ? "The app no longer locks itself."
                         : "The app locks itself \(AppLock.label(minutes: minutes).lowercased()) without use.")
    }

    @Sendable func signOutOthers(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let count = try await security.signOutOthers(viewer.user.id, keeping: viewer.sessionTokenHash)
        return .redirect(to: "/settings#security", notice: count == 0 ? "No other device was signed in."
                         : "Signed out on \(count) other device\(count == 1 ? "" : "s").")
    }

    @Sendable func signOutSession(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        try await security.signOut(viewer.user.id, session: context.parameters.get("id") ?? "")
        return .redirect(to: "/settings#security", notice: "That device is signed out.")
    }

    @Sendable func registrationOptions(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let issued = try await security.registrationChallenge(viewer.user.id, session: viewer.sessionTokenHash)
        let rp = try relyingParty(request)
        return Self.json(["publicKey": [
            "rp": ["id": rp.id, "name": "Nestory"],
            "user": ["id": Base64URL.encode(SecurityService.userHandle(viewer.user.id)), "name": viewer.user.email,
                     "displayName": viewer.user.displayName.isEmpty ? viewer.user.email : viewer.user.displayName],
            "challenge": issued.challenge,
            "pubKeyCredParams": [["type": "public-key", "alg": -7]],
            "timeout": Int(SecurityService.challengeLifetime * 1000),
            "attestation": "none",
            "authenticatorSelection": ["residentKey": "required", "requireResidentKey": true, "userVerification": "required"],
            "excludeCredentials": issued.credentialIDs.map { ["type": "public-key", "id": $0] },
        ] as [String: Any]])
    }

    @Sendable func register(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let body = try await Self.decode(Registration.self, request)
        guard let clientData = Base64URL.decode(body.response.clientDataJSON),
              let attestation = Base64URL.decode(body.response.attestationObject) else { throw Self.unreadable }
        let passkey = try await security.register(viewer.user.id, session: viewer.sessionTokenHash, name: body.name ?? "",
                                                  relyingParty: try relyingParty(request), clientDataJSON: clientData,
                                                  attestationObject: attestation)
        return Self.json(["id": passkey.id, "name": passkey.name], status: .created)
    }

    @Sendable func removePasskey(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        try await security.removePasskey(viewer.user.id, id: context.parameters.get("id") ?? "")
        return .redirect(to: "/settings#security", notice: "Passkey removed. Remove it from your device’s passwords too.")
    }

    // MARK: - Locking and unlocking

    /// The page's timer ran out (or the person chose to lock): the session locks now.
    @Sendable func lock(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        try await security.lock(session: viewer.sessionTokenHash)
        return Self.wantsJSON(request) ? Response(status: .noContent) : .redirect(to: "/")
    }

    /// The password: JSON for the page's lock screen; a form post (no script) returns to `next` or shows the lock
    /// page again with the reason.
    @Sendable func unlock(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let form = try await Form.read(request, context: context)
        let next = AccountController.safeNext(form["next"]) ?? "/"
        let outcome = try await security.unlock(session: viewer.sessionTokenHash, user: viewer.user, password: form["password"] ?? "",
                                                client: context.clientKey)
        let failure: WebError
        switch outcome {
        case .signedIn: return Self.wantsJSON(request) ? Self.json(["unlocked": true]) : .redirect(to: next)
        case .rejected: failure = .authenticationFailed("That is not your password.")
        case .wait(let seconds): failure = .tooManyAttempts(seconds: seconds)
        }
        if Self.wantsJSON(request) { throw failure }
        let problem = ErrorMiddleware.problem(for: failure, context: context)
        return HTMLResponse.page(LockViews.page(viewer: viewer, next: next, message: problem.message), status: problem.status)
    }

    @Sendable func unlockOptions(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let issued = try await security.unlockChallenge(viewer.user.id, session: viewer.sessionTokenHash)
        return Self.json(assertionOptions(issued, rp: try relyingParty(request)))
    }

    @Sendable func unlockWithPasskey(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let assertion = try await Self.assertion(request)
        let outcome = try await security.unlock(session: viewer.sessionTokenHash, user: viewer.user, relyingParty: try relyingParty(request),
                                                assertion: assertion, client: context.clientKey)
        _ = try Self.proven(outcome)
        return Self.json(["unlocked": true])
    }

    // MARK: - Signing in with a passkey

    @Sendable func signInOptions(_ request: Request, context: AppRequestContext) async throws -> Response {
        let issued = try await security.signInChallenge(attempt: try Self.attempt(request))
        return Self.json(assertionOptions(issued, rp: try relyingParty(request)))
    }

    @Sendable func signInWithPasskey(_ request: Request, context: AppRequestContext) async throws -> Response {
        let attempt = try Self.attempt(request)
        let next = AccountController.safeNext(request.query["next"]) ?? "/"
        let outcome = try await security.signIn(attempt: attempt, relyingParty: try relyingParty(request),
                                                assertion: try await Self.assertion(request), client: context.clientKey)
        let user = try Self.proven(outcome)
        let token = try await dependencies.accounts.startSession(for: user.id, lifetime: dependencies.cookies.sessionLifetime,
                                                                 userAgent: request.headers[.userAgent])
        var response = Self.json(["next": next])
        response.setCookie(dependencies.cookies.session(token))
        return response
    }

    /// `GET /api/v1/session`: the session's lock state (reachable while locked).
    @Sendable func sessionState(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        return Self.json(["locked": viewer.lock.locked, "lockMinutes": viewer.lock.minutes, "lockSeconds": Int(viewer.lock.timeout),
                          "passkeys": viewer.lock.passkeys])
    }

    // MARK: - Helpers

    /// The relying party as this request reaches the server: the RP ID is the host (or the `passkeys.rpID` setting),
    /// and the origin the browser reports must be this server's address (or the `passkeys.origin` setting).
    func relyingParty(_ request: Request) throws -> RelyingParty {
        guard let origin = dependencies.security.origin ?? RemindersController.origin(request, secure: dependencies.cookies.secure),
              let host = dependencies.security.rpID ?? URL(string: origin)?.host else {
            throw WebError.badRequest("The request does not say which address it was sent to (no Host header).")
        }
        return RelyingParty(id: host, origins: [origin])
    }

    func assertionOptions(_ issued: SecurityService.Challenge, rp: RelyingParty) -> [String: Any] {
        ["publicKey": [
            "challenge": issued.challenge, "rpId": rp.id, "timeout": Int(SecurityService.challengeLifetime * 1000),
            "userVerification": "required", "allowCredentials": issued.credentialIDs.map { ["type": "public-key", "id": $0] },
        ] as [String: Any]]
    }

    /// The signed-out browser's sign-in attempt: its CSRF cookie (the CSRF check already matched it to the header).
    static func attempt(_ request: Request) throws -> String {
        guard let cookie = request.cookies[CookiePolicy.csrfCookie]?.value, cookie.count >= 32 else { throw WebError.csrfFailed }
        return cookie
    }

    static func proven(_ outcome: SecurityService.PasskeyOutcome) throws -> User {
        switch outcome {
        case .proven(let user): return user
        case .rejected(let reason): throw WebError.authenticationFailed(reason)
        case .wait(let seconds): throw WebError.tooManyAttempts(seconds: seconds)
        }
    }

    struct Registration: Decodable {
        struct Body: Decodable { let clientDataJSON: String; let attestationObject: String }
        let name: String?
        let response: Body
    }

    struct Assertion: Decodable {
        struct Body: Decodable { let clientDataJSON: String; let authenticatorData: String; let signature: String; let userHandle: String? }
        let rawId: String
        let response: Body
    }

    static let unreadable = WebError.badRequest("The passkey’s answer could not be read. Try again.")

    static func decode<T: Decodable>(_ type: T.Type, _ request: Request) async throws -> T {
        let buffer = try await request.body.collect(upTo: 64 * 1024)
        guard let value = try? JSONDecoder().decode(T.self, from: Data(buffer: buffer)) else { throw unreadable }
        return value
    }

    static func assertion(_ request: Request) async throws -> SecurityService.Assertion {
        let body = try await decode(Assertion.self, request)
        guard let id = Base64URL.decode(body.rawId), let clientData = Base64URL.decode(body.response.clientDataJSON),
              let authData = Base64URL.decode(body.response.authenticatorData), let signature = Base64URL.decode(body.response.signature)
        else { throw unreadable }
        let handle = body.response.userHandle.flatMap { $0.isEmpty ? nil : Base64URL.decode($0) }
        return SecurityService.Assertion(credentialID: id, clientDataJSON: clientData, authenticatorData: authData, signature: signature,
                                         userHandle: handle)
    }

    static func wantsJSON(_ request: Request) -> Bool {
        request.headers[.accept]?.contains("application/json") == true
    }

    static func json(_ object: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
