import Foundation
import NestoryDomain
import NestoryHTTP
import NestoryValuation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Keeps API keys out of messages: the keys given, and anything shaped like one (`sk-…`, `tvly-…`, a bearer token).
public enum Redactor {
    public static func redact(_ text: String, secrets: [String]) -> String {
        var out = text
        for secret in secrets where secret.count >= 4 { out = out.replacingOccurrences(of: secret, with: "[redacted]") }
        let words = out.split(separator: " ", omittingEmptySubsequences: false).map { word -> String in
            let bare = word.trimmingCharacters(in: CharacterSet(charactersIn: "\"'`(<[:,."))
            if bare.count > 8, bare.hasPrefix("sk-") || bare.hasPrefix("tvly-") { return "[redacted]" }
            return String(word)
        }
        out = words.joined(separator: " ")
        if let range = out.range(of: "Bearer ", options: .caseInsensitive) {
            let rest = out[range.upperBound...].prefix { $0 != " " && $0 != "\"" }
            if !rest.isEmpty, rest != "[redacted]" { out.replaceSubrange(range.upperBound..<rest.endIndex, with: "[redacted]") }
        }
        return out
    }
}

/// An HTTP answer: status, headers (names in lower case) and body.
struct HTTPAnswer: Sendable {
    let status: Int
    let headers: [String: String]
    let body: Data
}

/// What a provider's answer means: done, or worth another try (with the error to report if none is left).
enum Verdict<Value> {
    case done(Value)
    case retry(ProviderError)
}

/// One JSON POST with a timeout and the retry policy; errors as `ProviderError`, keys redacted. The session is
/// made on the first call, so a server whose households never value online does not start libcurl. A redirect is not
/// followed (an API does not redirect its calls, and one could lead into the server's own network): the 3xx is the answer.
final class ProviderHTTP: @unchecked Sendable {
    let provider: String
    let timeout: TimeInterval
    let retry: RetryPolicy
    private let secrets: [String]
    private let lock = NSLock()
    private var started: URLSession?

    /// `timeout` (each try) is rounded up to whole seconds: FoundationNetworking (libcurl) on Linux fires a
    /// sub-second timeout at once.
    init(provider: String, timeout: TimeInterval, retry: RetryPolicy, secrets: [String]) {
        self.provider = provider
        self.timeout = max(1, timeout.rounded(.up))
        self.retry = retry
        self.secrets = secrets.filter { !$0.isEmpty }
    }

    private var session: URLSession {
        lock.withLock {
            if let started { return started }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = timeout
            configuration.timeoutIntervalForResource = timeout
            configuration.httpAdditionalHeaders = ["User-Agent": "Nestory/\(NestoryVersion.current) (self-hosted home inventory)"]
            let made = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
            started = made
            return made
        }
    }

    func redact(_ text: String) -> String { Redactor.redact(text, secrets: secrets) }

    /// POSTs `body` until `judge` says done, a try is refused for good (`judge` throws), or the tries run out.
    /// `address`: connect there rather than to what the URL's host resolves to (see `AddressPin`).
    func post<Value>(_ url: URL, connectingTo address: String? = nil, body: Data, headers: [String: String],
                     judge: (HTTPAnswer) throws(ProviderError) -> Verdict<Value>) async throws(ProviderError) -> Value {
        var attempt = 0
        while true {
            attempt += 1
            var failure: ProviderError
            var answerHeaders: [String: String] = [:]
            do {
                let answer = try await send(url, connectingTo: address, body: body, headers: headers)
                answerHeaders = answer.headers
                switch try judge(answer) {
                case .done(let value): return value
                case .retry(let error): failure = error
                }
            } catch {
                // No answer at all is worth another try; an answer refused for good is not.
                failure = error
                if case .unreachable = error {} else { throw redacted(error) }
            }
            guard attempt < retry.maxAttempts, !Task.isCancelled else { throw redacted(failure) }
            guard let wait = retry.delay(afterAttempt: attempt, headers: answerHeaders) else {
                let asked = answerHeaders["retry-after-ms"].map { "\($0) ms" } ?? answerHeaders["retry-after"] ?? "long"
                throw redacted(.unavailable(provider: provider, status: statusOf(failure), message: "asked to wait \(asked) before trying again"))
            }
            do { try await retry.sleep(wait) } catch { throw redacted(failure) }
        }
    }

    private func statusOf(_ error: ProviderError) -> Int? {
        if case .unavailable(_, let status, _) = error { return status }
        return nil
    }

    /// The error with any key taken out of its text.
    func redacted(_ error: ProviderError) -> ProviderError {
        switch error {
        case .quotaExceeded(let p, let m): return .quotaExceeded(provider: p, message: redact(m))
        case .planLimit(let p, let m): return .planLimit(provider: p, message: redact(m))
        case .unavailable(let p, let s, let m): return .unavailable(provider: p, status: s, message: redact(m))
        case .unreachable(let p, let m): return .unreachable(provider: p, message: redact(m))
        case .refused(let m): return .refused(redact(m))
        case .invalidAnswer(let m): return .invalidAnswer(redact(m))
        case .invalidKey, .truncated, .endpointNotAllowed: return error
        }
    }

    private func send(_ url: URL, connectingTo address: String?, body: Data, headers: [String: String]) async throws(ProviderError) -> HTTPAnswer {
        let (target, host) = AddressPin.apply(address, to: url)
        var request = URLRequest(url: target)
        request.httpMethod = "POST"
        request.httpBody = body
        request.timeoutInterval = timeout
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let host { request.setValue(host, forHTTPHeaderField: "Host") }
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { throw ProviderError.unreachable(provider: provider, message: "the answer was not HTTP") }
            var lower: [String: String] = [:]
            for (name, value) in http.allHeaderFields {
                if let name = name as? String, let value = value as? String { lower[name.lowercased()] = value }
            }
            return HTTPAnswer(status: http.statusCode, headers: lower, body: data)
        } catch let error as ProviderError {
            throw error
        } catch let error as URLError {
            throw .unreachable(provider: provider, message: Self.plain(error, timeout: timeout))
        } catch {
            throw .unreachable(provider: provider, message: "no connection")
        }
    }

    /// A transport failure as a person would say it.
    static func plain(_ error: URLError, timeout: TimeInterval) -> String {
        switch error.code {
        case .timedOut: return "no answer within \(Int(timeout)) second\(timeout == 1 ? "" : "s")"
        case .notConnectedToInternet, .networkConnectionLost, .dataNotAllowed: return "no network connection"
        case .cannotFindHost, .dnsLookupFailed: return "its address could not be found (DNS)"
        case .cannotConnectToHost: return "the connection was refused"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
             .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            return "the secure connection failed"
        default: return "no connection (\(error.code.rawValue))"
        }
    }

    /// The message of an error body, as the provider wrote it (OpenAI: `error.message`; Tavily: `detail.error`),
    /// cut short and redacted.
    func message(_ body: Data, fallback status: Int) -> String {
        let value = try? JSONDecoder().decode(JSONValue.self, from: body)
        let text = value?["error"]?["message"]?.stringValue ?? value?["detail"]?["error"]?.stringValue ?? value?["error"]?.stringValue
            ?? value?["detail"]?.stringValue ?? value?["message"]?.stringValue ?? "HTTP \(status)"
        return redact(String(text.prefix(300)))
    }

    static func encode(_ value: JSONValue) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)) ?? Data()
    }
}

/// Answers every redirect with "do not follow": the redirect itself reaches the caller.
final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
