import CTesseract
import Foundation
import NestoryReceipts

/// How tesseract splits the page into lines (its `--psm`).
public enum PageSegmentation: UInt32, Sendable, CaseIterable {
    /// Fully automatic layout analysis (PSM 3).
    case automatic = 3
    /// One column of text of varying sizes (PSM 4): a receipt's usual shape.
    case singleColumn = 4
    /// One uniform block of text (PSM 6).
    case singleBlock = 6
    /// As much text as possible, in no particular order (PSM 11).
    case sparse = 11
    /// One line of text (PSM 7): a line read again (`LineRereader`).
    case singleLine = 7
}

/// Image preparation before recognition. Each step is kept only where the receipt benchmark shows it helps.
public struct ImagePreparation: Hashable, Sendable {
    /// Enlarge images whose width is below this many pixels (small text reads badly); 0 to never enlarge.
    public var minimumWidth: Int
    /// Binarise with leptonica's adaptive Otsu threshold before recognition (tesseract otherwise uses its own).
    public var adaptiveThreshold: Bool
    /// Straighten slightly rotated scans (leptonica's `pixDeskew`).
    public var deskew: Bool
    /// Grey from the darkest colour channel instead of luminance: coloured (blue, red) ink gets darker.
    public var darkestChannel: Bool
    /// Tesseract's own binarisation: 0 Otsu (its default), 1 tiled Otsu, 2 Sauvola.
    public var thresholdingMethod: Int
    /// Flatten the paper's background (leptonica's `pixBackgroundNormSimple`) before enlarging.
    public var normalizeBackground: Bool = false
    /// Sharpen after enlarging (leptonica's unsharp mask, half-width 2, fraction 0.5).
    public var sharpen: Bool = false

    public init(minimumWidth: Int = 0, adaptiveThreshold: Bool = false, deskew: Bool = false,
                darkestChannel: Bool = false, thresholdingMethod: Int = 0) {
        self.minimumWidth = minimumWidth
        self.adaptiveThreshold = adaptiveThreshold
        self.deskew = deskew
        self.darkestChannel = darkestChannel
        self.thresholdingMethod = thresholdingMethod
    }

    /// What the benchmark kept (see BENCHMARKS.md, Receipts): grey from the darkest channel, and narrow
    /// images (the typical receipt scan is 450–750 px wide, with 8 px letters) enlarged to 1500 px.
    /// Adaptive Otsu, Sauvola and larger enlargements measured worse; deskew did not help these scans.
    public static let standard = ImagePreparation(minimumWidth: 1500, darkestChannel: true)
}

/// Reads text with tesseract on a small pool of worker threads, each owning one warm engine.
///
/// Recognition is CPU-bound and takes about a second per receipt, so it never runs on the caller's
/// thread or on Swift's cooperative pool: `recognize` queues the image and suspends until a worker has
/// read it. At most `workers` images are read at a time and at most `maxQueued` wait, so a burst of
/// uploads cannot take every core from a web server or grow memory without bound.
public final class TesseractRecognizer: TextRecognizer, @unchecked Sendable {
    public struct Configuration: Hashable, Sendable {
        /// Worker threads, each with its own engine: the most images read at once.
        public var workers: Int
        /// Images that may wait for a worker before `recognize` fails with `.recognitionFailed`.
        public var maxQueued: Int
        public var pageSegmentation: PageSegmentation
        public var preparation: ImagePreparation
        /// Images with more pixels are refused before being decoded.
        public var maxPixels: Int
        /// Files larger than this are refused unread.
        public var maxBytes: Int
        /// Tesseract language(s), e.g. `eng` or `eng+deu`.
        public var language: String
        /// The tessdata folder; nil for tesseract's default.
        public var dataPath: String?
        /// Longest one image may take: tesseract stops there and keeps what it read.
        public var timeout: TimeInterval

        public init(workers: Int = ProcessInfo.processInfo.activeProcessorCount, maxQueued: Int = 64,
                    pageSegmentation: PageSegmentation = .singleColumn, preparation: ImagePreparation = .standard,
                    maxPixels: Int = 40_000_000, maxBytes: Int = 50_000_000, language: String = "eng",
                    dataPath: String? = nil, timeout: TimeInterval = 120) {
            self.timeout = timeout
            self.workers = max(1, workers)
            self.maxQueued = max(0, maxQueued)
            self.pageSegmentation = pageSegmentation
            self.preparation = preparation
            self.maxPixels = maxPixels
            self.maxBytes = maxBytes
            self.language = language
            self.dataPath = dataPath
        }
    }

    public let configuration: Configuration
    private let queue: JobQueue

    /// Starts the workers; each loads its engine at once, so the first receipts do not pay for it.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        Self.limitOpenMPThreads()  // before anything loads tesseract: OpenMP reads it as it loads
        Self.silenceLeptonica
        queue = JobQueue(limit: configuration.workers + configuration.maxQueued)
        for index in 0..<configuration.workers {
            let queue = self.queue
            let configuration = configuration
            let thread = Thread {
                Worker(configuration: configuration).run(queue)
            }
            thread.name = "tesseract-\(index)"
            // Tesseract recurses deeply on some layouts; give it more than the default stack.
            thread.stackSize = 16 << 20
            thread.start()
        }
    }

    deinit { queue.close() }

    /// Stops the workers once the queued images are read. Later calls to `recognize` fail.
    public func shutdown() { queue.close() }

    public func recognize(imageData: Data) async throws(RecognitionError) -> RecognizedText {
        guard !imageData.isEmpty else { throw .unreadableImage }
        guard imageData.count <= configuration.maxBytes else {
            throw .imageTooLarge(width: 0, height: 0, maxPixels: configuration.maxPixels)
        }
        let result: Result<RecognizedText, RecognitionError> = await withCheckedContinuation { continuation in
            let accepted = queue.push(Job(data: imageData, finish: { continuation.resume(returning: $0) }))
            if !accepted {
                continuation.resume(returning: .failure(.recognitionFailed("too many receipts are waiting to be read; try again shortly.")))
            }
        }
        return try result.get()
    }

    /// A line read again is read from its box widened by this share of its height on every side (the first
    /// engine's box may clip a letter's top or a slanted line's end).
    static let linePadding = 0.25

    /// OpenMP inside tesseract only contends with the other workers and the web app (a second reading of a receipt's
    /// doubtful lines took p50 0.60 s with OpenMP's threads, 0.14 s without, on 40 receipts at load 1). A limit the
    /// operator set stays. Every engine sets it; whoever also starts other OCR processes (the RapidOCR worker
    /// inherits the environment) calls it before starting them.
    public static func limitOpenMPThreads() {
        setenv("OMP_THREAD_LIMIT", "1", 0)
    }

    private static let silenceLeptonica: Void = {
        // Leptonica reports unreadable images on stderr; the caller gets a Swift error instead.
        _ = setMsgSeverity(Int32(L_SEVERITY_NONE))
    }()
}

extension TesseractRecognizer: LineRereader {
    /// Reads each box of the image as one line, on the same workers as whole images.
    public func reread(imageData: Data, boxes: [TextBox]) async throws(RecognitionError) -> [RecognizedLine] {
        guard !boxes.isEmpty else { return [] }
        guard !imageData.isEmpty else { throw .unreadableImage }
        let result: Result<RecognizedText, RecognitionError> = await withCheckedContinuation { continuation in
            let accepted = queue.push(Job(data: imageData, boxes: boxes, finish: { continuation.resume(returning: $0) }))
            if !accepted {
                continuation.resume(returning: .failure(.recognitionFailed("too many receipts are waiting to be read; try again shortly.")))
            }
        }
        return try result.get().lines
    }
}

/// One image to read and how to hand back the result. With `boxes`, only those lines are read, one line each
/// (`RecognizedText.lines` in the boxes' order).
struct Job: Sendable {
    let data: Data
    var boxes: [TextBox]? = nil
    let finish: @Sendable (Result<RecognizedText, RecognitionError>) -> Void
}

/// A blocking queue shared by the workers.
final class JobQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var head = 0
    private var closed = false
    private let limit: Int

    init(limit: Int) { self.limit = limit }

    func push(_ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed, jobs.count - head < limit else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// The next job, waiting for one; nil once closed and drained.
    func pop() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while head == jobs.count && !closed { condition.wait() }
        guard head < jobs.count else { return nil }
        let job = jobs[head]
        head += 1
        if head > 64, head * 2 > jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
        return job
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}

/// A worker thread's loop: one engine, loaded once, used for every job it takes.
struct Worker {
    let configuration: TesseractRecognizer.Configuration

    func run(_ queue: JobQueue) {
        let engine: Result<TesseractEngine, RecognitionError>
        do throws(RecognitionError) {
            engine = .success(try TesseractEngine(dataPath: configuration.dataPath, language: configuration.language,
                                                 thresholdingMethod: configuration.preparation.thresholdingMethod))
        } catch {
            engine = .failure(error)
        }
        while let job = queue.pop() {
            switch engine {
            case let .failure(error): job.finish(.failure(error))
            case let .success(engine):
                job.finish(job.boxes.map { read(job.data, lines: $0, engine) } ?? read(job.data, engine))
            }
        }
    }

    func read(_ data: Data, _ engine: TesseractEngine) -> Result<RecognizedText, RecognitionError> {
        do throws(RecognitionError) {
            let image = try PreparedImage(data: data, configuration: configuration)
            defer { image.destroy() }
            return .success(try engine.recognize(image.pix, pageSegmentation: configuration.pageSegmentation, scale: image.scale,
                                                 originalWidth: image.originalWidth, originalHeight: image.originalHeight,
                                                 deadline: configuration.timeout))
        } catch {
            return .failure(error)
        }
    }
}

extension Worker {
    /// Each box read as one line (PSM 7), padded a quarter of its height around, on the prepared image.
    func read(_ data: Data, lines boxes: [TextBox], _ engine: TesseractEngine) -> Result<RecognizedText, RecognitionError> {
        do throws(RecognitionError) {
            let image = try PreparedImage(data: data, configuration: configuration)
            defer { image.destroy() }
            let width = Int(pixGetWidth(image.pix)), height = Int(pixGetHeight(image.pix))
            var lines: [RecognizedLine] = []
            for box in boxes {
                let pad = Double(box.height) * TesseractRecognizer.linePadding
                let left = max(0, Int((Double(box.x) - pad) * image.scale)), top = max(0, Int((Double(box.y) - pad) * image.scale))
                let right = min(width, Int((Double(box.maxX) + pad) * image.scale)), bottom = min(height, Int((Double(box.maxY) + pad) * image.scale))
                guard right > left, bottom > top else { lines.append(RecognizedLine(text: "", box: box)); continue }
                let read = try engine.recognize(image.pix, pageSegmentation: .singleLine, scale: image.scale,
                                                originalWidth: image.originalWidth, originalHeight: image.originalHeight,
                                                deadline: configuration.timeout,
                                                rectangle: TextBox(x: left, y: top, width: right - left, height: bottom - top))
                let words = read.lines.flatMap(\.words)
                let confidences = words.compactMap(\.confidence)
                lines.append(RecognizedLine(text: words.map(\.text).joined(separator: " "), box: box,
                                            confidence: confidences.isEmpty ? nil : confidences.reduce(0, +) / Double(confidences.count),
                                            words: words))
            }
            return .success(RecognizedText(lines: lines, imageWidth: image.originalWidth, imageHeight: image.originalHeight))
        } catch {
            return .failure(error)
        }
    }
}

/// A decoded image after the configured preparation, owned until `destroy()`.
struct PreparedImage {
    let pix: UnsafeMutablePointer<PIX>
    let scale: Double
    let originalWidth: Int
    let originalHeight: Int

    init(data: Data, configuration: TesseractRecognizer.Configuration) throws(RecognitionError) {
        var format: Int32 = 0, width: Int32 = 0, height: Int32 = 0, bps: Int32 = 0, spp: Int32 = 0, colormap: Int32 = 0
        let headerStatus = data.withUnsafeBytes { raw -> Int32 in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return 1 }
            return pixReadHeaderMem(base, raw.count, &format, &width, &height, &bps, &spp, &colormap)
        }
        guard headerStatus == 0, width > 0, height > 0 else { throw .unreadableImage }
        guard Int(width) * Int(height) <= configuration.maxPixels else {
            throw .imageTooLarge(width: Int(width), height: Int(height), maxPixels: configuration.maxPixels)
        }
        let decoded = data.withUnsafeBytes { raw -> UnsafeMutablePointer<PIX>? in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return nil }
            return pixReadMem(base, raw.count)
        }
        guard var current = decoded else { throw .unreadableImage }
        originalWidth = Int(pixGetWidth(current))
        originalHeight = Int(pixGetHeight(current))

        func replace(_ next: UnsafeMutablePointer<PIX>?) {
            guard let next, next != current else { return }
            var old: UnsafeMutablePointer<PIX>? = current
            pixDestroy(&old)
            current = next
        }
        // Grey first: every later step (and tesseract's own thresholding) works on one channel.
        if configuration.preparation.darkestChannel, pixGetDepth(current) == 32 {
            replace(pixConvertRGBToGrayMinMax(current, Int32(L_CHOOSE_MIN)))
        }
        replace(pixConvertTo8(current, 0))
        let preparation = configuration.preparation
        if preparation.normalizeBackground, pixGetDepth(current) == 8 {
            replace(pixBackgroundNormSimple(current, nil, nil))
        }
        var scale = 1.0
        if preparation.minimumWidth > 0, originalWidth < preparation.minimumWidth {
            scale = min(Double(preparation.minimumWidth) / Double(originalWidth), 4)
            replace(pixScale(current, Float(scale), Float(scale)))
        }
        if preparation.sharpen, pixGetDepth(current) == 8 {
            replace(pixUnsharpMaskingGray(current, 2, 0.5))
        }
        if preparation.deskew, pixGetDepth(current) == 8 {
            replace(pixDeskew(current, 0))
        }
        if preparation.adaptiveThreshold, pixGetDepth(current) == 8 {
            var binary: UnsafeMutablePointer<PIX>?
            let tileWidth = max(16, Int32(pixGetWidth(current)) / 4), tileHeight = max(16, Int32(pixGetHeight(current)) / 6)
            if pixOtsuAdaptiveThreshold(current, tileWidth, tileHeight, 0, 0, 0.1, nil, &binary) == 0, let binary {
                replace(binary)
            }
        }
        pix = current
        self.scale = scale
    }

    func destroy() {
        var old: UnsafeMutablePointer<PIX>? = pix
        pixDestroy(&old)
    }
}
