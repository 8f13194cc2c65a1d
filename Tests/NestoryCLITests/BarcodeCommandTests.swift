import Foundation
import NestoryDemo
import Testing

/// `nestory barcode read`, run as a real process on pictures the test draws.
@Suite struct BarcodeCommandTests {
    @Test func printsTheCodeAsJSON() throws {
        let file = try fileprivateTemporaryPNG(BarcodeCommandFixtures.ean13Picture("4006381333931"))
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try CLI.run(["barcode", "read", file.path])
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
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try CLI.run(["barcode", "read", file.path])
        #expect(result.status != 0)
        #expect(result.stderr.contains("No barcode found"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func explainsANonImage() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-barcode-\(UUID()).txt")
        try Data("hello".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try CLI.run(["barcode", "read", file.path])
        #expect(result.status != 0)
        #expect(result.stderr.contains("not an image"), "\(result.stderr)")
    }
}

fileprivate func fileprivateTemporaryPNG(_ picture: (width: Int, height: Int, pixels: [UInt8])) throws -> URL {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-barcode-\(UUID()).png")
    try BarcodeCommandFixtures.png(picture).write(to: file)
    return file
}

/// A minimal EAN-13 drawer, private to this file.
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
        return DemoImages.png(width: picture.width, height: picture.height, colorType: 0, rawScanlines: raw)
    }
}
