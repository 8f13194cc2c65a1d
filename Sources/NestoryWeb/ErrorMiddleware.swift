import Foundation
import Hummingbird
import Metrics
import HTTPTypes
import NestoryBackup
import NestoryDomain
import NestoryImport
import NestoryImaging
import NestoryServices
import NestoryStore
import NestoryStoreInterfaces

/// The one place where errors become HTTP responses: JSON with a stable code and a message a
/// person can act on. Unexpected errors are logged with a request id and shown as a safe message.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    struct Body: Encodable {
        struct ErrorBody: Encodable {
            let code: String
            let message: String
            let fields: [FieldError]?
            let requestID: String?
        }
        let error: ErrorBody
    }

    /// What went wrong, as the response will say it.
    struct Problem {
        var status: HTTPResponse.Status
        var code: String
        var message: String
        var fields: [FieldError]? = nil
        var requestID: String? = nil
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let isAPI = request.uri.path.hasPrefix("/api/")
        do {
            return try await next(request, context)
        } catch WebError.signInRequired where !isAPI {
            let next = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
            return Response(status: .seeOther, headers: [.location: "/signin" + queryString([("next", next)])])
        } catch {
            let problem = Self.problem(for: error, context: context)
            // A person's browser navigating (a link, a form) gets a page in the app's layout; scripts and
            // the API get JSON (fetch sends "*/*", a navigation asks for text/html first).
            if !isAPI, (request.headers[.accept] ?? "").contains("text/html") {
                return Self.page(problem.status, message: problem.message, fields: problem.fields ?? [], requestID: problem.requestID)
            }
            return Self.response(problem.status, code: problem.code, message: problem.message, fields: problem.fields,
                                 requestID: problem.requestID)
        }
    }

    /// The one mapping from errors to statuses, codes and safe messages.
    static func problem(for error: any Error, context: Context) -> Problem {
        switch error {
        case let error as WebError:
            switch error {
            case .signInRequired: return Problem(status: .unauthorized, code: "sign_in_required", message: "Sign in first.")
            case .forbidden(let message): return Problem(status: .forbidden, code: "forbidden", message: message)
            case .csrfFailed:
                return Problem(status: .forbidden, code: "csrf_failed",
                               message: "This form has expired or did not come from Nestory. Reload the page and try again.")
            case .badRequest(let message): return Problem(status: .badRequest, code: "bad_request", message: message)
            case .unprocessable(let message): return Problem(status: .unprocessableContent, code: "unprocessable", message: message)
            case .scanningDisabled:
                return Problem(status: .forbidden, code: "scanning_disabled",
                               message: "Barcode scanning is turned off on this server. Type the code, or add the item by hand.")
            case .idempotencyKeyInvalid:
                return Problem(status: .badRequest, code: "invalid_idempotency_key",
                               message: "Idempotency-Key must be one header of 1 to 255 printable ASCII characters.")
            case .idempotencyKeyInUse:
                return Problem(status: .conflict, code: "idempotency_key_in_use",
                               message: "A request with this Idempotency-Key is still being handled. Try again in a moment.")
            case .idempotencyKeyReused:
                return Problem(status: .unprocessableContent, code: "idempotency_key_reused",
                               message: "This Idempotency-Key was already used for a different request. Use a new key for a new request.")
            case .locked:
                return Problem(status: .locked, code: "locked",
                               message: "Nestory is locked after a while without use. Unlock it with your password or a passkey.")
            case .authenticationFailed(let message): return Problem(status: .unauthorized, code: "authentication_failed", message: message)
            case .invalidToken:
                return Problem(status: .unauthorized, code: "invalid_token",
                               message: "This API token is not valid: it was revoked, it expired, or its account left the household.")
            case .tokenNotAccepted:
                return Problem(status: .unauthorized, code: "token_not_accepted", message: "API tokens work only for /api/v1 and /mcp. Sign in to use the app.")
            case .insufficientScope(let message): return Problem(status: .forbidden, code: "insufficient_scope", message: message)
            case .rateLimited(let seconds):
                return Problem(status: .tooManyRequests, code: "rate_limited",
                               message: "Too many requests with this token. Wait \(seconds) second\(seconds == 1 ? "" : "s") and try again.")
            case .tooManyAttempts(let seconds):
                let minutes = AccountService.SignInOutcome.minutes(seconds)
                return Problem(status: .tooManyRequests, code: "too_many_attempts",
                               message: "Too many attempts. Wait \(minutes) minute\(minutes == 1 ? "" : "s") and try again.")
            }
        case let error as ImagingError:
            switch error {
            case .fileTooLarge, .tooManyPixels:
                return Problem(status: .contentTooLarge, code: error.code, message: error.message)
            case .processingFailed:
                context.logger.error("image processing failed", metadata: ["error": .string(String(describing: error))])
                return Problem(status: .unprocessableContent, code: error.code, message: error.message)
            default:
                return Problem(status: .unprocessableContent, code: error.code, message: error.message)
            }
        case let error as DomainError:
            switch error {
            case .validation(let fields):
                return Problem(status: .unprocessableContent, code: "validation_failed", message: error.message, fields: fields)
            case .notFound: return Problem(status: .notFound, code: "not_found", message: error.message)
            case .conflict: return Problem(status: .conflict, code: "conflict", message: error.message)
            case .forbidden(let message): return Problem(status: .forbidden, code: "forbidden", message: message)
            case .currencyMismatch: return Problem(status: .unprocessableContent, code: "currency_mismatch", message: error.message)
            // A Free limit: 402, so a client can tell it from a permission and offer Pro; the message says the limit.
            case .proRequired(let limit):
                return Problem(status: .paymentRequired, code: "pro_required", message: limit.message)
            }
        case is ItemChanged:
            return Problem(status: .preconditionFailed, code: "item_changed",
                           message: "The item has changed since the version named in If-Match, so nothing was saved. Read it again and make the change on what it is now.")
        case let error as NoSpaceLeft:
            // The operator's to fix; the person is told that nothing was saved and that trying again now will not help.
            context.logger.error("\(error.description)", metadata: ["request_id": .string(requestID(context))])
            return Problem(status: .insufficientStorage, code: "no_space",
                           message: "The server has no space left to save this, so nothing was saved. Whoever runs Nestory needs to free some space; then try again.")
        case let error as StoreError:
            switch error {
            case .locked:
                Counter(label: "nestory_database_busy_total").increment()
                return Problem(status: .serviceUnavailable, code: "busy", message: "The server is busy. Try again in a moment.")
            case .tooLarge: return Problem(status: .contentTooLarge, code: "too_large", message: error.description)
            case .closed:
                // A request still arriving while the server stops, after the store closed.
                return Problem(status: .serviceUnavailable, code: "shutting_down", message: "The server is stopping. Try again in a moment.")
            case .blobStorageUnavailable:
                context.logger.warning("\(error.description)")
                return Problem(status: .serviceUnavailable, code: "storage_unavailable",
                               message: "Stored photos and files cannot be reached right now. Try again in a moment.")
            default: return internalError(error, context: context)
            }
        case let error as BackupError:
            switch error {
            case .io, .missingFile, .damagedStoredFile: return internalError(error, context: context)
            default: return Problem(status: .unprocessableContent, code: "invalid_archive", message: error.description)
            }
        case let error as CSVError:
            return Problem(status: .unprocessableContent, code: "invalid_csv", message: error.description)
        case let error as ImportError:
            return Problem(status: .unprocessableContent, code: "invalid_csv", message: error.description)
        case let error as any HTTPResponseError:
            if error.status == .notFound {
                return Problem(status: .notFound, code: "not_found", message: "There is nothing at this address.")
            }
            return Problem(status: error.status, code: "http_\(error.status.code)", message: error.status.reasonPhrase)
        default:
            return internalError(error, context: context)
        }
    }

    /// The id the access log and the answer carry for this request.
    private static func requestID(_ context: Context) -> String { context.requestID.isEmpty ? context.id : context.requestID }

    private static func internalError(_ error: any Error, context: Context) -> Problem {
        let id = requestID(context)
        context.logger.error("request failed", metadata: ["request_id": .string(id), "error": .string(String(reflecting: error))])
        return Problem(status: .internalServerError, code: "internal_error",
                       message: "Something went wrong on the server. Nothing you entered was lost; try again.", requestID: id)
    }

    /// An error page for a person: what happened in words, what to do, and the request id to quote.
    static func page(_ status: HTTPResponse.Status, message: String, fields: [FieldError], requestID: String?) -> Response {
        let title: String
        switch status {
        case .notFound: title = "Not found"
        case .forbidden: title = "Not allowed"
        case .conflict: title = "Already done"
        case .paymentRequired: title = "Part of Nestory Pro"
        case .contentTooLarge: title = "Too large"
        case .tooManyRequests: title = "Too many attempts"
        case .serviceUnavailable: title = "Busy"
        case .insufficientStorage: title = "No space left"
        case .locked: title = "Locked"
        case _ where status.code >= 500: title = "Something went wrong"
        default: title = "That didn’t work"
        }
        let details: [HTML] = fields.filter { $0.message != message }.map { HTML("<li>\($0.message)</li>") }
        return HTMLResponse.page(Layout.page(title: title, viewer: nil, body: """
            <section class="card error-page" role="alert">
              <p>\(message)</p>
              \(details.isEmpty ? HTML.empty : HTML("<ul>\(details)</ul>"))
              \(requestID.map { HTML("<p class=\"hint\">If it happens again, quote this reference: <code>\($0)</code>.</p>") })
              \(status == .paymentRequired ? HTML("<p><a class=\"button\" href=\"/settings#pro\">See Nestory Pro</a></p>") : .empty)
              <p><a class="button" href="/">Back to your inventory</a></p>
            </section>
            """), status: status)
    }

    static func response(_ status: HTTPResponse.Status, code: String, message: String, fields: [FieldError]? = nil,
                         requestID: String? = nil) -> Response {
        let body = Body(error: .init(code: code, message: message, fields: fields, requestID: requestID))
        let data = (try? JSONEncoder.api().encode(body)) ?? Data(#"{"error":{"code":"internal_error","message":"error"}}"#.utf8)
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension HTTPResponse.Status {
    /// 402: a Free limit (`pro_required`); HTTPTypes names no constant for it.
    static let paymentRequired = HTTPResponse.Status(code: 402, reasonPhrase: "Payment Required")
    /// 423 Locked (RFC 4918): the session is locked by the app lock until it is unlocked.
    static let locked = HTTPResponse.Status(code: 423, reasonPhrase: "Locked")
}

extension HTTPResponse.Status {
    /// 507: the server cannot store what the request asked it to keep.
    static let insufficientStorage = HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
}
