import Foundation

/// Small PNG images made in code, so demo items have real photo files without shipping any.
public enum DemoImages {
    /// A `width`×`height` PNG: a colour field with a diagonal band, different for each variant.
    public static func photo(variant: Int, width: Int = 96, height: Int = 72) -> Data {
        let hue = Double(variant % 16) / 16
        let (r, g, b) = rgb(hue: hue)
        var pixels = [UInt8]()
        pixels.reserveCapacity((width * 3 + 1) * height)
        for y in 0..<height {
            pixels.append(0)  // filter: none
            for x in 0..<width {
                let band = abs((x + y * 2) % 48 - 24) < 6
                pixels += band ? [255, 255, 255] : [r, g, b]
            }
        }
        return png(width: width, height: height, colorType: 2, rawScanlines: pixels)
    }

    /// A grey "scanned receipt": white paper with dark lines of "text".
    public static func receipt(variant: Int, width: Int = 60, height: Int = 120) -> Data {
        var pixels = [UInt8]()
        for y in 0..<height {
            pixels.append(0)
            let isLine = y % 8 < 3 && y > 6 && y < height - 6
            let lineLength = 10 + ((y / 8 + variant) * 7) % (width - 20)
            for x in 0..<width {
                pixels.append(isLine && x > 5 && x < 5 + lineLength ? 40 : 245)
            }
        }
        return png(width: width, height: height, colorType: 0, rawScanlines: pixels)
    }

    static func rgb(hue: Double) -> (UInt8, UInt8, UInt8) {
        let h = hue * 6, x = 1 - abs(h.truncatingRemainder(dividingBy: 2) - 1)
        let (r, g, b): (Double, Double, Double) =
            h < 1 ? (1, x, 0) : h < 2 ? (x, 1, 0) : h < 3 ? (0, 1, x) : h < 4 ? (0, x, 1) : h < 5 ? (x, 0, 1) : (1, 0, x)
        return (UInt8(60 + r * 170), UInt8(60 + g * 170), UInt8(60 + b * 170))
    }

    /// A valid 8-bit PNG whose zlib stream uses stored (uncompressed) blocks. `rawScanlines` holds each
    /// row preceded by its filter byte (0); `colorType` 0 is grey, 2 is RGB. Tests use it for fixtures.
    /// `chunks` go between the header and the pixels (a palette's `PLTE` and `tRNS`).
    public static func png(width: Int, height: Int, colorType: UInt8, bitDepth: UInt8 = 8, chunks: [(type: String, data: Data)] = [], rawScanlines: [UInt8]) -> Data {
        var out = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.append(bigEndian: UInt32(width))
        header.append(bigEndian: UInt32(height))
        header.append(contentsOf: [bitDepth, colorType, 0, 0, 0])
        out.append(chunk: "IHDR", header)
        for chunk in chunks { out.append(chunk: chunk.type, chunk.data) }

        var zlib = Data([0x78, 0x01])
        var offset = 0
        repeat {
            let length = min(65_535, rawScanlines.count - offset)
            let final: UInt8 = offset + length >= rawScanlines.count ? 1 : 0
            zlib.append(final)
            zlib.append(UInt8(length & 0xFF)); zlib.append(UInt8(length >> 8))
            zlib.append(UInt8(~length & 0xFF)); zlib.append(UInt8((~length >> 8) & 0xFF))
            zlib.append(contentsOf: rawScanlines[offset..<offset + length])
            offset += length
        } while offset < rawScanlines.count
        zlib.append(bigEndian: adler32(rawScanlines))
        out.append(chunk: "IDAT", zlib)
        out.append(chunk: "IEND", Data())
        return out
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return (b << 16) | a
    }

    static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// CRC-32 as PNG chunks use it.
    public static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}

extension Data {
    fileprivate mutating func append(bigEndian value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
    }

    fileprivate mutating func append(chunk type: String, _ body: Data) {
        append(bigEndian: UInt32(body.count))
        let typed = Data(type.utf8) + body
        append(typed)
        append(bigEndian: DemoImages.crc32(typed))
    }
}
