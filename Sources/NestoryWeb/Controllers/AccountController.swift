import Foundation
import HTTPTypes
import Hummingbird
import NestoryAuth
import NestoryDomain
import NestoryServices

/// First-run set-up, sign in and out, and the household's members.
struct AccountController {
    let dependencies: WebDependencies

    var accounts: AccountService { dependencies.accounts }

    func addRoutes(to router: Router<AppRequestContext>, api: RouterGroup<AppRequestContext>) {
        api.get("household", use: household)
        api.patch("household", use: patchHousehold)
        router.get("setup", use: setupPage)
        router.post("setup", use: setup)
        router.get("signin", use: signInPage)
        router.post("signin", use: signIn)
        router.post("signout", use: signOut)
        router.get("settings", use: settingsPage)
        router.post("settings/members", use: addMember)
        router.post("settings/members/:userID/remove", use: removeMember)
        router.post("settings/password", use: changePassword)
        router.post("settings/household", use: updateHousehold)
        router.post("settings/theme", use: setTheme)
        router.post("settings/licence", use: installLicence)
    }

    // MARK: - First run

    @Sendable func setupPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard try await accounts.needsSetup() else { return .redirect(to: "/signin") }
        return try pageWithCSRF(request) { csrf in AccountViews.setup(csrf: csrf, form: [:], errors: []) }
    }

    @Sendable func setup(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard try await accounts.needsSetup() else { return .redirect(to: "/signin") }
        let form = try await Form.read(request, context: context)
        let values = ["household": form["household"] ?? "", "currency": form["currency"] ?? "USD", "name": form["name"] ?? "",
                      "email": form["email"] ?? ""]
        let input = AccountService.SetupInput(household: values["household"]!, currency: values["currency"]!, name: values["name"]!,
                                              email: values["email"]!, password: form["password"] ?? "", confirmation: form["confirm"] ?? "",
                                              timeZone: CookiePolicy.browserTimeZone(request)?.identifier)
        do {
            let user = try await accounts.setUp(input)
            return try await startSession(for: user.id, redirectTo: "/", request: request)
        } catch let error as DomainError {
            if case .conflict = error { return .redirect(to: "/signin?notice=already-set-up") }
            let csrf = request.cookies[CookiePolicy.csrfCookie]?.value ?? ""
            return HTMLResponse.page(AccountViews.setup(csrf: csrf, form: values, errors: FieldErrors.fields(of: error)),
                                     status: .unprocessableContent)
        }
    }

    // MARK: - Sign in and out

    @Sendable func signInPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard try await !accounts.needsSetup() else { return .redirect(to: "/setup") }
        if context.viewer != nil { return .redirect(to: "/") }
        let next = request.query["next"]
        let message = request.notice == "already-set-up"
            ? "Nestory was set up a moment ago, maybe from another tab: sign in with that account." : nil
        return try pageWithCSRF(request) { csrf in AccountViews.signIn(csrf: csrf, email: "", next: next, message: message) }
    }

    @Sendable func signIn(_ request: Request, context: AppRequestContext) async throws -> Response {
        let form = try await Form.read(request, context: context)
        let email = (form["email"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let next = Self.safeNext(form["next"])
        let csrf = request.cookies[CookiePolicy.csrfCookie]?.value ?? ""
        switch await accounts.signIn(email: email, password: form["password"] ?? "", client: context.clientKey) {
        case .signedIn(let user):
            return try await startSession(for: user.id, redirectTo: next ?? "/", request: request)
        case .rejected:
            return HTMLResponse.page(
                AccountViews.signIn(csrf: csrf, email: email, next: next, message: "That email and password don’t match an account."),
                status: .unauthorized)
        case .wait(let seconds):
            let minutes = AccountService.SignInOutcome.minutes(seconds)
            var response = HTMLResponse.page(
                AccountViews.signIn(csrf: csrf, email: email, next: next,
                                    message: "Too many attempts. Wait \(minutes) minute\(minutes == 1 ? "" : "s") and try again."),
                status: .tooManyRequests)
            response.headers[.retryAfter] = String(seconds)
            return response
        }
    }

    @Sendable func signOut(_ request: Request, context: AppRequestContext) async throws -> Response {
        if let viewer = context.viewer { try await accounts.endSession(tokenHash: viewer.sessionTokenHash) }
        var response = Response.redirect(to: "/signin")
        response.setCookie(dependencies.cookies.expiredSession())
        return response
    }

    // MARK: - Settings: members and password

    @Sendable func settingsPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await settings(try context.requireViewer(), notice: request.notice)
    }

    /// The Settings page, whole, with one form's values and errors when it comes back (422).
    func settings(_ viewer: Viewer, notice: String? = nil, memberForm: [String: String] = [:], memberErrors: [FieldError] = [],
                  passwordErrors: [FieldError] = [], householdForm: [String: String] = [:],
                  householdErrors: [FieldError] = [], webhookForm: [String: String] = [:], webhookErrors: [FieldError] = [],
                  licenceForm: [String: String] = [:], licenceErrors: [FieldError] = [],
                  valuationForm: [String: String] = [:], valuationErrors: [FieldError] = [],
                  tokenForm: [String: String] = [:], tokenErrors: [FieldError] = [],
                  newToken: (token: String, summary: APITokenSummary)? = nil) async throws -> Response {
        let household = viewer.household.id
        let failed = !(memberErrors.isEmpty && passwordErrors.isEmpty && householdErrors.isEmpty && webhookErrors.isEmpty && licenceErrors.isEmpty
                       && valuationErrors.isEmpty && tokenErrors.isEmpty)
        let providers = try await dependencies.services.valuations.providerSettings(household)
        let valuation = ValuationViews.settingsSection(viewer: viewer, settings: providers,
                                                       form: valuationForm, errors: valuationErrors)
        let pro = PlanViews.section(viewer: viewer, overview: try await dependencies.services.plan.overview(household), form: licenceForm, errors: licenceErrors)
        let reminders = dependencies.services.reminders
        let notifications = ReminderViews.settingsSection(
            viewer: viewer, preferences: try await reminders.preferences(viewer.user.id), calendarToken: try await reminders.calendarToken(viewer.user.id),
            webhook: viewer.role == .owner ? try await reminders.webhook(household) : nil, webhookForm: webhookForm, webhookErrors: webhookErrors)
        let onlineLookup = try await dependencies.products.store.onlineProductLookup(household)
        let about = AboutViews.section(viewer: viewer, onlineLookup: onlineLookup, webhookSet: try await reminders.webhook(household) != nil,
                                       photoAnalysis: providers.analysisConfigured, marketSearch: providers.searchConfigured)
        let security = AccountViews.securitySection(viewer: viewer, sessions: try await dependencies.services.security.sessions(of: viewer.user.id),
                                                    passkeys: try await dependencies.services.security.passkeys(of: viewer.user.id))
        let tokens = TokenViews.section(viewer: viewer, tokens: try await dependencies.services.tokens.tokens(of: viewer.user.id), now: dependencies.now(),
                                        form: tokenForm, errors: tokenErrors, newToken: newToken)
        return HTMLResponse.page(AccountViews.settings(
            viewer: viewer, members: try await accounts.members(of: household), form: memberForm, errors: memberErrors,
            passwordErrors: passwordErrors, notice: notice, onlineLookup: onlineLookup,
            scanning: (operator: dependencies.scanning, household: try await dependencies.products.store.scanningEnabled(household)),
            captureCounts: viewer.role == .owner ? try await dependencies.services.captureCounters.recent(household) : [],
            householdForm: householdForm, householdErrors: householdErrors,
            storage: viewer.role == .owner ? DataViews.storageLine(try await dependencies.services.data.storage(household)) : nil,
            pro: pro, security: security, notifications: notifications, valuation: valuation, tokens: tokens, about: about),
                                 status: failed ? .unprocessableContent : .ok)
    }

    /// Settings → Appearance: the theme, for this user.
    @Sendable func setTheme(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let theme = try await accounts.setTheme(viewer.user.id, try await Form.read(request, context: context)["theme"] ?? "")
        return .redirect(to: "/settings#appearance", notice: "Theme: \(theme.label).")
    }

    /// Settings → Account & Pro: the owner installs a licence key (checked offline); a refused key is kept in the
    /// form with the reason.
    @Sendable func installLicence(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        guard viewer.role == .owner else { throw DomainError.forbidden("Only the household’s owner can install a licence.") }
        let key = try await Form.read(request, context: context)["licence"] ?? ""
        do {
            let licence = try await dependencies.services.plan.install(key, by: .owner(viewer.household.id))
            return .redirect(to: "/settings#pro", notice: "Nestory Pro is active, licensed to \(licence.licensee).")
        } catch let error as DomainError {
            return try await settings(viewer, licenceForm: ["licence": key], licenceErrors: FieldErrors.fields(of: error))
        }
    }

    /// The owner's household form: name, currency and high-value threshold.
    @Sendable func updateHousehold(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let form = try await Form.read(request, context: context)
        let values = ["name": form["name"] ?? "", "currency": form["currency"] ?? "", "threshold": form["threshold"] ?? "",
                      "timeZone": form["timeZone"] ?? viewer.household.timeZone ?? ""]
        do {
            let saved = try await accounts.updateHousehold(viewer.household.id, by: viewer.role, name: values["name"]!,
                                                           currency: values["currency"]!, threshold: values["threshold"]!,
                                                           timeZone: values["timeZone"]!)
            let converted = saved.currency == viewer.household.currency ? "" :
                " The currency is now \(saved.currency.code) for new items and totals; no amount was converted (items keep what they were entered in)."
            return .redirect(to: "/settings#household", notice: "Household saved.\(converted)")
        } catch let error as DomainError {
            if case .forbidden = error { throw error }
            return try await settings(viewer, householdForm: values, householdErrors: FieldErrors.fields(of: error))
        }
    }

    @Sendable func addMember(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        guard viewer.role == .owner else { throw DomainError.forbidden("Only the household’s owner can add members.") }
        let form = try await Form.read(request, context: context)
        let values = ["email": form["email"] ?? "", "name": form["name"] ?? ""]
        do {
            let user = try await accounts.addMember(to: viewer.household.id, by: viewer.role, email: values["email"]!,
                                                    displayName: values["name"]!, password: form["password"] ?? "")
            return .redirect(to: "/settings#members", notice: "\(user.email) added")
        } catch let error as DomainError {
            var fields = FieldErrors.fields(of: error)
            if case .conflict = error { fields = [FieldError(field: "email", message: error.message)] }
            return try await settings(viewer, memberForm: values, memberErrors: fields)
        }
    }

    @Sendable func removeMember(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        guard let id = context.parameters.get("userID").flatMap(UserID.init(string:)) else { throw DomainError.notFound("The member") }
        try await accounts.removeMember(id, from: viewer.household.id, by: viewer.role)
        return .redirect(to: "/settings#members", notice: "Member removed")
    }

    @Sendable func changePassword(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let form = try await Form.read(request, context: context)
        do {
            try await accounts.changePassword(viewer.user, current: form["current"] ?? "", new: form["password"] ?? "")  // ends every session
        } catch let error as DomainError {
            return try await settings(viewer, passwordErrors: FieldErrors.fields(of: error))
        }
        return try await startSession(for: viewer.user.id, redirectTo: "/settings#password", notice: "Password changed", request: request)
    }

    // MARK: - The household in the API

    /// `GET /api/v1/household`: the household the request acts for, as Settings → Household shows it, with its day.
    @Sendable func household(_ request: Request, context: AppRequestContext) async throws -> HouseholdJSON {
        let viewer = try context.requireViewer()
        return HouseholdJSON(viewer.household, role: viewer.role, today: dependencies.today(viewer.household))
    }

    /// `PATCH /api/v1/household`: its owner changes the fields given (Settings → Household's rules); the rest are kept.
    @Sendable func patchHousehold(_ request: Request, context: AppRequestContext) async throws -> HouseholdJSON {
        let viewer = try context.requireViewer()
        let body: [String: JSONField]
        do { body = try await request.decode(as: [String: JSONField].self, context: context) } catch {
            throw WebError.badRequest("The body must be a JSON object with the fields to change: name, currency, highValueThreshold, timeZone.")
        }
        let values = try HouseholdJSON.reading(body, over: viewer.household).get()
        let saved: Household
        do {
            saved = try await accounts.updateHousehold(viewer.household.id, by: viewer.role, name: values["name"]!,
                                                       currency: values["currency"]!, threshold: values["highValueThreshold"]!,
                                                       timeZone: values["timeZone"]!)
        } catch DomainError.validation(let errors) {  // the form's field is "threshold"
            throw DomainError.validation(errors.map { $0.field == "threshold" ? FieldError(field: "highValueThreshold", message: $0.message) : $0 })
        }
        return HouseholdJSON(saved, role: viewer.role, today: dependencies.today(saved))
    }

    // MARK: - Helpers

    /// A new session id at every sign-in (no fixation), with its own CSRF token.
    private func startSession(for userID: UserID, redirectTo path: String, notice: String? = nil, request: Request) async throws -> Response {
        let token = try await accounts.startSession(for: userID, lifetime: dependencies.cookies.sessionLifetime,
                                                    userAgent: request.headers[.userAgent])
        var response = Response.redirect(to: path, notice: notice)
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

extension Response {
    /// 303 See Other: after a form post, the browser follows with a GET.
    static func redirect(to path: String) -> Response {
        Response(status: .seeOther, headers: [.location: path])
    }

    /// A redirect whose page says what just happened: `notice` is a sentence (or a code a view knows),
    /// percent-encoded so it reads back as the same text (spaces as %20, never `+`).
    static func redirect(to path: String, notice: String?) -> Response {
        guard let notice, !notice.isEmpty else { return redirect(to: path) }
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let encoded = notice.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        // The query goes before a fragment (`/settings#notifications`), where the server can read it.
        let (base, fragment) = path.firstIndex(of: "#").map { (String(path[..<$0]), String(path[$0...])) } ?? (path, "")
        return redirect(to: base + (base.contains("?") ? "&" : "?") + "notice=" + encoded + fragment)
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

/// The household as the API shows it (`GET /api/v1/household`), and the fields a `PATCH` takes.
struct HouseholdJSON: ResponseEncodable {
    let id: String
    let name: String
    let currency: String
    let highValueThreshold: MoneyJSON
    /// Null: the server's clock.
    let timeZone: String?
    /// The household's day now, on its clock: what "today" is for its dates.
    let today: String
    /// The role of the person the request acts for: "owner" or "member".
    let role: String

    init(_ household: Household, role: MemberRole, today: CalendarDate) {
        id = household.id.description
        name = household.name
        currency = household.currency.code
        highValueThreshold = MoneyJSON(household.highValueThreshold)
        timeZone = household.timeZone
        self.today = today.iso
        self.role = role.rawValue
    }

    enum CodingKeys: String, CodingKey { case id, name, currency, highValueThreshold, timeZone, today, role }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(currency, forKey: .currency)
        try container.encode(highValueThreshold, forKey: .highValueThreshold)
        try container.encode(timeZone, forKey: .timeZone)  // null, not left out: "none" is an answer
        try container.encode(today, forKey: .today)
        try container.encode(role, forKey: .role)
    }

    static let fields = ["name", "currency", "highValueThreshold", "timeZone"]
    /// What GET answers besides the fields: accepted and ignored, so a household read can be sent back changed.
    static let answered: Set<String> = ["id", "today", "role"]

    /// The fields given over `household`'s, as Settings → Household's form would send them: a field left out keeps its
    /// value (the threshold's without trailing zeros, so that 1000.00 USD is still an amount in JPY after a change of
    /// currency); `timeZone: null` (or "") is the server's clock. The threshold is text, a number, or the amount as GET
    /// answers it; an amount in another currency than the household's (as changed) is refused, never converted.
    /// An unknown key or a value of the wrong kind is a problem on that key, never dropped in silence.
    static func reading(_ body: [String: JSONField], over household: Household) -> Result<[String: String], DomainError> {
        var given = body
        var thresholdCurrency: String?
        // As GET answers it; any other shape is of the wrong kind (below).
        if case .object(let money)? = body["highValueThreshold"], let (amount, currency) = JSONFields.answeredAmount(money) {
            (given["highValueThreshold"], thresholdCurrency) = (.text(amount), currency)
        }
        var values: [String: String]
        switch JSONFields.texts(given, known: fields, numeric: ["highValueThreshold"], of: "a household", ignoring: answered) {
        case .success(let texts): values = texts
        case .failure(let error): return .failure(error)
        }
        let current = ["name": household.name, "currency": household.currency.code,
                       "highValueThreshold": household.highValueThreshold.decimalAmount.description, "timeZone": household.timeZone ?? ""]
        for field in fields where values[field] == nil { values[field] = current[field] }
        if let thresholdCurrency, !JSONFields.sameCurrency(thresholdCurrency, values["currency"]!) {
            return .failure(.invalid(field: "highValueThreshold",
                                     message: "The threshold is in \(thresholdCurrency.prefix(10)) but the household’s currency is \(values["currency"]!.prefix(10)): give one currency (amounts are never converted)."))
        }
        return .success(values)
    }
}
