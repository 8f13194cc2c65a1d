import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NestoryDemo
import Testing

/// libvips, tesseract (with leptonica), pango/cairo and zbar are loaded with dlopen on first use, not
/// by the dynamic loader at start-up (CNativeLoader): an idle server maps none of them, and each
/// command maps exactly the ones it uses, after it has started.
@Suite struct NativeLibraryLoadingTests {
    /// File-name stems of the native libraries and of what only they bring in.
    static let native = ["libvips.so", "libtesseract.so", "liblept", "libpangocairo-1.0.so", "libpango-1.0.so", "libcairo.so",
                         "libzbar.so", "libglib-2.0.so", "libgobject-2.0.so"]

    @Test func anIdleServerMapsNoNativeLibrary() async throws {
        let folder = CLI.Folder()
        let server = try CLI.Server(folder: folder)
        defer { server.stop() }
        let healthy = await server.health() != nil
        #expect(healthy, "the server did not answer within 30 s")
        let maps = try String(decoding: FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(server.process.pid)/maps"))
            .readToEnd() ?? Data(), as: UTF8.self)
        #expect(maps.split(separator: "\n").contains { $0.hasSuffix("/libswiftCore.so") }, "not a process map")
        let mapped = Self.native.filter { maps.contains($0) }
        #expect(mapped.isEmpty, "an idle server has \(mapped) mapped")
    }

    @Test func eachCommandLoadsOnlyWhatItUsesOnFirstUse() throws {
        let folder = CLI.Folder()
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        let png = URL(fileURLWithPath: folder.path).appendingPathComponent("code.png")
        try DemoBarcodes.ean13PNG("4006381333931").write(to: png)

        let version = try loads(["--version"], in: folder)
        #expect(version.dynamically.isEmpty && version.atStart.isDisjoint(with: Self.sonames), "\(version)")

        let barcode = try loads(["barcode", "read", png.path], in: folder)
        #expect(barcode.dynamically == ["libvips.so.42", "libzbar.so.0"], "\(barcode)")

        let receipt = try loads(["receipt", "read", png.path], in: folder)
        #expect(receipt.dynamically.contains("libtesseract.so.5"), "\(receipt)")
        #expect(!receipt.dynamically.contains("libpangocairo-1.0.so.0") && !receipt.dynamically.contains("libzbar.so.0"), "\(receipt)")

        #expect(try CLI.run(["demo", "--data", folder.path, "--items", "3"]).status == 0)
        let report = try loads(["report", "inventory", "--data", folder.path, "--out", folder.path + "/inventory.pdf"], in: folder)
        #expect(report.dynamically.contains("libpangocairo-1.0.so.0"), "\(report)")
        #expect(!report.dynamically.contains("libtesseract.so.5") && !report.dynamically.contains("libzbar.so.0"), "\(report)")

        for run in [version, barcode, receipt, report] {
            #expect(run.atStart.isDisjoint(with: Self.sonames), "loaded at start: \(run.atStart.intersection(Self.sonames))")
        }
    }

    /// The sonames CNativeLoader opens.
    static let sonames: Set<String> = ["libvips.so.42", "libtesseract.so.5", "libpangocairo-1.0.so.0", "libzbar.so.0"]

    struct Loads: CustomStringConvertible {
        /// Libraries the program itself asked for with dlopen (not their dependencies), among `sonames`.
        var dynamically: Set<String> = []
        /// Every library the dynamic loader loaded as a dependency (DT_NEEDED) before the first of those
        /// dlopen calls: what the program started with.
        var atStart: Set<String> = []
        var description: String { "dlopen: \(dynamically.sorted()), needed: \(atStart.count) files" }
    }

    /// Runs a command with glibc's loader trace (LD_DEBUG=files, written to a file) and reads which
    /// libraries the binary opened with dlopen and which came in as dependencies.
    private func loads(_ arguments: [String], in folder: CLI.Folder) throws -> Loads {
        let prefix = folder.path + "/ld-\(UUID().uuidString)"
        _ = try CLI.run(arguments, environment: ["LD_DEBUG": "files", "LD_DEBUG_OUTPUT": prefix])
        let name = URL(fileURLWithPath: prefix).lastPathComponent
        // One file per process: the command's own, and one per helper it started (nestory-zxing for barcodes).
        let traces = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(name + ".") }
            .map { String(decoding: try Data(contentsOf: URL(fileURLWithPath: folder.path + "/" + $0)), as: UTF8.self) }
            .filter { $0.contains("needed by \(CLI.binary.path) [0]") }
        #expect(traces.count == 1, "expected one loader trace of \(CLI.binary.path), found \(traces.count)")
        var result = Loads()
        for text in traces {
            // In the order the loader worked: "  123:\tfile=libvips.so.42 [0];  dynamically loaded by /path/nestory [0]"
            for line in text.split(separator: "\n") {
                guard let start = line.range(of: "file=") else { continue }
                let file = String(line[start.upperBound...].prefix { $0 != " " })
                if line.contains("dynamically loaded by"), Self.sonames.contains(file) {
                    result.dynamically.insert(file)
                } else if line.contains("needed by"), result.dynamically.isEmpty {
                    result.atStart.insert(file)
                }
            }
        }
        return result
    }
}
