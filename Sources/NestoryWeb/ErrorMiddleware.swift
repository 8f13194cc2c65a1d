import Foundation
import Hummingbird
import HTTPTypes
import NestoryBackup
import NestoryDomain
import NestoryImport
import NestoryImaging
import NestoryStore

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

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let isAPI = request.uri.path.hasPrefix("/api/")
        do {
            return try await next(request, context)
        } catch let error as WebError {
            switch error {
            case .signInRequired:
                if isAPI { return Self.response(.unauthorized, code: "sign_in_required", message: "Sign in first.") }
                let next = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
                return Response(status: .seeOther, headers: [.location: "/signin" + queryString([("next", next)])])
            case .forbidden(let message):
                return Self.response(.forbidden, code: "forbidden", message: message)
            case .csrfFailed:
                return Self.response(.forbidden, code: "csrf_failed",
                                     message: "This form has expired or did not come from Nestory. Reload the page and try again.")
            case .badRequest(let message):
                return Self.response(.badRequest, code: "bad_request", message: message)
            case .unprocessable(let message):
                return Self.response(.unprocessableContent, code: "unprocessable", message: message)
            }
        } catch let error as ImagingError {
            switch error {
            case .fileTooLarge, .tooManyPixels:
                return Self.response(.contentTooLarge, code: error.code, message: error.message)
            case .processingFailed:
                context.logger.error("image processing failed", metadata: ["error": .string(String(describing: error))])
                return Self.response(.unprocessableContent, code: error.code, message: error.message)
            default:
                return Self.response(.unprocessableContent, code: error.code, message: error.message)
            }
        } catch let error as DomainError {
            switch error {
            case .validation(let fields):
                return Self.response(.unprocessableContent, code: "validation_failed", message: error.message, fields: fields)
            case .notFound:
                return Self.response(.notFound, code: "not_found", message: error.message)
            case .conflict:
                return Self.response(.conflict, code: "conflict", message: error.message)
            case .forbidden(let message):
                return Self.response(.forbidden, code: "forbidden", message: message)
            case .currencyMismatch:
                return Self.response(.unprocessableContent, code: "currency_mismatch", message: error.message)
            }
        } catch let error as StoreError {
            switch error {
            case .locked:
                return Self.response(.serviceUnavailable, code: "busy", message: "The server is busy. Try again in a moment.")
            case .tooLarge:
                return Self.response(.contentTooLarge, code: "too_large", message: error.description)
            default:
                return internalError(error, context: context)
            }
        } catch let error as BackupError {
            switch error {
            case .io, .missingFile, .damagedStoredFile:
                return internalError(error, context: context)
            default:
                return Self.response(.unprocessableContent, code: "invalid_archive", message: error.description)
            }
        } catch let error as CSVError {
            return Self.response(.unprocessableContent, code: "invalid_csv", message: error.description)
        } catch let error as ImportError {
            return Self.response(.unprocessableContent, code: "invalid_csv", message: error.description)
        } catch let error as any HTTPResponseError {
            if error.status == .notFound {
                return Self.response(.notFound, code: "not_found", message: "There is nothing at this address.")
            }
            return Self.response(error.status, code: "http_\(error.status.code)", message: error.status.reasonPhrase)
        } catch {
            return internalError(error, context: context)
        }
    }

    private func internalError(_ error: any Error, context: Context) -> Response {
        let requestID = context.id
        context.logger.error("request failed", metadata: ["request_id": .string(requestID), "error": .string(String(reflecting: error))])
        return Self.response(.internalServerError, code: "internal_error",
                             message: "Something went wrong on the server. Nothing you entered was lost; try again.",
                             requestID: requestID)
    }

    static func response(_ status: HTTPResponse.Status, code: String, message: String, fields: [FieldError]? = nil,
                         requestID: String? = nil) -> Response {
        let body = Body(error: .init(code: code, message: message, fields: fields, requestID: requestID))
        let data = (try? JSONEncoder().encode(body)) ?? Data(#"{"error":{"code":"internal_error","message":"error"}}"#.utf8)
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
