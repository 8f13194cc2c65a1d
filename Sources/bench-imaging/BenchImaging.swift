import Foundation
import NestoryImaging
import NestoryImagingLive

/// Upload-to-thumbnail benchmark: Nestory's imaging beside `vipsthumbnail` on the same files, in the
/// same run. Run through `make bench-images` (scripts/bench-images.sh), which builds in release mode
/// and makes the 12-megapixel test photos.
///
///     bench-imaging [--runs N] [--warmup N] FILE...
///     bench-imaging --once thumbnail|derive|start FILE   (one operation, for peak-memory measurement)
@main
struct BenchImaging {
    static func main() throws {
        var arguments = Array(CommandLine.arguments.dropFirst())
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
    }

    static func usage() -> Never {
        FileHandle.standardError.write(Data("usage: bench-imaging [--runs N] [--warmup N] FILE...\n       bench-imaging --once thumbnail|derive|start FILE\n".utf8))
        exit(2)
    }

    /// One operation then exit, so `/usr/bin/time` reports that operation's peak memory.
    static func once(mode: String, file: String) throws {
        let imaging = try LibvipsImageProcessor()
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        switch mode {
        case "thumbnail": _ = try imaging.renderBlocking(data, outputs: [Bench.thumbnailSpec])
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

    struct Row {
        var file: String
        var label: String
        var samples: [Double]  // milliseconds
        var peakKB: Int?
        var note: String = ""

        var p50: Double { percentile(0.50) }
        var p95: Double { percentile(0.95) }

        func percentile(_ fraction: Double) -> Double {
            let sorted = samples.sorted()
            let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
            return sorted[min(max(rank, 0), sorted.count - 1)]
        }
    }

    func run(files: [String]) throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let vipsthumbnail = try executable("vipsthumbnail")
        var rows: [Row] = []
        var ratios: [String] = []
        var formatNotes: [String] = []

        for file in files {
            let name = URL(fileURLWithPath: file).lastPathComponent
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            let info = try imaging.probeBlocking(data)
            log("\(name): \(info.width)×\(info.height) \(info.format.rawValue), \(megabytes(data.count))")

            let thumbnail = Row(file: name, label: "Nestory thumbnail 320 (in-process, bytes in → JPEG out)",
                                samples: try time { _ = try imaging.renderBlocking(data, outputs: [Self.thumbnailSpec]) },
                                peakKB: try peakKB([selfPath(), "--once", "thumbnail", file]))
            let derive = Row(file: name, label: "Nestory derive: display 1600 + thumbnail 320",
                             samples: try time { _ = try imaging.deriveBlocking(from: data) },
                             peakKB: try peakKB([selfPath(), "--once", "derive", file]))
            let output = scratch.appendingPathComponent("vt.jpg").path + Self.vipsthumbnailOutput
            let perProcess = Row(file: name, label: "vipsthumbnail -s 320 (one process per image)",
                                 samples: try time { try launch(vipsthumbnail, [file, "-s", "320", "-o", output]) },
                                 peakKB: try peakKB([vipsthumbnail, file, "-s", "320", "-o", output]))
            let batch = try batchRow(vipsthumbnail: vipsthumbnail, file: file, name: name)
            let start = Row(file: name, label: "process start only (vipsthumbnail on a 1×1 JPEG)",
                            samples: try time { try launch(vipsthumbnail, [try tinyJPEG(), "-s", "320", "-o", output]) },
                            peakKB: nil)
            rows += [thumbnail, perProcess, batch, start, derive]

            ratios.append(String(format: "%@: Nestory p50 / vipsthumbnail p50 = %.2f (process per image), %.2f (vipsthumbnail in one process); target ≤ 1.25",
                                 name, thumbnail.p50 / perProcess.p50, thumbnail.p50 / batch.p50))
            formatNotes.append(try compareEncoders(data, name: name))
        }
        printTable(rows)
        print("")
        ratios.forEach { print($0) }
        print("")
        print("Display image (1600 px) encoder comparison, same decode:")
        formatNotes.forEach { print($0) }
    }

    /// vipsthumbnail over `runs` copies of the file in one process: per-image time without process
    /// start, the fairest in-process comparison (from the file on disk, as vipsthumbnail reads).
    func batchRow(vipsthumbnail: String, file: String, name: String) throws -> Row {
        let folder = scratch.appendingPathComponent("batch")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let ext = URL(fileURLWithPath: file).pathExtension
        var copies: [String] = []
        for index in 0..<runs {
            let copy = folder.appendingPathComponent("copy\(index).\(ext)").path
            try FileManager.default.createSymbolicLink(atPath: copy, withDestinationPath: file)
            copies.append(copy)
        }
        var samples: [Double] = []
        for _ in 0..<max(3, runs / 10) {
            let total = try time(repeat: 1) {
                try launch(vipsthumbnail, copies + ["-s", "320", "-o", "%s_t.jpg" + Self.vipsthumbnailOutput])
            }[0]
            samples.append(total / Double(runs))
        }
        return Row(file: name, label: "vipsthumbnail -s 320, \(runs) images in one process (mean per image)",
                   samples: samples, peakKB: nil, note: "p50/p95 over \(samples.count) batches")
    }

    func compareEncoders(_ data: Data, name: String) throws -> String {
        let jpeg = LibvipsImageProcessor.OutputSpec(maxSize: 1600, quality: 82, format: .jpeg)
        let webp = LibvipsImageProcessor.OutputSpec(maxSize: 1600, quality: 80, format: .webp)
        var jpegBytes = 0
        var webpBytes = 0
        let jpegTimes = try time(repeat: max(5, runs / 3)) { jpegBytes = try imaging.renderBlocking(data, outputs: [jpeg]).1[0].data.count }
        let webpTimes = try time(repeat: max(5, runs / 3)) { webpBytes = try imaging.renderBlocking(data, outputs: [webp]).1[0].data.count }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        return String(format: "  %@: JPEG Q82 %@ in %.1f ms (p50); WebP Q80 %@ in %.1f ms (p50)",
                      name, kilobytes(jpegBytes), median(jpegTimes), kilobytes(webpBytes), median(webpTimes))
    }

    // MARK: Measuring

    func time(_ body: () throws -> Void) throws -> [Double] {
        for _ in 0..<warmup { try body() }
        return try time(repeat: runs, body)
    }

    func time(repeat count: Int, _ body: () throws -> Void) throws -> [Double] {
        let clock = ContinuousClock()
        var samples: [Double] = []
        for _ in 0..<count {
            let elapsed = try clock.measure(body)
            samples.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
        }
        return samples
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError("\(executable) \(arguments.prefix(4).joined(separator: " ")) exited with \(process.terminationStatus)")
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
        let header = ["file", "what", "p50 ms", "p95 ms", "peak RSS"]
        let cells = rows.map { row in
            [row.file, row.label + (row.note.isEmpty ? "" : " [\(row.note)]"),
             String(format: "%.1f", row.p50), String(format: "%.1f", row.p95),
             row.peakKB.map { String(format: "%.0f MB", Double($0) / 1024) } ?? "-"]
        }
        let widths = header.indices.map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
        func line(_ values: [String]) -> String {
            "| " + values.enumerated().map { index, value in
                index >= 2 ? String(repeating: " ", count: widths[index] - value.count) + value
                    : value + String(repeating: " ", count: widths[index] - value.count)
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

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
