import Foundation
import NestoryBarcodes
import NestoryChildProcess
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// zxing-cpp, the second decoder: it reads some photos zbar cannot (and the other way round), decodes Code 128's
/// extended characters (FNC4) that zbar drops, and gives an independent opinion when the two are pooled.
///
/// Debian 12's zxing-cpp is built with its assertions on and aborts on some pictures, so it never runs inside
/// this process: `nestory-zxing` (an executable built beside `nestory`) reads the pictures, started on first use
/// and kept warm. A worker that dies, hangs or answers nonsense costs that one read (the pass finds nothing) and
/// is replaced on the next call. Without the worker program, zxing passes find nothing and zbar works alone.
/// Safe to call from several threads at once.
public enum ZXingScanner {
    /// Where the worker program is by default: `nestory-zxing` beside the running executable (the bootstrap
    /// may name another, from the settings).
    public static var workerPath: String? {
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        let candidate = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("nestory-zxing").path
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }

    /// Whether the worker program is there to be started.
    public static var isAvailable: Bool { workerPath != nil }

    /// How long one read may take before the worker is taken for hung and killed.
    static let timeoutMilliseconds: Int32 = 5_000

    static let pool = WorkerPool()

    /// How hard zxing looks (the worker's `effort`).
    enum Effort: UInt32 {
        /// Its usual scan.
        case quick = 0
        /// More rows, and the picture turned a quarter and downscaled as well.
        case harder = 1
        /// More rows of the picture as it is (one already turned so that its rows cross the bars).
        case harderAsItIs = 2
    }

    /// Every symbol zxing finds in the picture.
    static func scan(_ image: GrayImage, formats: Set<BarcodeFormat>, effort: Effort, workerPath path: String?) -> [RawSymbol] {
        guard image.width > 0, image.height > 0, let path else { return [] }
        return pool.withWorker(path: path) { worker in
            worker.read(image, formats: formatBits(formats), effort: effort)
        } ?? []
    }

    static func formatBits(_ formats: Set<BarcodeFormat>) -> UInt32 {
        formats.reduce(0) { $0 | bit($1) }
    }

    /// The format bits of the worker's protocol (see Sources/nestory-zxing/main.cpp).
    static func bit(_ format: BarcodeFormat) -> UInt32 {
        switch format {
        case .ean13: return 1
        case .ean8: return 2
        case .upcA: return 4
        case .upcE: return 8
        case .code128: return 16
        case .qr: return 32
        }
    }

    static func format(_ bit: UInt32) -> BarcodeFormat? {
        BarcodeFormat.allCases.first { Self.bit($0) == bit }
    }
}

/// The worker processes: at most `capacity` reading at once (a burst of camera frames waits its turn rather than
/// starting a process per frame), idle ones kept warm for the next call.
final class WorkerPool: Sendable {
    static let capacity = 4
    private let idle = Mutex<[String: [ZXingWorker]]>([:])
    private let slots = DispatchSemaphore(value: WorkerPool.capacity)

    /// Runs `body` with a worker for `path`; a worker whose read failed (nil) is stopped, not kept.
    func withWorker<T>(path: String, _ body: (ZXingWorker) -> T?) -> T? {
        slots.wait()
        defer { slots.signal() }
        guard let worker = idle.withLock({ $0[path]?.popLast() }) ?? ZXingWorker(path: path) else { return nil }
        guard let result = body(worker) else {
            worker.stop()
            return nil
        }
        let kept = idle.withLock { workers -> Bool in
            guard workers[path, default: []].count < Self.capacity else { return false }
            workers[path, default: []].append(worker)
            return true
        }
        if !kept { worker.stop() }
        return result
    }
}

/// One running `nestory-zxing` process and its pipes; used by one caller at a time.
final class ZXingWorker: @unchecked Sendable {
    private let child: ChildProcess
    private let output: Int32

    /// What the pipe carrying the pictures is asked to hold: a picture of up to a megapixel then goes over in one
    /// write. With the default 64 KiB, zxing's first pass over the shared benchmark photos took 1.16–1.24 ms a photo,
    /// with 1 MiB 1.01–1.09 (five alternated runs each, one thread).
    static let pipeCapacity = 1 << 20

    init?(path: String) {
        guard let child = try? ChildProcess(executable: path, inputCapacity: Self.pipeCapacity), let output = child.output else { return nil }
        self.child = child
        self.output = output
    }

    func stop() {
        child.closeInput()
        if child.isRunning { child.signal(SIGTERM) }
        child.waitUntilExit()
    }

    /// The symbols in `image`, or nil when the worker failed (died, hung, or answered nonsense).
    func read(_ image: GrayImage, formats: UInt32, effort: ZXingScanner.Effort) -> [RawSymbol]? {
        var header: [UInt8] = []
        for value in [UInt32(image.width), UInt32(image.height), formats, effort.rawValue] { append32(&header, value) }
        guard writeAll(header), image.pixels.withUnsafeBytes({ writeAll($0) }) else { return nil }
        guard let count = read32(), count <= 1_000 else { return nil }
        var symbols: [RawSymbol] = []
        for _ in 0..<count {
            guard let bit = read32(), let lines = read32() else { return nil }
            var points: [(x: Int, y: Int)] = []
            for _ in 0..<4 {
                guard let x = read32(), let y = read32() else { return nil }
                points.append((x: Int(Int32(bitPattern: x)), y: Int(Int32(bitPattern: y))))
            }
            guard let text = readBlock() else { return nil }
            guard let format = ZXingScanner.format(bit) else { continue }
            // zxing's own text: it knows a QR code's modes and character set (Kanji included), and Code 128's FNC4.
            symbols.append(RawSymbol(format: format, text: String(decoding: text, as: UTF8.self), quality: format == .qr ? 1 : max(1, Int(lines)), points: points))
        }
        return symbols
    }

    private func append32(_ buffer: inout [UInt8], _ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { buffer.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    private func writeAll(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { writeAll($0) } }

    private func writeAll(_ buffer: UnsafeRawBufferPointer) -> Bool { child.write(buffer) }

    private func readExactly(_ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, ZXingScanner.timeoutMilliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let got = bytes.withUnsafeMutableBytes { Glibc.read(output, $0.baseAddress! + offset, count - offset) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { return nil }
            offset += got
        }
        return bytes
    }

    private func read32() -> UInt32? {
        guard let b = readExactly(4) else { return nil }
        return UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
    }

    private func readBlock() -> [UInt8]? {
        guard let length = read32(), length <= 16_000_000 else { return nil }
        return length == 0 ? [] : readExactly(Int(length))
    }
}
