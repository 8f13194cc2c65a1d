import Foundation
import NestoryChildProcess
import NestoryImaging
import NestoryImagingLive

#if canImport(Glibc)
import Glibc
#endif

/// Upload-to-thumbnail benchmark: Nestory's imaging beside `vipsthumbnail` on the same files, in the
/// same run. Run through `make bench-images` (scripts/bench-images.sh), which builds in release mode
/// and makes the 12-megapixel test photos.
///
///     bench-imaging [--runs N] [--warmup N] FILE...
///     bench-imaging --once thumbnail|derive|start FILE   (one operation, then exit)
///
/// The machine may be shared, so the cases compared are interleaved run by run (a burst of load
/// hits both), and CPU time (user + system, all threads) is reported beside wall time.
@main
struct BenchImaging {
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        do {
            if arguments.first == "--once" {
                guard arguments.count == 3 else { usage() }
                try once(mode: arguments[1], file: arguments[2])
                return
            }
            var runs = 30
            var warmup = 3
            var files: [String] = []
            while !arguments.isEmpty {
                let argument = arguments.removeFirst()
                switch argument {
                case "--runs": runs = Int(arguments.removeFirst()) ?? runs
                case "--warmup": warmup = Int(arguments.removeFirst()) ?? warmup
                default: files.append(argument)
                }
            }
            guard !files.isEmpty, runs >= 2 else { usage() }
            try Bench(runs: runs, warmup: warmup).run(files: files)
        } catch {
            FileHandle.standardError.write(Data("bench-imaging: \(error)\n".utf8))
            exit(1)
        }
    }

    static func usage() -> Never {
        FileHandle.standardError.write(Data("usage: bench-imaging [--runs N] [--warmup N] FILE...\n       bench-imaging --once thumbnail|derive|start FILE\n".utf8))
        exit(2)
    }

    /// One operation then exit: a process per upload, like vipsthumbnail, and a clean peak memory.
    static func once(mode: String, file: String) throws {
        let imaging = try LibvipsImageProcessor()
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        switch mode {
        case "thumbnail":
            let image = try imaging.renderBlocking(data, outputs: [Bench.thumbnailSpec]).1[0]
            try image.data.write(to: URL(fileURLWithPath: NSTemporaryDirectory() + "bench-imaging-once-\(getpid()).jpg"))
            try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "bench-imaging-once-\(getpid()).jpg")
        case "derive": _ = try imaging.deriveBlocking(from: data)
        case "start": break
        default: usage()
        }
    }
}

struct Bench {
    static let thumbnailSpec = LibvipsImageProcessor.OutputSpec(maxSize: 320, quality: 80, format: .jpeg)
    /// What vipsthumbnail is asked for: the same size, quality and encoder options as Nestory's thumbnail.
    static let vipsthumbnailOutput = "[Q=80,strip,optimize_coding]"

    let runs: Int
    let warmup: Int
    let imaging: LibvipsImageProcessor
    let scratch: URL

    init(runs: Int, warmup: Int) throws {
        self.runs = runs
        self.warmup = warmup
        imaging = try LibvipsImageProcessor()
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("bench-imaging-\(getpid())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    /// Wall and CPU milliseconds of one run.
    struct Sample {
        var wall: Double
        var cpu: Double
    }

    struct Row {
        var file: String
        var label: String
        var samples: [Sample]
        var peakKB: Int?

        var wall50: Double { percentile(samples.map(\.wall), 0.50) }
        var wall95: Double { percentile(samples.map(\.wall), 0.95) }
        var cpu50: Double { percentile(samples.map(\.cpu), 0.50) }
    }

    func run(files: [String]) throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let vipsthumbnail = try executable("vipsthumbnail")
        let me = try selfPath()
        let output = scratch.appendingPathComponent("vt.jpg").path + Self.vipsthumbnailOutput
        var rows: [Row] = []
        var ratios: [String] = []
        var encoderNotes: [String] = []

        for file in files {
            let name = URL(fileURLWithPath: file).lastPathComponent
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            let info = try imaging.probeBlocking(data)
            log("\(name): \(info.width)×\(info.height) \(info.format.rawValue), \(megabytes(data.count))")

            // The three upload-to-thumbnail cases, interleaved run by run (order rotating).
            let cases: [() throws -> Sample] = [
                { try measure { _ = try imaging.renderBlocking(data, outputs: [Self.thumbnailSpec]) } },
                { try measureChild(vipsthumbnail, [file, "-s", "320", "-o", output]) },
                { try measureChild(me, ["--once", "thumbnail", file]) },
            ]
            var samples = [[Sample]](repeating: [], count: cases.count)
            for run in 0..<(warmup + runs) {
                for offset in 0..<cases.count {
                    let index = (run + offset) % cases.count
                    let sample = try cases[index]()
                    if run >= warmup { samples[index].append(sample) }
                }
            }
            let inProcess = Row(file: name, label: "Nestory thumbnail 320, in-process (bytes in memory → JPEG bytes)",
                                samples: samples[0], peakKB: nil)
            let vipsPerProcess = Row(file: name, label: "vipsthumbnail -s 320, one process per image",
                                     samples: samples[1], peakKB: try peakKB([vipsthumbnail, file, "-s", "320", "-o", output]))
            let oursPerProcess = Row(file: name, label: "Nestory thumbnail 320, one process per image (bench-imaging --once)",
                                     samples: samples[2], peakKB: try peakKB([me, "--once", "thumbnail", file]))
            let batch = try batchRow(vipsthumbnail: vipsthumbnail, file: file, name: name)
            let vipsStart = Row(file: name, label: "  vipsthumbnail start-up only (1×1 JPEG)",
                                samples: try repeated(max(5, runs / 3)) { try measureChild(vipsthumbnail, [try tinyJPEG(), "-s", "320", "-o", output]) },
                                peakKB: nil)
            let oursStart = Row(file: name, label: "  Nestory start-up only (bench-imaging --once start)",
                                samples: try repeated(max(5, runs / 3)) { try measureChild(me, ["--once", "start", file]) },
                                peakKB: nil)
            let derive = Row(file: name, label: "Nestory derive: display 1600 + thumbnail 320, in-process",
                             samples: try repeated(runs) { try measure { _ = try imaging.deriveBlocking(from: data) } },
                             peakKB: try peakKB([me, "--once", "derive", file]))
            rows += [inProcess, batch, oursPerProcess, vipsPerProcess, oursStart, vipsStart, derive]

            ratios.append(String(
                format: "%@: Nestory / vipsthumbnail, p50: in-process %.2f wall, %.2f CPU; one process per image %.2f wall, %.2f CPU (target ≤ 1.25)",
                name, inProcess.wall50 / batch.wall50, inProcess.cpu50 / batch.cpu50,
                oursPerProcess.wall50 / vipsPerProcess.wall50, oursPerProcess.cpu50 / vipsPerProcess.cpu50))
            encoderNotes.append(try compareEncoders(data, name: name))
        }
        printTable(rows)
        print("")
        ratios.forEach { print($0) }
        print("")
        print("Display image (1600 px), JPEG or WebP, same decode (p50 of \(max(5, runs / 3)) runs):")
        encoderNotes.forEach { print($0) }
    }

    /// vipsthumbnail over `runs` copies of the file in one process: its per-image cost without
    /// process start, the fair in-process comparison (it reads the file; Nestory gets bytes in memory).
    func batchRow(vipsthumbnail: String, file: String, name: String) throws -> Row {
        let folder = scratch.appendingPathComponent("batch")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let target = URL(fileURLWithPath: file).standardizedFileURL.path
        let ext = URL(fileURLWithPath: file).pathExtension
        var copies: [String] = []
        for index in 0..<runs {
            let copy = folder.appendingPathComponent("copy\(index).\(ext)").path
            try FileManager.default.createSymbolicLink(atPath: copy, withDestinationPath: target)
            copies.append(copy)
        }
        let batches = max(3, runs / 10)
        let samples = try repeated(batches) {
            let total = try measureChild(vipsthumbnail, copies + ["-s", "320", "-o", "%s_t.jpg" + Self.vipsthumbnailOutput])
            return Sample(wall: total.wall / Double(runs), cpu: total.cpu / Double(runs))
        }
        return Row(file: name, label: "vipsthumbnail -s 320, \(runs) images in one process (per image; \(batches) batches)",
                   samples: samples, peakKB: nil)
    }

    func compareEncoders(_ data: Data, name: String) throws -> String {
        let jpeg = LibvipsImageProcessor.OutputSpec(maxSize: 1600, quality: 82, format: .jpeg)
        let webp = LibvipsImageProcessor.OutputSpec(maxSize: 1600, quality: 80, format: .webp)
        var jpegBytes = 0
        var webpBytes = 0
        var jpegSamples: [Sample] = []
        var webpSamples: [Sample] = []
        for _ in 0..<max(5, runs / 3) {
            jpegSamples.append(try measure { jpegBytes = try imaging.renderBlocking(data, outputs: [jpeg]).1[0].data.count })
            webpSamples.append(try measure { webpBytes = try imaging.renderBlocking(data, outputs: [webp]).1[0].data.count })
        }
        return String(format: "  %@: JPEG Q82 %@, %.0f ms wall / %.0f ms CPU; WebP Q80 %@, %.0f ms wall / %.0f ms CPU",
                      name, kilobytes(jpegBytes), percentile(jpegSamples.map(\.wall), 0.5), percentile(jpegSamples.map(\.cpu), 0.5),
                      kilobytes(webpBytes), percentile(webpSamples.map(\.wall), 0.5), percentile(webpSamples.map(\.cpu), 0.5))
    }

    // MARK: Measuring

    func repeated(_ count: Int, _ body: () throws -> Sample) throws -> [Sample] {
        for _ in 0..<min(warmup, count) { _ = try body() }
        return try (0..<count).map { _ in try body() }
    }

    /// Wall time, and CPU time of every thread of this process (libvips' workers included).
    func measure(_ body: () throws -> Void) throws -> Sample {
        let cpuBefore = processCPU()
        let start = ContinuousClock.now
        try body()
        let wall = ContinuousClock.now - start
        return Sample(wall: milliseconds(wall), cpu: processCPU() - cpuBefore)
    }

    /// Wall time of a child process from launch to exit, and its CPU time (from getrusage).
    func measureChild(_ executable: String, _ arguments: [String]) throws -> Sample {
        let cpuBefore = childrenCPU()
        let start = ContinuousClock.now
        try launch(executable, arguments)
        let wall = ContinuousClock.now - start
        return Sample(wall: milliseconds(wall), cpu: childrenCPU() - cpuBefore)
    }

    func processCPU() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) * 1000 + Double(spec.tv_nsec) / 1e6
    }

    func childrenCPU() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        func ms(_ t: timeval) -> Double { Double(t.tv_sec) * 1000 + Double(t.tv_usec) / 1000 }
        return ms(usage.ru_utime) + ms(usage.ru_stime)
    }

    func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    /// Peak resident memory of a command, in KB, from GNU time.
    func peakKB(_ command: [String]) throws -> Int? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else { return nil }
        let report = scratch.appendingPathComponent("time.txt").path
        try launch("/usr/bin/time", ["-f", "%M", "-o", report] + command)
        let text = try String(contentsOfFile: report, encoding: .utf8)
        return Int(text.split(separator: "\n").last.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? "")
    }

    func launch(_ executable: String, _ arguments: [String]) throws {
        let finished = try ChildProcess.run(executable, arguments)
        guard finished.exitCode == 0 else {
            throw BenchError("\(executable) \(arguments.prefix(4).joined(separator: " ")) exited with \(finished.exitCode): \(finished.errorText.suffix(500))")
        }
    }

    func tinyJPEG() throws -> String {
        let path = scratch.appendingPathComponent("tiny.jpg").path
        if !FileManager.default.fileExists(atPath: path) {
            // A 1×1 JPEG: what is left is process start and libvips start-up.
            try launch(try executable("vips"), ["black", path, "1", "1"])
        }
        return path
    }

    func selfPath() throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }

    func executable(_ name: String) throws -> String {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") + ["/usr/bin"] {
            let path = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw BenchError("\(name) not found: install libvips-tools (make test-deps)")
    }

    // MARK: Printing

    func printTable(_ rows: [Row]) {
        let header = ["file", "upload to thumbnail", "p50 ms", "p95 ms", "CPU p50 ms", "peak RSS"]
        let cells = rows.map { row in
            [row.file, row.label,
             String(format: "%.1f", row.wall50), String(format: "%.1f", row.wall95), String(format: "%.1f", row.cpu50),
             row.peakKB.map { String(format: "%.0f MB", Double($0) / 1024) } ?? "-"]
        }
        let widths = header.indices.map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
        func line(_ values: [String]) -> String {
            "| " + values.enumerated().map { index, value in
                let pad = String(repeating: " ", count: widths[index] - value.count)
                return index >= 2 ? pad + value : value + pad
            }.joined(separator: " | ") + " |"
        }
        print(line(header))
        print("|" + widths.enumerated().map { index, width in
            index >= 2 ? " " + String(repeating: "-", count: width) + ":|" : " " + String(repeating: "-", count: width) + " |"
        }.joined())
        cells.forEach { print(line($0)) }
    }

    func log(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }
    func kilobytes(_ bytes: Int) -> String { String(format: "%.0f KB", Double(bytes) / 1024) }
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
