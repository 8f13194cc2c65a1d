import Foundation
import NestoryChildProcess
import Testing

/// Receipt images the tests make themselves: text rendered with libvips' `vips` tool (libvips-tools,
/// installed by `scripts/install-deps.sh --test`), black on white with a margin, like a scan.
enum RenderedReceipts {
    struct ToolFailed: Error, CustomStringConvertible {
        let description: String
    }

    static let folder: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-ocr-tests-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    static func vips(_ arguments: [String]) throws {
        let finished = try ChildProcess.run("/usr/bin/env", ["vips"] + arguments)
        guard finished.exitCode == 0 else {
            throw ToolFailed(description: "vips \(arguments.first ?? "") failed: \(finished.errorText)")
        }
    }

    /// Renders `text` (one printed line per line) in a monospaced font, as a receipt printer would.
    static func png(_ text: String, name: String, points: Int = 10, dpi: Int = 300, width: Int = 1400, height: Int = 2200) throws -> Data {
        let raw = folder.appendingPathComponent(name + "-text.v").path
        let framed = folder.appendingPathComponent(name + "-framed.v").path
        let output = folder.appendingPathComponent(name + ".png").path
        // Pango markup: escape the three characters it reads as markup.
        let markup = text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        try vips(["text", raw, markup, "--font", "DejaVu Sans Mono \(points)", "--dpi", "\(dpi)"])
        // `vips text` draws white on black: add a black margin, then invert to black on white.
        try vips(["embed", raw, framed, "60", "60", "\(width)", "\(height)"])
        try vips(["invert", framed, output])
        return try readAndRemove(output, [raw, framed])
    }

    /// The finished image's bytes; it and the steps' files are removed (a run made about 30 MB of them).
    private static func readAndRemove(_ output: String, _ steps: [String]) throws -> Data {
        defer { for path in steps + [output] { try? FileManager.default.removeItem(atPath: path) } }
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }

    /// A plain image of one grey level (0 black, 255 white).
    static func flat(level: Int, width: Int = 800, height: Int = 1000, name: String) throws -> Data {
        let black = folder.appendingPathComponent(name + "-black.v").path
        let output = folder.appendingPathComponent(name + ".png").path
        try vips(["black", black, "\(width)", "\(height)"])
        try vips(["linear", black, output, "1", "\(level)", "--uchar"])
        return try readAndRemove(output, [black])
    }
}
