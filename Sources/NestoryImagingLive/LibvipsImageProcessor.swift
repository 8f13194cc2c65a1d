import CVipsShim
import Dispatch
import Foundation
import NestoryImaging

/// The live ``ImageProcessing``: libvips 8.14 through the `CVipsShim` C functions.
///
/// libvips is process-wide: the first processor made starts it (once, thread-safe), turns its
/// operation cache off and blocks every image loader but JPEG, PNG, HEIF and WebP. Work runs on a
/// private dispatch queue, never on the caller's thread (a Hummingbird event loop or the Swift
/// concurrency pool), with at most `maxSimultaneousJobs` images decoded at once so that memory stays
/// bounded when many uploads arrive together. Make one per process (in the bootstrap) and share it:
/// each instance has its own job limit.
public struct LibvipsImageProcessor: ImageProcessing {
    public let limits: ImagingLimits
    public let settings: DerivativeSettings
    private let work: WorkQueue

    /// - Parameters:
    ///   - threadsPerImage: libvips worker threads for one image; 0 keeps libvips' default (the
    ///     number of cores). It is a process-wide libvips setting: the last processor made wins. One by
    ///     default: with two or more, a damaged image (a PNG whose IDAT fails its CRC) can stop libvips' pool
    ///     while another worker asks it for work, and Debian's libvips 8.14 then aborts the whole process on
    ///     `vips_worker_allocate: assertion failed: (!pool->stop)` (seen once in the test suite, 2026-11-26).
    ///     Images are still decoded `maxSimultaneousJobs` at a time, so a loaded server keeps every core busy.
    ///   - maxSimultaneousJobs: images decoded at the same time; others wait their turn.
    public init(
        limits: ImagingLimits = ImagingLimits(),
        settings: DerivativeSettings = DerivativeSettings(),
        threadsPerImage: Int = 1,
        maxSimultaneousJobs: Int = ProcessInfo.processInfo.activeProcessorCount
    ) throws(ImagingError) {
        precondition(settings.thumbnailMaxSize >= 1 && settings.displayMaxSize >= settings.thumbnailMaxSize,
                     "the display size must be at least the thumbnail size")
        precondition((1...100).contains(settings.thumbnailQuality) && (1...100).contains(settings.displayQuality),
                     "qualities are 1...100")
        try Libvips.start(threadsPerImage: threadsPerImage)
        self.limits = limits
        self.settings = settings
        self.work = WorkQueue(maxSimultaneousJobs: max(1, maxSimultaneousJobs))
    }

    public func probe(_ original: Data) async throws(ImagingError) -> ImageInfo {
        try await work.run(waitForSlot: false) { () throws(ImagingError) in try probeBlocking(original) }
    }

    public func derive(from original: Data) async throws(ImagingError) -> DerivedImages {
        try await work.run(waitForSlot: true) { () throws(ImagingError) in try deriveBlocking(from: original) }
    }

    // MARK: Blocking versions (for the CLI and benchmarks; never on an event loop)

    /// ``probe(_:)`` on the calling thread.
    public func probeBlocking(_ original: Data) throws(ImagingError) -> ImageInfo {
        try checkedHeader(original).info
    }

    /// ``derive(from:)`` on the calling thread.
    public func deriveBlocking(from original: Data) throws(ImagingError) -> DerivedImages {
        let display = OutputSpec(maxSize: settings.displayMaxSize, quality: settings.displayQuality, format: settings.format)
        let thumbnail = OutputSpec(maxSize: settings.thumbnailMaxSize, quality: settings.thumbnailQuality, format: settings.format)
        let (info, images) = try renderBlocking(original, outputs: [display, thumbnail])
        return DerivedImages(original: info, thumbnail: images[1], display: images[0])
    }

    /// One derived image to make: fit inside `maxSize` × `maxSize` (never enlarged).
    public struct OutputSpec: Sendable, Hashable {
        public var maxSize: Int
        public var quality: Int
        public var format: DerivedImageFormat

        public init(maxSize: Int, quality: Int, format: DerivedImageFormat = .jpeg) {
            self.maxSize = maxSize
            self.quality = quality
            self.format = format
        }
    }

    /// Checks the upload like ``probe(_:)``, then makes the given outputs (1...4, any order) from
    /// one decode. A single output takes libvips' fastest path, as `vipsthumbnail` does.
    public func renderBlocking(_ original: Data, outputs: [OutputSpec]) throws(ImagingError) -> (ImageInfo, [DerivedImage]) {
        precondition((1...Int(NV_MAX_OUTPUTS)).contains(outputs.count), "1 to \(NV_MAX_OUTPUTS) outputs")
        precondition(outputs.allSatisfy { $0.maxSize >= 1 && (1...100).contains($0.quality) }, "sizes >= 1, qualities 1...100")
        let header = try checkedHeader(original)
        let order = outputs.indices.sorted { outputs[$0].maxSize > outputs[$1].maxSize }
        let specs = order.map { index in
            let output = outputs[index]
            return nv_output_spec(max_size: Int32(clamping: output.maxSize), quality: Int32(output.quality), format: output.format.nvFormat)
        }
        var made = [nv_output](repeating: nv_output(), count: specs.count)
        var error = ErrorBuffer()
        let status = original.withUnsafeBytes { bytes in
            error.withPointer { pointer, capacity in
                nv_derive(bytes.baseAddress, bytes.count, specs, Int32(specs.count),
                          header.hasICCProfile ? 1 : 0, &made, pointer, capacity)
            }
        }
        guard status == 0 else {
            let detail = error.message
            // A failing encoder names its saver; anything else failed while decoding the upload.
            throw detail.contains("save") ? .processingFailed(detail: detail) : .unreadable(detail: detail)
        }
        var images = [DerivedImage?](repeating: nil, count: outputs.count)
        for (position, index) in order.enumerated() {
            let output = made[position]
            images[index] = DerivedImage(
                data: Data(ownedBy: output),
                width: Int(output.width),
                height: Int(output.height),
                format: outputs[index].format
            )
        }
        return (header.info, images.map { $0! })
    }

    // MARK: Header

    struct CheckedHeader {
        var info: ImageInfo
        var hasICCProfile: Bool
        var loader: String
    }

    /// Size, format and limits, from the bytes' signature and libvips' header reader.
    func checkedHeader(_ original: Data) throws(ImagingError) -> CheckedHeader {
        guard !original.isEmpty else { throw .empty }
        guard original.count <= limits.maxFileBytes else {
            throw .fileTooLarge(byteCount: original.count, limit: limits.maxFileBytes)
        }
        guard let format = ImageFormat.sniff(original) else { throw .unsupportedFormat }
        let header = try Self.readHeader(original)
        guard format.matches(loader: header.loader) else { throw .unsupportedFormat }
        if format == .heic, !header.heifCompression.isEmpty, header.heifCompression != "hevc" {
            throw .unsupportedFormat  // AVIF and other codecs in a HEIF container
        }
        guard header.width > 0, header.height > 0 else { throw .unreadable(detail: "the header gives no size") }
        let info = ImageInfo(
            format: format,
            width: header.width,
            height: header.height,
            orientation: (1...8).contains(header.orientation) ? header.orientation : 1,
            hasAlpha: header.hasAlpha,
            byteCount: original.count
        )
        if let violation = limits.violation(for: info) { throw violation }
        return CheckedHeader(info: info, hasICCProfile: header.hasICCProfile, loader: header.loader)
    }

    struct RawHeader {
        var width: Int
        var height: Int
        var orientation: Int
        var hasAlpha: Bool
        var hasICCProfile: Bool
        var loader: String
        var heifCompression: String
    }

    /// libvips' header reader, with no check of our own (tests use it to prove loaders are blocked).
    static func readHeader(_ bytes: Data) throws(ImagingError) -> RawHeader {
        var header = nv_header()
        var error = ErrorBuffer()
        let status = bytes.withUnsafeBytes { raw in
            error.withPointer { pointer, capacity in nv_probe(raw.baseAddress, raw.count, &header, pointer, capacity) }
        }
        guard status == 0 else { throw .unreadable(detail: error.message) }
        return RawHeader(
            width: Int(header.width),
            height: Int(header.height),
            orientation: Int(header.orientation),
            hasAlpha: header.has_alpha != 0,
            hasICCProfile: header.has_icc_profile != 0,
            loader: withUnsafeBytes(of: header.loader) { String(cStringBytes: $0) },
            heifCompression: withUnsafeBytes(of: header.heif_compression) { String(cStringBytes: $0) }
        )
    }
}

// MARK: libvips start-up

enum Libvips {
    static func start(threadsPerImage: Int) throws(ImagingError) {
        var error = ErrorBuffer()
        let status = error.withPointer { pointer, capacity in nv_init(Int32(clamping: threadsPerImage), pointer, capacity) }
        guard status == 0 else { throw .processingFailed(detail: "libvips did not start: \(error.message)") }
    }
}

// MARK: Helpers

/// Runs blocking libvips work off the caller's thread, at most `maxSimultaneousJobs` at a time.
/// Jobs waiting for a slot are suspended tasks, not blocked threads.
final class WorkQueue: Sendable {
    private let queue = DispatchQueue(label: "nestory.imaging", qos: .userInitiated, attributes: .concurrent)
    private let slots: JobSlots

    init(maxSimultaneousJobs: Int) {
        slots = JobSlots(maxSimultaneousJobs)
    }

    func run<Value: Sendable>(
        waitForSlot: Bool,
        _ body: @escaping @Sendable () throws(ImagingError) -> Value
    ) async throws(ImagingError) -> Value {
        if waitForSlot { await slots.acquire() }
        let result: Result<Value, ImagingError> = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: Result { () throws(ImagingError) in try body() })
            }
        }
        if waitForSlot { await slots.release() }
        return try result.get()
    }
}

/// A counting semaphore for tasks: `acquire` suspends (first come, first served) until a slot is free.
actor JobSlots {
    private var available: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) {
        available = count
    }

    func acquire() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            available += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}

/// A C buffer for libvips' error text.
struct ErrorBuffer {
    private var storage = [CChar](repeating: 0, count: 1024)

    mutating func withPointer<R>(_ body: (UnsafeMutablePointer<CChar>, Int) -> R) -> R {
        let capacity = storage.count
        return storage.withUnsafeMutableBufferPointer { body($0.baseAddress!, capacity) }
    }

    /// The message, trimmed; libvips ends each line with a newline.
    var message: String {
        let text = storage.withUnsafeBytes { String(cStringBytes: $0) }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? "no detail from libvips" : trimmed.replacingOccurrences(of: "\n", with: "; ")
    }
}

extension String {
    /// The UTF-8 text before the first NUL in a fixed-size C character array.
    init(cStringBytes bytes: UnsafeRawBufferPointer) {
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        self.init(decoding: bytes[..<end], as: UTF8.self)
    }
}

extension Data {
    /// Takes ownership of a buffer libvips allocated: freed with `nv_free` when the data goes.
    init(ownedBy output: nv_output) {
        guard let pointer = output.data, output.length > 0 else {
            if let pointer = output.data { nv_free(pointer) }
            self.init()
            return
        }
        self.init(bytesNoCopy: pointer, count: output.length, deallocator: .custom { pointer, _ in nv_free(pointer) })
    }
}

extension DerivedImageFormat {
    var nvFormat: nv_format {
        switch self {
        case .jpeg: NV_FORMAT_JPEG
        case .webp: NV_FORMAT_WEBP
        }
    }
}

extension ImageFormat {
    /// Whether libvips picked the loader our signature check expects (e.g. "VipsForeignLoadJpegBuffer").
    func matches(loader: String) -> Bool {
        let name = loader.lowercased()
        switch self {
        case .jpeg: return name.contains("jpeg")
        case .png: return name.contains("png")
        case .heic: return name.contains("heif")
        case .webp: return name.contains("webp")
        }
    }
}
