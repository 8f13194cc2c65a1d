import Foundation
import Testing

/// `nestory barcode read`, run as a real process on pictures the test draws.
@Suite struct BarcodeCommandTests {
    @Test func printsTheCodeAsJSON() throws {
        let file = try fileprivateTemporaryPNG(BarcodeCommandFixtures.ean13Picture("4006381333931"))
        let result = try runNestory(["barcode", "read", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        struct Code: Decodable { let format: String; let text: String; let gtin: String? }
        let codes = try JSONDecoder().decode([Code].self, from: Data(result.stdout.utf8))
        #expect(codes.count == 1, "\(result.stdout)")
        #expect(codes.first?.format == "EAN-13")
        #expect(codes.first?.text == "4006381333931")
        #expect(codes.first?.gtin == "04006381333931")
    }

    @Test func exitsNonZeroWhenThereIsNoCode() throws {
        let file = try fileprivateTemporaryPNG(BarcodeCommandFixtures.blank(width: 200, height: 100))
        let result = try runNestory(["barcode", "read", file.path])
        #expect(result.status != 0)
        #expect(result.stderr.contains("No barcode found"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func explainsANonImage() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-barcode-\(UUID()).txt")
        try Data("hello".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try runNestory(["barcode", "read", file.path])
        #expect(result.status != 0)
        #expect(result.stderr.contains("not an image"), "\(result.stderr)")
    }
}

/// Runs the `nestory` built beside this test bundle.
fileprivate func runNestory(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("nestory")
    try #require(FileManager.default.isExecutableFile(atPath: executable.path), "build nestory first: \(executable.path)")
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
}

fileprivate func fileprivateTemporaryPNG(_ picture: (width: Int, height: Int, pixels: [UInt8])) throws -> URL {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-barcode-\(UUID()).png")
    try BarcodeCommandFixtures.png(picture).write(to: file)
    return file
}

/// A minimal EAN-13 drawer and stored-deflate PNG writer, private to this file.
fileprivate enum BarcodeCommandFixtures {
    static let l = ["0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111", "0001011"]
    static let r = l.map { String($0.map { $0 == "0" ? "1" : "0" }) }
    static let g = r.map { String($0.reversed()) }
    static let parity = ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLG", "LGLGLG", "LGLGGL", "LGGLGL"]

    static func ean13Picture(_ text: String) -> (width: Int, height: Int, pixels: [UInt8]) {
        let d = text.map { $0.wholeNumberValue! }
        let p = Array(parity[d[0]])
        var bits = "101"
        for i in 1...6 { bits += p[i - 1] == "L" ? l[d[i]] : g[d[i]] }
        bits += "01010"
        for i in 7...12 { bits += r[d[i]] }
        bits += "101"
        let module = 3, quiet = 12 * module, barHeight = 90
        let width = bits.count * module + 2 * quiet, height = barHeight + 2 * 20
        var pixels = [UInt8](repeating: 255, count: width * height)
        for (i, bit) in bits.enumerated() where bit == "1" {
            for y in 20..<(20 + barHeight) {
                for x in (quiet + i * module)..<(quiet + (i + 1) * module) { pixels[y * width + x] = 0 }
            }
        }
        return (width, height, pixels)
    }

    static func blank(width: Int, height: Int) -> (width: Int, height: Int, pixels: [UInt8]) {
        (width, height, [UInt8](repeating: 255, count: width * height))
    }

    static func png(_ picture: (width: Int, height: Int, pixels: [UInt8])) -> Data {
        var raw: [UInt8] = []
        for y in 0..<picture.height {
            raw.append(0)
            raw.append(contentsOf: picture.pixels[y * picture.width..<(y + 1) * picture.width])
        }
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
        func crc(_ bytes: [UInt8]) -> UInt32 {
            var c: UInt32 = 0xFFFF_FFFF
            for b in bytes {
                c ^= UInt32(b)
                for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            }
            return c ^ 0xFFFF_FFFF
        }
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            return be(UInt32(body.count)) + typed + be(crc(typed))
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65_535, raw.count - offset)
            zlib += [offset + n >= raw.count ? 1 : 0, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            zlib += raw[offset..<offset + n]
            offset += n
        } while offset < raw.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65_521; b = (b + a) % 65_521 }
        zlib += be((b << 16) | a)
        let header = be(UInt32(picture.width)) + be(UInt32(picture.height)) + [8, 0, 0, 0, 0]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", zlib) + chunk("IEND", []))
    }
}
