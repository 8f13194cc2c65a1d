import Foundation
import NestoryBarcodes
import NestoryBarcodesLive
import NestoryDemo

/// Barcodes the tests draw themselves: modules (narrowest bars) as runs of black and white pixels.
enum BarcodeRendering {
    // MARK: EAN / UPC

    static let lCodes = ["0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111", "0001011"]
    static let rCodes = lCodes.map { String($0.map { $0 == "0" ? "1" : "0" }) }
    static let gCodes = rCodes.map { String($0.reversed()) }
    /// UPC-E parities for number system 0 keyed by the check digit (E even, O odd); number system 1 inverts them.
    static let upceParity = ["EEEOOO", "EEOEOO", "EEOOEO", "EEOOOE", "EOEEOO", "EOOEEO", "EOOOEE", "EOEOEO", "EOEOOE", "EOOEOE"]

    static func digits(_ text: String) -> [Int] { text.map { $0.wholeNumberValue! } }

    /// Modules of an EAN-13 (13 digits, check digit included).
    static func ean13(_ text: String) -> String { DemoBarcodes.ean13Modules(text) }

    /// Modules of a UPC-A (12 digits): an EAN-13 whose first digit is 0.
    static func upcA(_ text: String) -> String { ean13("0" + text) }

    /// Modules of an EAN-8 (8 digits).
    static func ean8(_ text: String) -> String {
        let d = digits(text)
        precondition(d.count == 8)
        var bits = "101"
        for i in 0..<4 { bits += lCodes[d[i]] }
        bits += "01010"
        for i in 4..<8 { bits += rCodes[d[i]] }
        return bits + "101"
    }

    /// Modules of a UPC-E (8 digits: number system, six data digits, check digit).
    static func upcE(_ text: String) -> String {
        let d = digits(text)
        precondition(d.count == 8 && d[0] <= 1)
        let parity = Array(upceParity[d[7]])
        var bits = "101"
        for i in 1...6 {
            let even = (parity[i - 1] == "E") != (d[0] == 1)
            bits += even ? gCodes[d[i]] : lCodes[d[i]]
        }
        return bits + "010101"
    }

    // MARK: Code 128

    /// Bar and space widths of Code 128 symbols 0...105, then the stop pattern.
    static let code128Widths = [
        "212222", "222122", "222221", "121223", "121322", "131222", "122213", "122312", "132212", "221213",
        "221312", "231212", "112232", "122132", "122231", "113222", "123122", "123221", "223211", "221132",
        "221231", "213212", "223112", "312131", "311222", "321122", "321221", "312212", "322112", "322211",
        "212123", "212321", "232121", "111323", "131123", "131321", "112313", "132113", "132311", "211313",
        "231113", "231311", "112133", "112331", "132131", "113123", "113321", "133121", "313121", "211331",
        "231131", "213113", "213311", "213131", "311123", "311321", "331121", "312113", "312311", "332111",
        "314111", "221411", "431111", "111224", "111422", "121124", "121421", "141122", "141221", "112214",
        "112412", "122114", "122411", "142112", "142211", "241211", "221114", "413111", "241112", "134111",
        "111242", "121142", "121241", "114212", "124112", "124211", "411212", "421112", "421211", "212141",
        "214121", "412121", "111143", "111341", "131141", "114113", "114311", "411113", "411311", "113141",
        "114131", "311141", "411131", "211412", "211214", "211232", "2331112",
    ]

    /// Modules of a Code 128 (code set B: printable ASCII, and Latin-1 letters as FNC4 + the letter less 128).
    static func code128(_ text: String) -> String {
        let values = text.unicodeScalars.flatMap { scalar -> [Int] in
            scalar.value >= 0xA0 && scalar.value <= 0xFF ? [100, Int(scalar.value) - 128 - 32] : [Int(scalar.value) - 32]
        }
        precondition(values.allSatisfy { (0...100).contains($0) })
        var checksum = 104
        for (i, v) in values.enumerated() { checksum += (i + 1) * v }
        let symbols = [104] + values + [checksum % 103, 106]
        var bits = ""
        for symbol in symbols {
            for (i, width) in code128Widths[symbol].enumerated() {
                bits += String(repeating: i % 2 == 0 ? "1" : "0", count: width.wholeNumberValue!)
            }
        }
        return bits
    }

    // MARK: Pictures

    /// A white picture with the modules drawn as bars `moduleWidth` pixels wide, with a quiet zone.
    static func picture(_ modules: String, moduleWidth: Int = 3, barHeight: Int = 80, quiet: Int = 12) -> GrayImage {
        let width = (modules.count + 2 * quiet) * moduleWidth
        let height = barHeight + 2 * quiet * moduleWidth / 2
        var image = blank(width: width, height: height)
        draw(modules, into: &image, x: quiet * moduleWidth, y: quiet * moduleWidth / 2, moduleWidth: moduleWidth, barHeight: barHeight)
        return image
    }

    static func blank(width: Int, height: Int, grey: UInt8 = 255) -> GrayImage {
        GrayImage(width: width, height: height, pixels: [UInt8](repeating: grey, count: width * height))
    }

    static func draw(_ modules: String, into image: inout GrayImage, x: Int, y: Int, moduleWidth: Int, barHeight: Int) {
        for (i, bit) in modules.enumerated() where bit == "1" {
            for row in y..<min(image.height, y + barHeight) {
                for col in (x + i * moduleWidth)..<min(image.width, x + (i + 1) * moduleWidth) {
                    image.pixels[row * image.width + col] = 0
                }
            }
        }
    }

    static func rotatedClockwise(_ image: GrayImage) -> GrayImage {
        var out = [UInt8](repeating: 0, count: image.pixels.count)
        for y in 0..<image.height {
            for x in 0..<image.width { out[x * image.height + (image.height - 1 - y)] = image.pixels[y * image.width + x] }
        }
        return GrayImage(width: image.height, height: image.width, pixels: out)
    }

    /// Resized by `scale` (< 1 shrinks) by area sampling, like a camera far from the code.
    static func scaled(_ image: GrayImage, by scale: Double) -> GrayImage {
        let w = max(1, Int(Double(image.width) * scale)), h = max(1, Int(Double(image.height) * scale))
        var out = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let x0 = Int(Double(x) / scale), x1 = max(x0 + 1, min(image.width, Int(Double(x + 1) / scale)))
                let y0 = Int(Double(y) / scale), y1 = max(y0 + 1, min(image.height, Int(Double(y + 1) / scale)))
                var sum = 0
                for sy in y0..<y1 { for sx in x0..<x1 { sum += Int(image.pixels[sy * image.width + sx]) } }
                out[y * w + x] = UInt8(sum / ((x1 - x0) * (y1 - y0)))
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }

    /// A (2r+1) × (2r+1) box blur.
    static func blurred(_ image: GrayImage, radius r: Int) -> GrayImage {
        var out = image.pixels
        for y in 0..<image.height {
            for x in 0..<image.width {
                var sum = 0, count = 0
                for dy in -r...r {
                    for dx in -r...r {
                        let sx = x + dx, sy = y + dy
                        guard sx >= 0, sy >= 0, sx < image.width, sy < image.height else { continue }
                        sum += Int(image.pixels[sy * image.width + sx]); count += 1
                    }
                }
                out[y * image.width + x] = UInt8(sum / count)
            }
        }
        return GrayImage(width: image.width, height: image.height, pixels: out)
    }

    /// Uniform noise of ±`amount` grey levels from a seeded generator (the same every run).
    static func noisy(_ image: GrayImage, amount: Int, seed: UInt64 = 42) -> GrayImage {
        var state = seed
        let pixels = image.pixels.map { p -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let noise = Int((state >> 33) % UInt64(2 * amount + 1)) - amount
            return UInt8(max(0, min(255, Int(p) + noise)))
        }
        return GrayImage(width: image.width, height: image.height, pixels: pixels)
    }

    // MARK: PNG

    /// A greyscale PNG of the image (the demo module's encoder).
    static func png(_ image: GrayImage) -> Data {
        var raw: [UInt8] = []
        raw.reserveCapacity((image.width + 1) * image.height)
        for y in 0..<image.height {
            raw.append(0)
            raw.append(contentsOf: image.pixels[y * image.width..<(y + 1) * image.width])
        }
        return DemoImages.png(width: image.width, height: image.height, colorType: 0, rawScanlines: raw)
    }
}
