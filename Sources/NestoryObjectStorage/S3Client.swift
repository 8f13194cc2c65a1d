import Foundation
import NestoryHTTP
import NestoryStore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Where an S3-compatible bucket is and how to reach it. The secret never appears in `description` or messages.
public struct S3Location: Sendable, Equatable, CustomStringConvertible {
    public var bucket: String
    /// Object keys start with this (`blobs/` by default; "" for the bucket's top).
    public var prefix: String
    /// `https://s3.REGION.amazonaws.com` when nil; a self-hosted store's address (MinIO, Garage, Ceph) otherwise.
    public var endpoint: URL?
    public var region: String
    /// `endpoint/bucket/key` instead of `bucket.endpoint/key` (most self-hosted stores want this).
    public var pathStyle: Bool
    public var accessKey: String
    public var secretKey: String

    public init(bucket: String, prefix: String = "blobs/", endpoint: URL? = nil, region: String = "us-east-1", pathStyle: Bool = false,
                accessKey: String, secretKey: String) {
        self.bucket = bucket
        self.prefix = prefix
        self.endpoint = endpoint
        self.region = region
        self.pathStyle = pathStyle
        self.accessKey = accessKey
        self.secretKey = secretKey
    }

    /// `s3://BUCKET/PREFIX`, and the endpoint when it is not AWS's (for messages and the start-up log).
    public var description: String { "s3://\(bucket)/\(prefix)" + (endpoint.map { " at \($0.absoluteString)" } ?? "") }

    /// `s3://BUCKET` or `s3://BUCKET/PREFIX` (the `storage.blobs` setting): the bucket and the key prefix.
    public static func parse(_ text: String) -> (bucket: String, prefix: String)? {
        guard text.hasPrefix("s3://") else { return nil }
        let rest = text.dropFirst(5)
        let bucket = String(rest.prefix { $0 != "/" && $0 != "?" })
        guard bucket.count >= 3, bucket.count <= 63,
              bucket.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "-" || $0 == "." }) else { return nil }
        var prefix = String(rest.dropFirst(bucket.count).drop { $0 == "/" })
        if prefix.isEmpty { prefix = "blobs/" } else if !prefix.hasSuffix("/") { prefix += "/" }
        return (bucket, prefix)
    }

    /// The address of an object (or of the bucket, for `key` nil), with `query`.
    func url(key: String?, query: [URLQueryItem] = []) -> URL {
        let base = endpoint ?? URL(string: "https://s3.\(region).amazonaws.com")!
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false)!
        var path = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
        if pathStyle {
            path += "/" + bucket
        } else {
            components.host = "\(bucket).\(components.host ?? "")"
        }
        if let key {
            path += "/" + key
        } else if path.isEmpty {
            path = "/"
        }
        components.percentEncodedPath = path.split(separator: "/", omittingEmptySubsequences: false)
            .map { SigV4Signer.encode(String($0)) }.joined(separator: "/")
        // The query as it is signed: every name and value encoded (URLComponents would leave "/" and "+" as they are).
        components.percentEncodedQuery = query.isEmpty ? nil
            : query.map { SigV4Signer.encode($0.name) + "=" + SigV4Signer.encode($0.value ?? "") }.joined(separator: "&")
        return components.url!
    }
}

/// One S3 request at a time per call, synchronous (the store's writes are synchronous and run on the blocking
/// pool, never on an event loop): signed with SigV4, with a timeout for each try, and tried again with the shared
/// `RetryPolicy`'s backoff on a server error (500, 502, 503, 504), a throttle (429) or no answer at all.
final class S3Client: @unchecked Sendable {
    struct Answer {
        let status: Int
        let headers: [String: String]
        let body: Data
    }

    let location: S3Location
    let signer: SigV4Signer
    let timeout: TimeInterval
    let retry: RetryPolicy
    private let session: URLSession

    /// `timeout` (each try) is rounded up to whole seconds: FoundationNetworking (libcurl) fires a sub-second
    /// timeout at once.
    init(location: S3Location, timeout: TimeInterval, retry: RetryPolicy) {
        self.location = location
        signer = SigV4Signer(accessKey: location.accessKey, secretKey: location.secretKey, region: location.region)
        self.timeout = max(1, timeout.rounded(.up))
        self.retry = retry
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = self.timeout
        // Each try may take `timeout` without a byte moving; a large upload or download as long as it keeps moving.
        configuration.timeoutIntervalForResource = max(self.timeout, 3600)
        configuration.httpAdditionalHeaders = ["User-Agent": "Nestory (self-hosted home inventory)"]
        session = URLSession(configuration: configuration)
    }

    deinit { session.finishTasksAndInvalidate() }

    /// Sends a request until it is answered with something other than a server error, or the tries run out.
    /// `body`: a file to upload (its SHA-256 is `payloadHash`).
    /// `downloadTo`: a successful answer's body is streamed into this file instead (an error's stays in `body`).
    func send(_ method: String, key: String?, query: [URLQueryItem] = [], body: URL? = nil, payloadHash: String = SigV4Signer.emptyPayloadHash,
              headers: [String: String] = [:], downloadTo: URL? = nil) throws -> Answer {
        let url = location.url(key: key, query: query)
        var attempt = 0
        while true {
            attempt += 1
            let failure: String
            var answerHeaders: [String: String] = [:]
            switch once(method, url: url, body: body, payloadHash: payloadHash, headers: headers, downloadTo: downloadTo) {
            case .success(let answer):
                guard [429, 500, 502, 503, 504].contains(answer.status) else { return answer }
                answerHeaders = answer.headers
                failure = "HTTP \(answer.status)\(Self.errorCode(answer.body).map { " \($0)" } ?? "")"
            case .failure(let error):
                failure = Self.plain(error, timeout: timeout)
            }
            let tries = "\(attempt) tr\(attempt == 1 ? "y" : "ies")"
            guard attempt < retry.maxAttempts else {
                throw StoreError.blobStorageUnavailable(location: location.description, detail: "\(failure) after \(tries)")
            }
            guard let wait = retry.delay(afterAttempt: attempt, headers: answerHeaders) else {
                throw StoreError.blobStorageUnavailable(location: location.description, detail: "\(failure); it asked to wait longer than \(retry.maxDelay)")
            }
            // The policy decides the wait; this call is synchronous (on the blocking pool), so it waits on its thread.
            let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
            Thread.sleep(forTimeInterval: seconds)
        }
    }

    private func once(_ method: String, url: URL, body: URL?, payloadHash: String, headers: [String: String],
                      downloadTo: URL?) -> Result<Answer, URLError> {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = timeout
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        for (name, value) in signer.sign(method: method, url: url, headers: headers, payloadHash: payloadHash, date: Date()) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        if let body {
            let size = (try? FileManager.default.attributesOfItem(atPath: body.path)[.size] as? NSNumber)?.int64Value ?? 0
            request.setValue(String(size), forHTTPHeaderField: "Content-Length")
        }
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox()
        let handler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = { data, response, error in
            if error == nil, let reply = Self.answer(response, data) {
                box.result = .success(reply)
            } else {
                box.result = .failure((error as? URLError) ?? URLError(.cannotConnectToHost))
            }
            done.signal()
        }
        let task: URLSessionTask
        if let downloadTo {
            // The body goes to a file as it arrives; moved into place before the handler returns. Foundation here leaves
            // its file in the system's temporary folder when the handler does not move it (an error answer's body, read
            // below), so the handler removes it: each 404 or 503 left one behind.
            task = session.downloadTask(with: request) { file, response, error in
                defer { if let file { unlink(file.path) } }
                if error == nil, let file, var reply = Self.answer(response, nil) {
                    unlink(downloadTo.path)
                    if reply.status == 200 {
                        do { try FileManager.default.moveItem(at: file, to: downloadTo) } catch {
                            box.result = .failure(URLError(.cannotWriteToFile))
                            done.signal()
                            return
                        }
                    } else {
                        reply = Answer(status: reply.status, headers: reply.headers, body: (try? Data(contentsOf: file)) ?? Data())
                    }
                    box.result = .success(reply)
                } else {
                    box.result = .failure((error as? URLError) ?? URLError(.cannotConnectToHost))
                }
                done.signal()
            }
        } else if let body {
            task = session.uploadTask(with: request, fromFile: body, completionHandler: handler)
        } else {
            task = session.dataTask(with: request, completionHandler: handler)
        }
        task.resume()
        done.wait()
        return box.result
    }

    /// An HTTP answer with its header names in lower case.
    static func answer(_ response: URLResponse?, _ body: Data?) -> Answer? {
        guard let http = response as? HTTPURLResponse else { return nil }
        var lower: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { lower[name.lowercased()] = value }
        }
        return Answer(status: http.statusCode, headers: lower, body: body ?? Data())
    }

    /// What the completion handler saw, read after the semaphore (which orders the write before the read).
    private final class ResultBox: @unchecked Sendable {
        var result: Result<Answer, URLError> = .failure(URLError(.unknown))
    }

    /// S3's error code from an XML error body (`<Code>AccessDenied</Code>`), if any.
    static func errorCode(_ body: Data) -> String? {
        element("Code", in: String(decoding: body.prefix(4096), as: UTF8.self))
    }

    /// The text of the first `<name>…</name>` in `xml`, entities decoded.
    static func element(_ name: String, in xml: String) -> String? {
        guard let start = xml.range(of: "<\(name)>"), let end = xml.range(of: "</\(name)>", range: start.upperBound..<xml.endIndex) else { return nil }
        return String(xml[start.upperBound..<end.lowerBound])
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// A transport failure as a person would say it.
    static func plain(_ error: URLError, timeout: TimeInterval) -> String {
        switch error.code {
        case .timedOut: return "no answer within \(Int(timeout)) second\(timeout == 1 ? "" : "s")"
        case .cannotFindHost, .dnsLookupFailed: return "its address could not be found (DNS)"
        case .cannotConnectToHost: return "the connection was refused"
        case .networkConnectionLost: return "the connection was lost"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
             .serverCertificateHasUnknownRoot:
            return "the secure connection failed"
        default: return "no connection (\(error.code.rawValue))"
        }
    }
}
