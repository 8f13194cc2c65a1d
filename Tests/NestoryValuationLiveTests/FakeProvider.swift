import Foundation
import Hummingbird
import NestoryHTTP
import NestoryValuationLive

/// A local server on 127.0.0.1 that answers POSTs with scripted replies shaped like a provider's (status, JSON
/// body, headers, an optional delay), in order (the last one repeats), and records each request. Nothing in
/// these tests reaches the internet.
final class FakeProvider: Sendable {
    struct Reply: Sendable {
        var status: Int
        var body: String
        var headers: [String: String] = [:]
        var delay: Duration?
    }

    struct Recorded: Sendable {
        let path: String
        let authorization: String?
        let body: Data

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }

    let port: Int
    private let task: Task<Void, any Error>
    private let log: Log

    init(_ replies: [Reply]) async throws {
        let router = Router()
        let log = Log(replies: replies)
        let handler: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            let buffer = try await request.body.collect(upTo: 64 << 20)
            let reply = log.record(Recorded(path: request.uri.path, authorization: request.headers[.authorization], body: Data(buffer.readableBytesView)))
            if let delay = reply.delay { try await Task.sleep(for: delay) }
            var fields = HTTPFields()
            fields[.contentType] = "application/json"
            for (name, value) in reply.headers { fields[HTTPFields.Element.Name(name)!] = value }
            return Response(status: .init(code: reply.status), headers: fields, body: .init(byteBuffer: ByteBuffer(string: reply.body)))
        }
        router.post("v1/chat/completions", use: handler)
        router.post("search", use: handler)
        let ready = AsyncStream.makeStream(of: Int.self)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in ready.continuation.yield(channel.localAddress?.port ?? 0) })
        task = Task { try await app.run() }
        var iterator = ready.stream.makeAsyncIterator()
        port = await iterator.next() ?? 0
        self.log = log
    }

    var base: URL { URL(string: "http://127.0.0.1:\(port)")! }
    var openAIBase: URL { URL(string: "http://127.0.0.1:\(port)/v1")! }
    var requests: [Recorded] { log.requests }

    func stop() { task.cancel() }

    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var replies: [Reply]
        private var list: [Recorded] = []

        init(replies: [Reply]) { self.replies = replies }

        func record(_ request: Recorded) -> Reply {
            lock.withLock {
                list.append(request)
                return replies.count > 1 ? replies.removeFirst() : replies[0]
            }
        }

        var requests: [Recorded] { lock.withLock { list } }
    }
}

/// Waits recorded instead of slept: tests never wait for a backoff.
final class Waits: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Duration] = []
    var all: [Duration] { lock.withLock { list } }

    func policy(attempts: Int = 4) -> RetryPolicy {
        RetryPolicy(maxAttempts: attempts, sleep: { [self] wait in lock.withLock { list.append(wait) } }, random: { 0.5 })
    }
}
