import Foundation

/// EAN-13 barcode labels drawn in code: product labels for demo data, and pictures for tests of the
/// scanning paths (the decoder, the API, the browser's camera).
public enum DemoBarcodes {
    static let lCodes = ["0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111", "0001011"]
    static let rCodes = lCodes.map { String($0.map { $0 == "0" ? "1" : "0" }) }
    static let gCodes = rCodes.map { String($0.reversed()) }
    /// Left-half parities keyed by the first digit (L odd, G even).
    static let ean13Parity = ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLG", "LGLGLG", "LGLGGL", "LGGLGL"]

    /// The modules ("1" a bar, "0" a space, each one module wide) of an EAN-13 (13 digits, check digit included).
    public static func ean13Modules(_ text: String) -> String {
        let d = text.map { $0.wholeNumberValue! }
        precondition(d.count == 13, "an EAN-13 has 13 digits")
        let parity = Array(ean13Parity[d[0]])
        var bits = "101"
        for i in 1...6 { bits += parity[i - 1] == "L" ? lCodes[d[i]] : gCodes[d[i]] }
        bits += "01010"
        for i in 7...12 { bits += rCodes[d[i]] }
        return bits + "101"
    }

    /// A grey PNG of an EAN-13 with quiet zones: black bars on white paper.
    public static func ean13PNG(_ text: String, moduleWidth: Int = 3, barHeight: Int = 90, quiet: Int = 14) -> Data {
        let modules = Array(ean13Modules(text))
        let width = (modules.count + 2 * quiet) * moduleWidth, height = barHeight + 2 * quiet * moduleWidth / 2
        var row = [UInt8](repeating: 255, count: width)
        for (i, bit) in modules.enumerated() where bit == "1" {
            for x in 0..<moduleWidth { row[(quiet + i) * moduleWidth + x] = 0 }
        }
        var pixels = [UInt8]()
        let top = (height - barHeight) / 2
        for y in 0..<height {
            pixels.append(0)
            pixels += (top..<(top + barHeight)).contains(y) ? row : [UInt8](repeating: 255, count: width)
        }
        return DemoImages.png(width: width, height: height, colorType: 0, rawScanlines: pixels)
    }
}
