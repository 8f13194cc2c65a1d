import Foundation

/// Produces values on a thread of its own while the caller consumes them, at most `capacity` ahead: reading and
/// checking the next rows of a file while the database stores the last ones, so a bulk import or a restore costs
/// about the longer of the two rather than their sum (two cores here). The producer stops when it returns nil or
/// throws (the consumer gets the error at that point), or when the consumer is done (`finish`, also on deinit).
package final class ReadAhead<Value: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var ready: [Result<Value, any Error>] = []
    private var ended = false
    private var cancelled = false
    private let capacity: Int

    package init(capacity: Int = 4, produce: @escaping @Sendable () throws -> Value?) {
        self.capacity = max(1, capacity)
        let thread = Thread { [self] in
            while true {
                let next: Result<Value, any Error>?
                do { next = try produce().map { .success($0) } } catch { next = .failure(error) }
                condition.lock()
                while ready.count >= self.capacity && !cancelled { condition.wait() }
                guard !cancelled, let next else {
                    ended = true
                    condition.broadcast()
                    condition.unlock()
                    return
                }
                ready.append(next)
                let failed = if case .failure = next { true } else { false }
                if failed { ended = true }
                condition.broadcast()
                condition.unlock()
                if failed { return }
            }
        }
        thread.name = "nestory.read-ahead"
        thread.start()
    }

    /// The next value in order, waiting for it; nil at the end; rethrows what the producer threw.
    package func next() throws -> Value? {
        condition.lock()
        defer { condition.unlock() }
        while ready.isEmpty && !ended { condition.wait() }
        guard !ready.isEmpty else { return nil }
        let value = ready.removeFirst()
        condition.broadcast()
        return try value.get()
    }

    /// Tells the producer to stop (the consumer failed or needs no more).
    package func finish() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    deinit { finish() }
}
