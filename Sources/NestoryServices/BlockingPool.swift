import Foundation

/// Runs blocking work (password hashing, restores, imports, decodes, large writes) on a bounded set of
/// threads of its own, never on an event loop or Swift's cooperative pool: at most `width` jobs run at
/// once and the rest wait their turn without holding a thread.
public final class BlockingPool: Sendable {
    private let queue: DispatchQueue
    private let gate: Gate
    public let width: Int

    public init(label: String = "nestory.blocking", width: Int = max(2, ProcessInfo.processInfo.activeProcessorCount)) {
        precondition(width >= 1, "a pool needs at least one thread")
        self.width = width
        queue = DispatchQueue(label: label, qos: .userInitiated, attributes: .concurrent)
        gate = Gate(width)
    }

    /// Runs `body` on one of the pool's threads and returns what it returned or threw.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        await gate.acquire()
        let result: Result<T, any Error> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Result { try body() }) }
        }
        await gate.release()
        return try result.get()
    }

    /// ``run(_:)`` for work that cannot fail.
    public func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await gate.acquire()
        let result = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
        await gate.release()
        return result
    }

    /// A counting semaphore that suspends instead of blocking.
    private actor Gate {
        private var available: Int
        private var waiters: [CheckedContinuation<Void, Never>] = []

        init(_ width: Int) { available = width }

        func acquire() async {
            if available > 0 {
                available -= 1
                return
            }
            await withCheckedContinuation { waiters.append($0) }
        }

        func release() {
            if waiters.isEmpty { available += 1 } else { waiters.removeFirst().resume() }
        }
    }
}
