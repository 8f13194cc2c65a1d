import HummingbirdCore
import Logging
import NIOCore

/// Runs Swift tasks on one SwiftNIO event loop: a `TaskExecutor` for `withTaskExecutorPreference`.
final class EventLoopTaskExecutor: TaskExecutor, @unchecked Sendable {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// HTTP/1.1 connections whose requests are handled on the event loop that reads and writes the
/// connection's socket.
///
/// Hummingbird otherwise runs each connection's request loop on Swift's global pool: every request
/// then hops from the event loop thread (which read it) to a pool thread (which runs the handler)
/// and back (to write the response), and on 2 cores the 2 event loop threads and the 2 pool threads
/// preempt one another, so under load some requests wait behind several time slices (the p99
/// tail). Here a connection's request parts, its handler and its response writes run on one thread,
/// one after the other, and the connections of one event loop take turns in the order they became
/// ready. What still waits (password hashing, reports, images, OCR, backups) runs on queues of its
/// own and is awaited, so it does not hold an event loop; handlers' database reads are short.
struct EventLoopHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let base: HTTP1Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await base.handle(value: value, logger: logger)
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 (Hummingbird's defaults) with each connection handled on its event loop.
    static func http1OnEventLoops(configuration: HTTP1Channel.Configuration = .init()) -> HTTPServerBuilder {
        .init { responder in EventLoopHTTP1Channel(base: HTTP1Channel(responder: responder, configuration: configuration)) }
    }
}
