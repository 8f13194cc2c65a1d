import Foundation
import NestoryOCR
import NestoryReceipts
import Testing

/// How the RapidOCR worker is started (issue 22, the cost of reading): with detection in strips and with tcmalloc
/// preloaded when it is installed; and, where RapidOCR is installed, that the strips read what the whole image reads.
@Suite struct RapidOCRWorkerTests {
    /// A stand-in for the worker's Python that answers the first image with what it was started with: its
    /// `LD_PRELOAD`, then the script's arguments (threads, strip pixels, overlap, models), as one line of text.
    static func echoingWorker() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-echo-worker-\(UUID()).sh").path
        // Called as: WORKER -u -c SCRIPT THREADS STRIP_PIXELS OVERLAP MODELS.
        try Data(#"""
            #!/bin/sh
            echo '{"ready": true}'
            read request
            printf '{"lines": [{"text": "%s|%s|%s|%s|%s", "words": []}], "confidence": 1}\n' "$LD_PRELOAD" "$4" "$5" "$6" "$7"
            """#.utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o755)
        return path
    }

    static func startedWith(_ configuration: RapidOCRRecognizer.Configuration) async throws -> String {
        let recognizer = RapidOCRRecognizer(configuration: configuration)
        defer { recognizer.shutdown() }
        let text = try await recognizer.recognize(imageData: try RenderedReceipts.png("TOTAL 1.00", name: "launch-\(UUID())"))
        return text.text
    }

    @Test func theWorkerIsStartedWithTheAllocatorAndDetectionInStrips() async throws {
        let worker = try Self.echoingWorker()
        // Any file stands for the library here: the loader warns about one that is no library and carries on.
        let allocator = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-malloc-\(UUID()).so").path
        FileManager.default.createFile(atPath: allocator, contents: Data())
        defer { for path in [worker, allocator] { try? FileManager.default.removeItem(atPath: path) } }
        let inherited = ProcessInfo.processInfo.environment["LD_PRELOAD"].map { $0.isEmpty ? "" : " " + $0 } ?? ""

        let defaults = RapidOCRRecognizer.Configuration(workers: 1, python: worker, allocator: allocator)
        #expect(defaults.detectionStripPixels == 600_000 && defaults.detectionOverlap == 128)
        // One worker reads with every core of the machine.
        let cores = ProcessInfo.processInfo.activeProcessorCount
        #expect(try await Self.startedWith(defaults) == "\(allocator)\(inherited)|\(cores)|600000|128|rewritten")

        let whole = RapidOCRRecognizer.Configuration(workers: 1, python: worker, threadsPerWorker: 1, detectionStripPixels: 0,
                                                     rewrittenModels: false, allocator: allocator)
        #expect(try await Self.startedWith(whole) == "\(allocator)\(inherited)|1|0|128|packaged")
    }

    @Test func withoutTheAllocatorInstalledTheWorkerStartsWithGlibcs() async throws {
        let worker = try Self.echoingWorker()
        defer { try? FileManager.default.removeItem(atPath: worker) }
        let inherited = ProcessInfo.processInfo.environment["LD_PRELOAD"] ?? ""
        let missing = RapidOCRRecognizer.Configuration(workers: 1, python: worker, threadsPerWorker: 1, allocator: "/nonexistent/libtcmalloc_minimal.so.4")
        #expect(try await Self.startedWith(missing) == "\(inherited)|1|600000|128|rewritten")
        let none = RapidOCRRecognizer.Configuration(workers: 1, python: worker, threadsPerWorker: 1, allocator: nil)
        #expect(try await Self.startedWith(none) == "\(inherited)|1|600000|128|rewritten")
    }

    /// A worker that cannot start says why (the script's `fatal` line), and a missing package is named as such.
    @Test func aWorkerThatCannotStartSaysWhy() async throws {
        func failing(_ fatal: String) async throws -> String {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-fatal-worker-\(UUID()).sh").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            try Data("#!/bin/sh\necho '{\"fatal\": \"\(fatal)\"}'\n".utf8).write(to: URL(fileURLWithPath: path))
            chmod(path, 0o755)
            let recognizer = RapidOCRRecognizer(configuration: .init(workers: 1, python: path, allocator: nil))
            defer { recognizer.shutdown() }
            do {
                _ = try await recognizer.recognize(imageData: try RenderedReceipts.png("TOTAL 1.00", name: "fatal-\(UUID())"))
                return "read"
            } catch {
                return "\(error)"
            }
        }
        let broken = try await failing("Protobuf parsing failed")
        #expect(broken.contains("could not start") && broken.contains("Protobuf parsing failed"), "\(broken)")
        let missing = try await failing("No module named 'rapidocr_onnxruntime'")
        #expect(missing.contains("is not installed") && missing.contains("pip install rapidocr-onnxruntime"), "\(missing)")
    }

    @Test func theWorkersShareTheMachinesCoresUnlessTold() {
        #expect(RapidOCRRecognizer.Configuration.sharedThreads(workers: 1, cores: 2) == 2)
        #expect(RapidOCRRecognizer.Configuration.sharedThreads(workers: 2, cores: 2) == 1)
        #expect(RapidOCRRecognizer.Configuration.sharedThreads(workers: 3, cores: 8) == 2)
        #expect(RapidOCRRecognizer.Configuration.sharedThreads(workers: 4, cores: 2) == 1)
        #expect(RapidOCRRecognizer.Configuration.sharedThreads(workers: 0, cores: 1) == 1)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        #expect(RapidOCRRecognizer.Configuration(workers: 1).threadsPerWorker == cores)
        #expect(RapidOCRRecognizer.Configuration(workers: 1, threadsPerWorker: 3).threadsPerWorker == 3)
        #expect(RapidOCRRecognizer.Configuration(workers: 1, threadsPerWorker: 0).threadsPerWorker == 1)
    }

    @Test func theDefaultAllocatorIsTcmallocWhereItIsInstalled() {
        let installed = RapidOCRRecognizer.Configuration.allocatorCandidates.filter { FileManager.default.fileExists(atPath: $0) }
        #expect(RapidOCRRecognizer.Configuration().allocator == installed.first)
        #expect(RapidOCRRecognizer.Configuration.allocatorCandidates.allSatisfy { $0.hasSuffix("/libtcmalloc_minimal.so.4") })
    }

    /// With RapidOCR installed (scripts/install-ocr.sh, which also writes the rewritten models): the worker says it
    /// reads with the rewritten models, and they read a receipt line for line as the packaged ones do.
    @Test func theRewrittenModelsReadAsThePackagedOnes() async throws {
        let python = ".venv-ocr/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else { return }
        let folder = FileManager.default.currentDirectoryPath + "/.venv-ocr/nestory-models"
        #expect(FileManager.default.fileExists(atPath: folder + "/manifest.json"), "scripts/install-ocr.sh writes \(folder)")
        let printed = (1...12).map { String(format: "%02d COFFEE BEANS 250G  RM %d.%02d", $0, $0 * 3, $0 * 17 % 100) }
            + ["SUBTOTAL 123.45", "GST 6% 7.41", "TOTAL 130.86", "THANK YOU, PLEASE COME AGAIN"]
        let image = try RenderedReceipts.png(printed.joined(separator: "\n"), name: "rewritten", points: 9, width: 600, height: 700)
        func read(rewritten: Bool) async throws -> (lines: [String], log: [String]) {
            let log = LogLines()
            let recognizer = RapidOCRRecognizer(configuration: .init(workers: 1, python: python, rewrittenModels: rewritten,
                                                                     log: { log.append($0) }))
            defer { recognizer.shutdown() }
            let lines = try await recognizer.recognize(imageData: image).lines.map(\.text)
            return (lines, log.lines)
        }
        let packaged = try await read(rewritten: false)
        let rewritten = try await read(rewritten: true)
        #expect(packaged.log.contains("RapidOCR worker: ready, models: packaged"))
        #expect(rewritten.log.contains("RapidOCR worker: ready, models: \(folder)"), "\(rewritten.log)")
        #expect(packaged.lines.count >= printed.count - 1, "\(packaged.lines)")
        #expect(rewritten.lines == packaged.lines)
    }

    /// With RapidOCR installed: a venv whose rewritten models do not load (here a damaged file) still reads, with the
    /// packaged models, and its worker says why.
    @Test func aDamagedRewrittenModelFallsBackToThePackagedOnes() async throws {
        let venv = FileManager.default.currentDirectoryPath + "/.venv-ocr"
        guard FileManager.default.isExecutableFile(atPath: venv + "/bin/python") else { return }
        // A venv of its own (its own `sys.prefix`, so its own nestory-models folder) sharing the real one's packages.
        let files = FileManager.default
        let root = files.temporaryDirectory.appendingPathComponent("nestory-venv-\(UUID())").path
        defer { try? files.removeItem(atPath: root) }
        try files.createDirectory(atPath: root + "/bin", withIntermediateDirectories: true)
        try files.createDirectory(atPath: root + "/nestory-models", withIntermediateDirectories: true)
        try files.copyItem(atPath: venv + "/pyvenv.cfg", toPath: root + "/pyvenv.cfg")
        try files.createSymbolicLink(atPath: root + "/lib", withDestinationPath: venv + "/lib")
        let interpreter = URL(fileURLWithPath: venv + "/bin/python").resolvingSymlinksInPath().path
        try files.createSymbolicLink(atPath: root + "/bin/python", withDestinationPath: interpreter)
        for name in ["det.onnx", "cls.onnx", "rec.onnx", "manifest.json"] {
            try Data("not a model".utf8).write(to: URL(fileURLWithPath: root + "/nestory-models/" + name))
        }
        let log = LogLines()
        let recognizer = RapidOCRRecognizer(configuration: .init(workers: 1, python: root + "/bin/python", log: { log.append($0) }))
        defer { recognizer.shutdown() }
        let image = try RenderedReceipts.png("TOTAL 12.34", name: "damaged-models", points: 12, width: 500, height: 200)
        let text = try await recognizer.recognize(imageData: image).text
        #expect(text.contains("12.34"), "\(text)")
        #expect(log.lines.contains { $0.contains("/nestory-models did not load") }, "\(log.lines)")
        #expect(log.lines.contains("RapidOCR worker: ready, models: packaged"), "\(log.lines)")
    }

    /// With RapidOCR installed (scripts/install-ocr.sh): a long narrow receipt read in strips (the default's three,
    /// so two strip edges run through printed lines, and strips of 100,000 pixels, about twenty) reads as well as the
    /// whole image read at once. Not word for word: detection's squeeze-and-excitation blocks pool over all of their
    /// input, so a strip's map differs a little from the whole image's everywhere (BENCHMARKS.md, issue 22).
    @Test func stripsReadAsWellAsTheWholeImage() async throws {
        let python = ".venv-ocr/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else { return }
        let printed = (1...40).map { String(format: "ITEM %02d WIDGET NO %d  %d.%02d", $0, $0 * 7, $0 * 3, $0 * 11 % 100) } + ["TOTAL 123.45"]
        // 700 × 1,700 px: detection reads it at 736 × 1,792, by default in strips of 800 rows (544 rows of core).
        let image = try RenderedReceipts.png(printed.joined(separator: "\n"), name: "strips", points: 7, width: 700, height: 1700)
        let expected = printed.flatMap { $0.split(separator: " ").map(String.init) }
        func wordsRead(_ configuration: RapidOCRRecognizer.Configuration) async throws -> Int {
            let recognizer = RapidOCRRecognizer(configuration: configuration)
            defer { recognizer.shutdown() }
            var read = try await recognizer.recognize(imageData: image).lines.flatMap { $0.text.split(separator: " ").map(String.init) }
            return expected.filter { word in read.firstIndex(of: word).map { read.remove(at: $0) } != nil }.count
        }
        let whole = try await wordsRead(.init(workers: 1, python: python, detectionStripPixels: 0, allocator: nil))
        let strips = try await wordsRead(.init(workers: 1, python: python))
        let narrow = try await wordsRead(.init(workers: 1, python: python, detectionStripPixels: 100_000))
        // 202 words; measured with 96 rows of overlap: whole 201, strips 198 and 198 (a 0 read as O, words run together).
        let least = expected.count * 95 / 100
        #expect(whole >= least && strips >= least && narrow >= least, "of \(expected.count): whole \(whole), strips \(strips), narrow \(narrow)")
    }
}

/// A worker's log lines, collected from its threads.
final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [String] = []
    func append(_ line: String) { lock.withLock { collected.append(line) } }
    var lines: [String] { lock.withLock { collected } }
}
