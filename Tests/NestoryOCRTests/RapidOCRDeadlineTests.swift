import Foundation
import NestoryOCR
import NestoryReceipts
import Testing

/// A RapidOCR worker that hangs never blocks the queue: past the deadline it is killed and the next image
/// gets a fresh worker; what the worker prints on stderr reaches the log.
@Suite struct RapidOCRDeadlineTests {
    /// A stand-in for the worker's Python: says it is ready (and a warning on stderr), then never answers.
    static func hangingWorker() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-hanging-worker-\(UUID()).sh").path
        try Data("""
            #!/bin/sh
            echo "onnxruntime: pretend warning" >&2
            echo '{"ready": true}'
            exec sleep 600
            """.utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o755)
        return path
    }

    final class Lines: @unchecked Sendable {
        let lock = NSLock()
        var lines: [String] = []
        func add(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    @Test func aHungWorkerIsKilledAtTheDeadlineAndReplaced() async throws {
        let worker = try Self.hangingWorker()
        defer { try? FileManager.default.removeItem(atPath: worker) }
        let log = Lines()
        let recognizer = RapidOCRRecognizer(configuration: .init(workers: 1, maxQueued: 4, python: worker, timeout: 1,
                                                                 log: { log.add($0) }))
        let image = try RenderedReceipts.png("TOTAL 12.50", name: "deadline")
        for attempt in 1...2 {
            let start = Date()
            await #expect(throws: RecognitionError.recognitionFailed("the RapidOCR worker stopped or took longer than 1 s.")) {
                _ = try await recognizer.recognize(imageData: image)
            }
            // Under the hung worker's 600 s, with room for a loaded machine (36 s was seen with the whole suite and a
            // build running beside it, 152 s at load 14 with two builds): the point is that it was killed, not how fast.
            #expect(Date().timeIntervalSince(start) < 300, "attempt \(attempt) waited past the deadline")
        }
        try await Task.sleep(for: .milliseconds(200))
        // Two workers were started (the first was killed), and each one's stderr was logged.
        #expect(log.all.filter { $0 == "RapidOCR worker: onnxruntime: pretend warning" }.count == 2, "\(log.all)")
        recognizer.shutdown()
    }
}
