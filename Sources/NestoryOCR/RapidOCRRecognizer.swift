import CTesseract
import Foundation
import NestoryReceipts
import NestoryChildProcess

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
        /// Threads ONNX Runtime may use inside each worker process (by default the machine's cores shared among the
        /// workers: `sharedThreads`). Two threads read a receipt in about 0.55× the time of one, with the same text
        /// (BENCHMARKS.md, Receipts, 2026-11-27 06:16), so one worker on a two-core machine uses both. (ONNX Runtime's own
        /// default is every core too; more than two were not measured.)
        public var threadsPerWorker: Int
        /// Text detection runs over the receipt in horizontal strips of at most this many pixels (at detection's
        /// scale), each read with `detectionOverlap` rows more above and below whose predictions are dropped, so a
        /// long or large receipt needs no more memory than a short one (0: the whole image at once, as RapidOCR
        /// does by itself). Detection's memory grows with its input, about 130 bytes a pixel: the whole of a
        /// 2,000 × 1,450 photo took 520 MiB at its peak (BENCHMARKS.md, Receipts, issue 22).
        public var detectionStripPixels: Int
        public var detectionOverlap: Int
        /// Whether the worker reads with the models `scripts/rapidocr-models.py` rewrote into the venv's
        /// `nestory-models` folder (written by scripts/install-ocr.sh): the same models with each convolution's
        /// scale, shift and hard-swish folded together, which read the same text as the packaged ones on all 381
        /// receipts of the shared set in about 0.73× the time (BENCHMARKS.md, Receipts, 2026-11-27 09:12). Where the
        /// folder is missing, or its models do not load, the worker uses the packaged models; it says which when it starts.
        public var rewrittenModels: Bool
        /// The malloc library loaded into each worker (`LD_PRELOAD`), or nil for glibc's. glibc's heap keeps the
        /// high-water mark of ONNX Runtime's many large tensors, freed and allocated again per model run, and hands
        /// pages back only to fault them in again; tcmalloc reuses them. Left out when the file is not there, so the
        /// worker runs without it (more memory, same text).
        public var allocator: String?
        public var maxPixels: Int
        public var maxBytes: Int
        /// Longest one image may take; a worker that has not answered by then is killed and started again.
        public var timeout: TimeInterval
        /// Where the workers' own messages (stderr) go, a line at a time.
        public var log: @Sendable (String) -> Void

        public static func == (a: Configuration, b: Configuration) -> Bool {
            (a.workers, a.maxQueued, a.python, a.threadsPerWorker) == (b.workers, b.maxQueued, b.python, b.threadsPerWorker)
                && (a.maxPixels, a.maxBytes, a.timeout) == (b.maxPixels, b.maxBytes, b.timeout)
                && (a.detectionStripPixels, a.detectionOverlap, a.allocator) == (b.detectionStripPixels, b.detectionOverlap, b.allocator)
                && a.rewrittenModels == b.rewrittenModels
        }

        /// Debian's tcmalloc (`libtcmalloc-minimal4`, installed by scripts/install-deps.sh) where it is installed.
        public static let allocatorCandidates = [
            "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4", "/usr/lib/aarch64-linux-gnu/libtcmalloc_minimal.so.4",
            "/usr/lib64/libtcmalloc_minimal.so.4", "/usr/lib/libtcmalloc_minimal.so.4",
        ]
        /// The machine's cores shared among `workers` workers (at least one thread each).
        public static func sharedThreads(workers: Int, cores: Int = ProcessInfo.processInfo.activeProcessorCount) -> Int {
            max(1, cores / max(1, workers))
        }

        public static var defaultAllocator: String? {
            allocatorCandidates.first { FileManager.default.fileExists(atPath: $0) }
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(workers)
            hasher.combine(python)
            hasher.combine(timeout)
        }

        public init(workers: Int = ProcessInfo.processInfo.activeProcessorCount, maxQueued: Int = 64,
                    python: String = "python3", threadsPerWorker: Int? = nil,
                    maxPixels: Int = 40_000_000, maxBytes: Int = 50_000_000, timeout: TimeInterval = 120,
                    detectionStripPixels: Int = 600_000, detectionOverlap: Int = 128, rewrittenModels: Bool = true,
                    allocator: String? = Configuration.defaultAllocator,
                    log: @escaping @Sendable (String) -> Void = { _ in }) {
            self.timeout = timeout
            self.detectionStripPixels = max(0, detectionStripPixels)
            self.detectionOverlap = max(0, detectionOverlap)
            self.rewrittenModels = rewrittenModels
            self.allocator = allocator
            self.log = log
            self.workers = max(1, workers)
            self.maxQueued = max(0, maxQueued)
            self.python = python
            self.threadsPerWorker = max(1, threadsPerWorker ?? Configuration.sharedThreads(workers: workers))
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
    /// Arguments: threads, detection's strip size in pixels (0: whole image), the strips' overlap in rows, and
    /// `rewritten` or `packaged` (the models). Its first line says it is ready and which models it read.
    /// `scripts/rapidocr-options.py` has the same detector, to measure settings beside this one.
    static let script = #"""
    import sys, json, base64, os
    try:
        import numpy as np, cv2
        from rapidocr_onnxruntime import RapidOCR
        threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
        strip_pixels = int(sys.argv[2]) if len(sys.argv) > 2 else 0
        overlap = int(sys.argv[3]) if len(sys.argv) > 3 else 128
        models = {}
        folder = os.path.join(sys.prefix, "nestory-models")
        names = ("det", "cls", "rec")
        # scripts/rapidocr-models.py writes its manifest after the three models, and removes it before rewriting.
        if (len(sys.argv) > 4 and sys.argv[4] == "rewritten" and os.path.isfile(os.path.join(folder, "manifest.json"))
                and all(os.path.isfile(os.path.join(folder, n + ".onnx")) for n in names)):
            models = {n + "_model_path": os.path.join(folder, n + ".onnx") for n in names}
        try:
            engine = RapidOCR(intra_op_num_threads=threads, inter_op_num_threads=1, **models)
        except Exception as error:
            if not models:
                raise
            print(f"the models in {folder} did not load ({error}); reading with the packaged ones", file=sys.stderr, flush=True)
            models = {}
            engine = RapidOCR(intra_op_num_threads=threads, inter_op_num_threads=1)

        class StripDetector:
            """RapidOCR's text detection, in horizontal strips of at most strip_pixels (multiples of 32 rows, the
            model's stride), each read with `overlap` rows more above and below whose predictions are dropped;
            the strips' probability maps make one map, boxed as RapidOCR boxes the whole image's."""
            def __init__(self, detector):
                self.detector = detector
            def __call__(self, img):
                d = self.detector
                pre = d.get_preprocess(max(img.shape[0], img.shape[1]))
                resized = pre.resize(img)
                if resized is None:
                    return None, 0.0
                height, width = resized.shape[:2]
                window = max(2 * overlap + 64, strip_pixels // width // 32 * 32)
                core = window - 2 * overlap
                preds = np.empty((1, 1, height, width), np.float32)
                top = 0
                while top < height:
                    if height <= window:
                        a, b, bottom = 0, height, height
                    else:
                        bottom = min(height, top + core)
                        a, b = max(0, top - overlap), min(height, bottom + overlap)
                    tensor = np.expand_dims(pre.permute(pre.normalize(resized[a:b])), axis=0).astype(np.float32)
                    preds[:, :, top:bottom, :] = d.infer(tensor)[0][:, :, top - a:bottom - a, :]
                    top = bottom
                del resized
                boxes, _ = d.postprocess_op(preds, img.shape[:2])
                return d.filter_tag_det_res(boxes, img.shape[:2]), 0.0

        if strip_pixels > 0:
            engine.text_det = StripDetector(engine.text_det)
    except Exception as error:
        print(json.dumps({"fatal": str(error)}), flush=True)
        sys.exit(1)
    print(json.dumps({"ready": True, "models": folder if models else "packaged"}), flush=True)
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

extension RapidOCRRecognizer {
    /// How a started worker's log line begins; the models it reads with follow (their folder, or "packaged").
    public static let readyMessage = "RapidOCR worker: ready, models: "

    /// How a worker is started: `/usr/bin/env` runs these (the Python, the script and its arguments).
    static func workerArguments(_ configuration: Configuration) -> [String] {
        [configuration.python, "-u", "-c", script, String(configuration.threadsPerWorker),
         String(configuration.detectionStripPixels), String(configuration.detectionOverlap),
         configuration.rewrittenModels ? "rewritten" : "packaged"]
    }

    /// The worker's environment: the server's, with ONNX Runtime's threads and the allocator (when it is installed).
    static func workerEnvironment(_ configuration: Configuration, _ inherited: [String: String]) -> [String: String] {
        var environment = inherited
        environment["OMP_NUM_THREADS"] = String(configuration.threadsPerWorker)
        if let allocator = configuration.allocator, FileManager.default.fileExists(atPath: allocator) {
            environment["LD_PRELOAD"] = [allocator, inherited["LD_PRELOAD"]].compactMap { $0 }.filter { !$0.isEmpty }
                .joined(separator: " ")
        }
        return environment
    }
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
        let process: ChildProcess
        /// Reads the worker's standard error into the log (kept while the worker lives).
        var errorLog: FileHandle?
        var buffer = Data()
        let timeout: TimeInterval

        init(_ configuration: RapidOCRRecognizer.Configuration) throws(RecognitionError) {
            timeout = configuration.timeout
            do {
                process = try ChildProcess(executable: "/usr/bin/env", arguments: RapidOCRRecognizer.workerArguments(configuration),
                                           environment: RapidOCRRecognizer.workerEnvironment(configuration, ProcessInfo.processInfo.environment),
                                           errors: .pipe)
            } catch {
                throw .engineUnavailable("\(configuration.python) could not be started: \(error)")
            }
            // The worker's own messages (Python warnings, ONNX Runtime) go to the server's log, read through a
            // descriptor of this handle's own until the worker closes its end.
            if let errors = process.errors {
                let log = configuration.log
                let pending = LineBuffer()
                let handle = FileHandle(fileDescriptor: dup(errors), closeOnDealloc: true)
                errorLog = handle
                handle.readabilityHandler = { handle in
                    let chunk = handle.availableData
                    if chunk.isEmpty { handle.readabilityHandler = nil; return }
                    for line in pending.append(chunk) { log("RapidOCR worker: \(line)") }
                }
            }
            let hello = readLine(timeout: max(configuration.timeout, 60)).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
            guard let object = hello, object["ready"] as? Bool == true else {
                process.signal(SIGTERM)
                // The script reports what stopped it (`fatal`): a missing package, or models that do not load.
                if let fatal = hello?["fatal"] as? String, !fatal.contains("No module named") {
                    throw .engineUnavailable("RapidOCR could not start with \(configuration.python): \(fatal)")
                }
                throw .engineUnavailable("RapidOCR is not installed for \(configuration.python) (pip install rapidocr-onnxruntime==1.4.4).")
            }
            configuration.log(RapidOCRRecognizer.readyMessage + (object["models"] as? String ?? "packaged"))
        }

        /// The next line the worker writes, or nil if it stopped or wrote none within `timeout` seconds (it is
        /// then killed: the next image starts a fresh worker).
        func readLine(timeout: TimeInterval) -> Data? {
            let deadline = Date().addingTimeInterval(timeout)
            while true {
                if let newline = buffer.firstIndex(of: 0x0A) {
                    let line = buffer[buffer.startIndex..<newline]
                    buffer = Data(buffer[(newline + 1)...])
                    return Data(line)
                }
                let remaining = Int32(clamping: Int(deadline.timeIntervalSinceNow * 1000))
                guard remaining > 0, let chunk = process.read(timeout: remaining) else {
                    process.signal(SIGKILL)
                    // Reaped before the next image asks `isRunning`: a killed worker not yet reaped was taken for a
                    // live one, and the next image failed at once instead of starting a fresh worker.
                    process.waitUntilExit()
                    return nil
                }
                if chunk.isEmpty { return nil }
                buffer.append(contentsOf: chunk)
            }
        }

        func read(_ data: Data) -> Result<RecognizedText, RecognitionError> {
            let request = Array("{\"image\":\"\(data.base64EncodedString())\"}\n".utf8)
            guard request.withUnsafeBytes({ process.write($0) }) else {
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
            process.closeInput()
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
