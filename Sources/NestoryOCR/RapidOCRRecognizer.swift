import CTesseract
import Foundation
import NestoryReceipts

/// Reads text with RapidOCR: PaddleOCR's PP-OCRv4 detection and recognition models on ONNX Runtime,
/// installed from PyPI (`pip install rapidocr-onnxruntime==1.4.4`; the models ship inside the wheel,
/// nothing is downloaded at run time).
///
/// An optional second engine behind the same `TextRecognizer` interface as tesseract. Each worker thread
/// owns one long-lived Python process (loaded once, about a second) and sends it one image at a time over
/// a pipe; the queue and its bounds are the same as `TesseractRecognizer`'s.
public final class RapidOCRRecognizer: TextRecognizer, @unchecked Sendable {
    public struct Configuration: Hashable, Sendable {
        public var workers: Int
        public var maxQueued: Int
        /// The Python interpreter that has `rapidocr_onnxruntime` installed (a virtualenv's `bin/python`).
        public var python: String
        /// Threads ONNX Runtime may use inside each worker process.
        public var threadsPerWorker: Int
        public var maxPixels: Int
        public var maxBytes: Int
        /// Longest one image may take; a worker that has not answered by then is killed and started again.
        public var timeout: TimeInterval
        /// Where the workers' own messages (stderr) go, a line at a time.
        public var log: @Sendable (String) -> Void

        public static func == (a: Configuration, b: Configuration) -> Bool {
            (a.workers, a.maxQueued, a.python, a.threadsPerWorker) == (b.workers, b.maxQueued, b.python, b.threadsPerWorker)
                && (a.maxPixels, a.maxBytes, a.timeout) == (b.maxPixels, b.maxBytes, b.timeout)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(workers)
            hasher.combine(python)
            hasher.combine(timeout)
        }

        public init(workers: Int = ProcessInfo.processInfo.activeProcessorCount, maxQueued: Int = 64,
                    python: String = "python3", threadsPerWorker: Int = 1,
                    maxPixels: Int = 40_000_000, maxBytes: Int = 50_000_000, timeout: TimeInterval = 120,
                    log: @escaping @Sendable (String) -> Void = { _ in }) {
            self.timeout = timeout
            self.log = log
            self.workers = max(1, workers)
            self.maxQueued = max(0, maxQueued)
            self.python = python
            self.threadsPerWorker = max(1, threadsPerWorker)
            self.maxPixels = maxPixels
            self.maxBytes = maxBytes
        }
    }

    public let configuration: Configuration
    private let queue: JobQueue

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        queue = JobQueue(limit: configuration.workers + configuration.maxQueued)
        for index in 0..<configuration.workers {
            let queue = self.queue
            let configuration = configuration
            let thread = Thread { RapidWorker(configuration: configuration).run(queue) }
            thread.name = "rapidocr-\(index)"
            thread.start()
        }
    }

    deinit { queue.close() }

    public func shutdown() { queue.close() }

    public func recognize(imageData: Data) async throws(RecognitionError) -> RecognizedText {
        guard !imageData.isEmpty else { throw .unreadableImage }
        guard imageData.count <= configuration.maxBytes else {
            throw .imageTooLarge(width: 0, height: 0, maxPixels: configuration.maxPixels)
        }
        // The same header check as tesseract's: refuse what is not an image, or too large, before decoding.
        _ = try ImageHeader(data: imageData, maxPixels: configuration.maxPixels)
        let result: Result<RecognizedText, RecognitionError> = await withCheckedContinuation { continuation in
            let accepted = queue.push(Job(data: imageData, finish: { continuation.resume(returning: $0) }))
            if !accepted {
                continuation.resume(returning: .failure(.recognitionFailed("too many receipts are waiting to be read; try again shortly.")))
            }
        }
        return try result.get()
    }

    /// The worker program: reads one JSON request per line (`{"image": base64}`), answers one JSON line.
    static let script = #"""
    import sys, json, base64
    try:
        import numpy as np, cv2
        from rapidocr_onnxruntime import RapidOCR
        threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
        engine = RapidOCR(intra_op_num_threads=threads, inter_op_num_threads=1)
    except Exception as error:
        print(json.dumps({"fatal": str(error)}), flush=True)
        sys.exit(1)
    print(json.dumps({"ready": True}), flush=True)
    for request in sys.stdin:
        try:
            data = base64.b64decode(json.loads(request)["image"])
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
            if image is None:
                print(json.dumps({"error": "unreadable"}), flush=True)
                continue
            result, _ = engine(image)
            lines = []
            for box, text, score in (result or []):
                xs = [p[0] for p in box]; ys = [p[1] for p in box]
                lines.append({"text": text, "confidence": float(score), "words": [],
                              "box": {"x": int(min(xs)), "y": int(min(ys)),
                                      "width": int(max(xs) - min(xs)), "height": int(max(ys) - min(ys))}})
            mean = sum(l["confidence"] for l in lines) / len(lines) if lines else 0.0
            print(json.dumps({"lines": lines, "confidence": mean,
                              "imageWidth": int(image.shape[1]), "imageHeight": int(image.shape[0])}), flush=True)
        except Exception as error:
            print(json.dumps({"error": str(error)}), flush=True)
    """#
}

/// An image's size from its header, without decoding it.
struct ImageHeader {
    let width: Int
    let height: Int

    init(data: Data, maxPixels: Int) throws(RecognitionError) {
        var format: Int32 = 0, width: Int32 = 0, height: Int32 = 0, bps: Int32 = 0, spp: Int32 = 0, colormap: Int32 = 0
        let status = data.withUnsafeBytes { raw -> Int32 in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return 1 }
            return pixReadHeaderMem(base, raw.count, &format, &width, &height, &bps, &spp, &colormap)
        }
        guard status == 0, width > 0, height > 0 else { throw .unreadableImage }
        guard Int(width) * Int(height) <= maxPixels else {
            throw .imageTooLarge(width: Int(width), height: Int(height), maxPixels: maxPixels)
        }
        self.width = Int(width)
        self.height = Int(height)
    }
}

/// One worker thread and its Python process, restarted if it dies.
struct RapidWorker {
    let configuration: RapidOCRRecognizer.Configuration

    final class Child {
        let process = Process()
        let input = Pipe()
        let output = Pipe()
        var buffer = Data()
        let timeout: TimeInterval

        init(_ configuration: RapidOCRRecognizer.Configuration) throws(RecognitionError) {
            timeout = configuration.timeout
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [configuration.python, "-u", "-c", RapidOCRRecognizer.script, String(configuration.threadsPerWorker)]
            var environment = ProcessInfo.processInfo.environment
            environment["OMP_NUM_THREADS"] = String(configuration.threadsPerWorker)
            process.environment = environment
            process.standardInput = input
            process.standardOutput = output
            // The worker's own messages (Python warnings, ONNX Runtime) go to the server's log.
            let errors = Pipe()
            let log = configuration.log
            let pending = LineBuffer()
            errors.fileHandleForReading.readabilityHandler = { handle in
                let chunk = handle.availableData
                if chunk.isEmpty { handle.readabilityHandler = nil; return }
                for line in pending.append(chunk) { log("RapidOCR worker: \(line)") }
            }
            process.standardError = errors
            do { try process.run() } catch {
                throw .engineUnavailable("\(configuration.python) could not be started: \(error.localizedDescription)")
            }
            guard let hello = readLine(timeout: max(configuration.timeout, 60)), let object = try? JSONSerialization.jsonObject(with: hello) as? [String: Any],
                  object["ready"] as? Bool == true else {
                process.terminate()
                throw .engineUnavailable("RapidOCR is not installed for \(configuration.python) (pip install rapidocr-onnxruntime==1.4.4).")
            }
        }

        /// The next line the worker writes, or nil if it stopped or wrote none within `timeout` seconds (it is
        /// then killed: the next image starts a fresh worker).
        func readLine(timeout: TimeInterval) -> Data? {
            let deadline = Date().addingTimeInterval(timeout)
            let fd = output.fileHandleForReading.fileDescriptor
            while true {
                if let newline = buffer.firstIndex(of: 0x0A) {
                    let line = buffer[buffer.startIndex..<newline]
                    buffer = Data(buffer[(newline + 1)...])
                    return Data(line)
                }
                var wait = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let remaining = Int32(clamping: Int(deadline.timeIntervalSinceNow * 1000))
                if remaining <= 0 || poll(&wait, 1, remaining) == 0 {
                    kill(process.processIdentifier, SIGKILL)
                    return nil
                }
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { return nil }
                buffer.append(chunk)
            }
        }

        func read(_ data: Data) -> Result<RecognizedText, RecognitionError> {
            let request = "{\"image\":\"\(data.base64EncodedString())\"}\n"
            do { try input.fileHandleForWriting.write(contentsOf: Data(request.utf8)) } catch {
                return .failure(.recognitionFailed("the RapidOCR worker stopped."))
            }
            guard let line = readLine(timeout: timeout) else {
                return .failure(.recognitionFailed("the RapidOCR worker stopped or took longer than \(Int(timeout)) s."))
            }
            if let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any], let error = object["error"] as? String {
                return .failure(error == "unreadable" ? .unreadableImage : .recognitionFailed(error))
            }
            guard let text = try? JSONDecoder().decode(RecognizedText.self, from: line) else {
                return .failure(.recognitionFailed("the RapidOCR worker answered something unexpected."))
            }
            return .success(text)
        }

        func stop() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    func run(_ queue: JobQueue) {
        var child: Child?
        var startError: RecognitionError?
        while let job = queue.pop() {
            if child == nil || child?.process.isRunning == false {
                do throws(RecognitionError) { child = try Child(configuration); startError = nil } catch {
                    child = nil
                    startError = error
                }
            }
            guard let child else {
                job.finish(.failure(startError ?? .engineUnavailable("RapidOCR could not be started.")))
                continue
            }
            job.finish(child.read(job.data))
        }
        child?.stop()
    }
}

/// Splits a byte stream into lines (a worker's stderr).
final class LineBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = Data()

    func append(_ chunk: Data) -> [String] {
        lock.withLock {
            buffer.append(chunk)
            var lines: [String] = []
            while let newline = buffer.firstIndex(of: 0x0A) {
                lines.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                buffer = Data(buffer[(newline + 1)...])
            }
            return lines.filter { !$0.isEmpty }
        }
    }
}
