import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NestoryServices
import NestoryStore
import NestoryStoreInterfaces

/// `Idempotency-Key` on every POST of the API (the IETF draft's header, as payment APIs use it): the offline
/// queue sends each request with a key, and a replay after a lost response gets the stored answer instead of
/// doing the work twice.
///
/// - No key: nothing changes. A key that is not 1 to 255 printable ASCII characters, or more than one: 400.
/// - A key (per household) already answered within the window: when the request is the same (method, path
///   with query, and body, by SHA-256) the stored status, Content-Type, Location and body are sent again with
///   `Idempotent-Replayed: true`, without running the handler; a different request is 422.
/// - A key whose first request is still running: 409.
/// - Otherwise the handler runs and its response is stored before it is sent. Not stored (so a retry runs
///   again): 5xx answers, thrown errors (a use case that throws has changed nothing), and requests whose body
///   the handler did not read to its end.
///
/// The body is hashed as it streams past the handler, so a 40 MB photo is never held in memory for this; a
/// replay's body is read through the hash and dropped.
struct IdempotencyMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let idempotency: IdempotencyService
    /// The longest body a fingerprint is taken over: the largest upload the API takes. A longer replay cannot
    /// match what was stored.
    let maxBodyBytes: Int64
    /// Responses longer than this are sent but not kept (the API's answers to a POST are small JSON).
    static let maxStoredBytes = 1 << 20

    static let keyHeader = HTTPField.Name("Idempotency-Key")!
    static let replayedHeader = HTTPField.Name("Idempotent-Replayed")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post else { return try await next(request, context) }
        let keys = request.headers[values: Self.keyHeader]
        // Signed out: the handler answers 401, and there is no household to keep the key for.
        guard !keys.isEmpty, let viewer = context.viewer else { return try await next(request, context) }
        guard keys.count == 1, IdempotencyService.isValid(keys[0]) else { throw WebError.idempotencyKeyInvalid }
        let scope = IdempotencyService.Scope(household: viewer.household.id, key: keys[0])

        let fingerprint = Fingerprint(method: request.method, target: request.uri.path + (request.uri.query.map { "?" + $0 } ?? ""),
                                      limit: maxBodyBytes)
        var request = request
        request.body = RequestBody(asyncSequence: HashingBody(base: request.body, fingerprint: fingerprint))
        switch try await idempotency.begin(scope) {
        case .running:
            throw WebError.idempotencyKeyInUse
        case .answered(let stored):
            try await Self.drain(request.body, fingerprint)
            guard fingerprint.digest == stored.fingerprint else { throw WebError.idempotencyKeyReused }
            return Self.replay(stored)
        case .claimed:
            break
        }

        // The key is this request's until its answer is stored; any other way out gives it up (before answering, so
        // an immediate retry runs again), and when the store cannot be reached then, the claim lapses by itself.
        do {
            let (response, stored) = try await answer(request, context: context, scope: scope, fingerprint: fingerprint, next: next)
            if !stored { try? await idempotency.end(scope) }
            return response
        } catch {
            try? await idempotency.end(scope)
            throw error
        }
    }

    /// Runs the handler and stores its answer when it may be replayed; returns the response and whether it was stored.
    private func answer(_ request: Request, context: Context, scope: IdempotencyService.Scope, fingerprint: Fingerprint,
                        next: (Request, Context) async throws -> Response) async throws -> (Response, stored: Bool) {
        let response = try await next(request, context)
        guard response.status.code < 500 else { return (response, false) }
        if !fingerprint.started { try await Self.drain(request.body, fingerprint) }  // a handler that had no use for the body
        let collector = Collector()
        try await response.body.write(collector)
        var body = ByteBuffer()
        body.reserveCapacity(collector.box.byteCount)
        for var buffer in collector.box.buffers { body.writeBuffer(&buffer) }
        var stored = false
        if let digest = fingerprint.digest, body.readableBytes <= Self.maxStoredBytes {
            var headers: [String: String] = [:]
            if let type = response.headers[.contentType] { headers["Content-Type"] = type }
            if let location = response.headers[.location] { headers["Location"] = location }
            try await idempotency.store(scope, fingerprint: digest, status: Int(response.status.code), headers: headers,
                                        body: Data(buffer: body))
            stored = true
        }
        return (Response(status: response.status, headers: response.headers, body: .init(byteBuffer: body)), stored)
    }

    /// The stored answer, as it was sent the first time.
    static func replay(_ stored: StoredResponse) -> Response {
        var headers: HTTPFields = [replayedHeader: "true"]
        if let type = stored.headers["Content-Type"] { headers[.contentType] = type }
        if let location = stored.headers["Location"] { headers[.location] = location }
        return Response(status: HTTPResponse.Status(code: stored.status), headers: headers,
                        body: stored.body.isEmpty ? .init() : .init(byteBuffer: ByteBuffer(bytes: stored.body)))
    }

    /// Reads the rest of a body through its fingerprint, keeping nothing; stops past the limit (no match then).
    private static func drain(_ body: RequestBody, _ fingerprint: Fingerprint) async throws {
        for try await _ in body where fingerprint.overLimit { break }
    }
}

/// A SHA-256 of the method, the path and the body, taken as the body streams by.
final class Fingerprint: @unchecked Sendable {
    private let lock = NSLock()
    private var hasher = SHA256()
    private var bytes: Int64 = 0
    private let limit: Int64
    private var _started = false
    private var _digest: String?

    init(method: HTTPRequest.Method, target: String, limit: Int64) {
        self.limit = limit
        hasher.update(data: Data("\(method.rawValue) \(target)\n".utf8))
    }

    /// Whether anyone began reading the body.
    var started: Bool { lock.withLock { _started } }
    /// Whether more than the limit went by: such a body is never stored, so it matches nothing.
    var overLimit: Bool { lock.withLock { bytes > limit } }
    /// The hex digest, once the body was read to its end within the limit.
    var digest: String? { lock.withLock { bytes > limit ? nil : _digest } }

    func start() { lock.withLock { _started = true } }

    func add(_ buffer: ByteBuffer) {
        lock.withLock {
            bytes += Int64(buffer.readableBytes)
            buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
        }
    }

    func finish() {
        lock.withLock {
            guard _digest == nil else { return }
            _digest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        }
    }
}

/// A request body that feeds each buffer to a fingerprint on its way to the handler.
struct HashingBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let base: RequestBody
    let fingerprint: Fingerprint

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let fingerprint: Fingerprint

        mutating func next() async throws -> ByteBuffer? {
            guard let buffer = try await base.next() else {
                fingerprint.finish()
                return nil
            }
            fingerprint.add(buffer)
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        fingerprint.start()
        return AsyncIterator(base: base.makeAsyncIterator(), fingerprint: fingerprint)
    }
}

/// Keeps what a response body writes, to store it and send it.
struct Collector: ResponseBodyWriter {
    final class Box: @unchecked Sendable {
        var buffers: [ByteBuffer] = []
        var byteCount = 0
    }
    let box = Box()

    mutating func write(_ buffer: ByteBuffer) async throws {
        box.buffers.append(buffer)
        box.byteCount += buffer.readableBytes
    }

    mutating func write(contentsOf buffers: some Sequence<ByteBuffer>) async throws {
        for buffer in buffers { try await write(buffer) }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
