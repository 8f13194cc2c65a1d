@testable import NestoryBarcodesLive
import CBarcodeImageLoader
import Foundation
import NestoryDemo
import Testing

/// PNGs are turned to grey by three routes: png_direct.c for the common 8-bit ones, libpng for 8-bit ones with a
/// gamma or colour profile (and whatever png_direct.c declines), libvips for 16-bit ones and everything else. A
/// transparent picture must come out the same every way, put on white paper, pixel for pixel.
@Suite struct ImageLoaderTests {
    /// A palette of colours and transparencies, and a picture using every entry.
    static let palette: [(r: UInt8, g: UInt8, b: UInt8, a: UInt8)] = (0..<256).map { i in
        (UInt8(truncatingIfNeeded: i * 37), UInt8(truncatingIfNeeded: i * 91 + 13), UInt8(truncatingIfNeeded: 255 - i), UInt8(truncatingIfNeeded: i % 5 == 0 ? 255 : i * 29))
    }
    static let width = 31, height = 17
    static func index(_ x: Int, _ y: Int) -> Int { (x * 7 + y * 13) % 256 }

    static func rows(_ pixel: (Int) -> [UInt8]) -> [UInt8] {
        var raw: [UInt8] = []
        for y in 0..<height {
            raw.append(0)
            for x in 0..<width { raw.append(contentsOf: pixel(index(x, y))) }
        }
        return raw
    }

    @Test func transparentPNGsGiveTheSameGreyByEveryRoute() throws {
        let plte = Data(Self.palette.flatMap { [$0.r, $0.g, $0.b] }), trns = Data(Self.palette.map(\.a))
        let rgbaRows = Self.rows { i in
            let p = Self.palette[i]
            return [p.r, p.g, p.b, p.a]
        }
        let indexed = DemoImages.png(width: Self.width, height: Self.height, colorType: 3, chunks: [("PLTE", plte), ("tRNS", trns)], rawScanlines: Self.rows { [UInt8($0)] })
        let rgba8 = DemoImages.png(width: Self.width, height: Self.height, colorType: 6, rawScanlines: rgbaRows)
        // sRGB's own gamma (1/2.2 as 45455): libpng's route, which leaves the values as they are.
        let gamma = Data([0, 0, 0xB1, 0x8F])
        let rgba8Gamma = DemoImages.png(width: Self.width, height: Self.height, colorType: 6, chunks: [("gAMA", gamma)], rawScanlines: rgbaRows)
        // 16 bits a channel (v × 257, so the top byte is v): libvips' route.
        let rgba16 = DemoImages.png(width: Self.width, height: Self.height, colorType: 6, bitDepth: 16, rawScanlines: Self.rows { i in
            let p = Self.palette[i]
            return [p.r, p.r, p.g, p.g, p.b, p.b, p.a, p.a]
        })
        #expect(PNGDecodingTests.direct(indexed) == 0 && PNGDecodingTests.direct(rgba8) == 0)
        #expect(PNGDecodingTests.direct(rgba8Gamma) == -1 && PNGDecodingTests.direct(rgba16) == -1)
        let reference = try ImageLoader.loadGray(rgba16)
        #expect(reference.width == Self.width && reference.height == Self.height)
        // Luma, then put on white by its alpha: fully transparent is white paper.
        let expected = (0..<(Self.width * Self.height)).map { at -> UInt8 in
            let p = Self.palette[Self.index(at % Self.width, at / Self.width)]
            return PNGDecodingTests.onWhite(PNGDecodingTests.luma(p.r, p.g, p.b), p.a)
        }
        #expect(reference.pixels == expected)
        for (name, png) in [("palette", indexed), ("RGBA", rgba8), ("RGBA with gamma", rgba8Gamma)] {
            #expect(try ImageLoader.loadGray(png).pixels == reference.pixels, "\(name)")
        }
    }
}

/// PNGs built here with every filter, layout and palette depth, and split or broken in the ways real files are:
/// the grey that comes out is computed independently from the samples.
@Suite struct PNGDecodingTests {
    /// Each row filtered with the type `(row + firstFilter) % 5` (None, Sub, Up, Average, Paeth), as an encoder would.
    static func filtered(_ rows: [[UInt8]], bytesPerPixel bpp: Int, firstFilter: Int = 0) -> [UInt8] {
        var out: [UInt8] = []
        for (y, row) in rows.enumerated() {
            let filter = (y + firstFilter) % 5
            out.append(UInt8(filter))
            for x in 0..<row.count {
                let a = x >= bpp ? Int(row[x - bpp]) : 0, b = y > 0 ? Int(rows[y - 1][x]) : 0
                let c = x >= bpp && y > 0 ? Int(rows[y - 1][x - bpp]) : 0
                let prediction: Int
                switch filter {
                case 1: prediction = a
                case 2: prediction = b
                case 3: prediction = (a + b) / 2
                case 4:
                    let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    prediction = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
                default: prediction = 0
                }
                out.append(UInt8(truncatingIfNeeded: Int(row[x]) - prediction))
            }
        }
        return out
    }

    static func sample(_ x: Int, _ y: Int, _ channel: Int) -> UInt8 { UInt8(truncatingIfNeeded: x * 29 + y * 53 + channel * 101 + (x * y) % 7) }
    static func luma(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int { (Int(r) * 306 + Int(g) * 601 + Int(b) * 117 + 512) >> 10 }
    static func onWhite(_ luma: Int, _ a: UInt8) -> UInt8 { UInt8((luma * Int(a) + 255 * (255 - Int(a)) + 127) / 255) }

    static let width = 23, height = 11

    @Test(arguments: [0, 2, 4, 6] as [UInt8])
    func everyFilterAndLayoutGivesTheSamplesGrey(colorType: UInt8) throws {
        let channels = [0: 1, 2: 3, 4: 2, 6: 4][Int(colorType)]!
        let rows = (0..<Self.height).map { y in (0..<Self.width).flatMap { x in (0..<channels).map { Self.sample(x, y, $0) } } }
        let png = DemoImages.png(width: Self.width, height: Self.height, colorType: colorType, rawScanlines: Self.filtered(rows, bytesPerPixel: channels))
        let expected = (0..<Self.height).flatMap { y in
            (0..<Self.width).map { x -> UInt8 in
                let s = { Self.sample(x, y, $0) }
                switch colorType {
                case 0: return s(0)
                case 2: return UInt8(Self.luma(s(0), s(1), s(2)))
                case 4: return Self.onWhite(Int(s(0)), s(1))
                default: return Self.onWhite(Self.luma(s(0), s(1), s(2)), s(3))
                }
            }
        }
        #expect(PNGDecodingTests.direct(png) == 0, "decoded by the fast route")
        let image = try ImageLoader.loadGray(png)
        #expect(image.width == Self.width && image.height == Self.height)
        #expect(image.pixels == expected)
    }

    /// Noise, as in photos, takes every branch of the Paeth predictor (the whole-pixel loops of 3 and 4 bytes
    /// included), and each filter also comes first, where there is no row above.
    @Test(arguments: [0, 2, 4, 6] as [UInt8])
    func noisyRowsWithEveryFilterFirst(colorType: UInt8) throws {
        let channels = [0: 1, 2: 3, 4: 2, 6: 4][Int(colorType)]!
        let width = 41, height = 12
        var state: UInt32 = 0x9E37_79B9
        let rows = (0..<height).map { _ in
            (0..<width * channels).map { _ -> UInt8 in
                state = state &* 1_664_525 &+ 1_013_904_223
                return UInt8(truncatingIfNeeded: state >> 24)
            }
        }
        let expected = rows.flatMap { row in
            (0..<width).map { x -> UInt8 in
                let s = Array(row[x * channels..<(x + 1) * channels])
                switch colorType {
                case 0: return s[0]
                case 2: return UInt8(Self.luma(s[0], s[1], s[2]))
                case 4: return Self.onWhite(Int(s[0]), s[1])
                default: return Self.onWhite(Self.luma(s[0], s[1], s[2]), s[3])
                }
            }
        }
        for first in 0..<5 {
            let png = DemoImages.png(width: width, height: height, colorType: colorType, rawScanlines: Self.filtered(rows, bytesPerPixel: channels, firstFilter: first))
            #expect(Self.direct(png) == 0, "decoded by the fast route")
            #expect(try ImageLoader.loadGray(png).pixels == expected, "colour type \(colorType), first filter \(first)")
        }
    }

    @Test(arguments: [1, 2, 4, 8] as [UInt8])
    func palettesOfEveryDepthWithAndWithoutTransparency(bitDepth: UInt8) throws {
        let entries = 1 << Int(bitDepth)
        let palette = (0..<entries).map { i in (Self.sample(i, 1, 0), Self.sample(i, 2, 1), Self.sample(i, 3, 2)) }
        let alphas = (0..<entries).map { UInt8(truncatingIfNeeded: $0 * 97) }
        let index = { (x: Int, y: Int) in (x * 3 + y * 5) % entries }
        // Indices packed from the high bits, rows padded to a whole byte.
        let rows = (0..<Self.height).map { y -> [UInt8] in
            var row = [UInt8](repeating: 0, count: (Self.width * Int(bitDepth) + 7) / 8)
            for x in 0..<Self.width {
                let bit = x * Int(bitDepth)
                row[bit / 8] |= UInt8(index(x, y) << (8 - Int(bitDepth) - bit % 8))
            }
            return row
        }
        let plte = Data(palette.flatMap { [$0.0, $0.1, $0.2] })
        for transparent in [false, true] {
            // A tRNS shorter than the palette leaves the rest opaque.
            let trns = Data(alphas.prefix(max(1, entries - 1)))
            let chunks: [(type: String, data: Data)] = transparent ? [("PLTE", plte), ("tRNS", trns)] : [("PLTE", plte)]
            let png = DemoImages.png(width: Self.width, height: Self.height, colorType: 3, bitDepth: bitDepth, chunks: chunks, rawScanlines: Self.filtered(rows, bytesPerPixel: 1))
            let expected = (0..<Self.height).flatMap { y in
                (0..<Self.width).map { x -> UInt8 in
                    let i = index(x, y), p = palette[i]
                    let alpha: UInt8 = transparent && i < trns.count ? alphas[i] : 255
                    return Self.onWhite(Self.luma(p.0, p.1, p.2), alpha)
                }
            }
            #expect(Self.direct(png) == 0, "decoded by the fast route")
            let image = try ImageLoader.loadGray(png)
            #expect(image.pixels == expected, "\(bitDepth)-bit palette, transparent: \(transparent)")
        }
    }

    /// The PNG's chunks, to cut up and put back together.
    static func chunks(_ png: Data) -> [(type: String, data: Data)] {
        var out: [(String, Data)] = []
        var at = png.startIndex + 8
        while at + 12 <= png.endIndex {
            let length = png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            out.append((String(decoding: png[at + 4..<at + 8], as: UTF8.self), Data(png[at + 8..<at + 8 + length])))
            at += 12 + length
        }
        return out
    }

    static func crc32(_ bytes: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }

    static func assemble(_ chunks: [(type: String, data: Data)]) -> Data {
        var out = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        for chunk in chunks {
            let typed = Data(chunk.type.utf8) + chunk.data
            out.append(contentsOf: withUnsafeBytes(of: UInt32(chunk.data.count).bigEndian, Array.init))
            out.append(typed)
            out.append(contentsOf: withUnsafeBytes(of: crc32(typed).bigEndian, Array.init))
        }
        return out
    }

    /// A grey picture with every filter, and its PNG.
    static let greyRows = (0..<height).map { y in (0..<width).map { sample($0, y, 0) } }
    static let greyPNG = DemoImages.png(width: width, height: height, colorType: 0, rawScanlines: filtered(greyRows, bytesPerPixel: 1))

    @Test func pixelDataSplitOverSeveralChunksIsJoined() throws {
        var parts = Self.chunks(Self.greyPNG)
        let idat = parts.firstIndex { $0.type == "IDAT" }!
        let data = parts[idat].data
        let pieces = [data.prefix(5), data.dropFirst(5).prefix(1), data.dropFirst(6).prefix(0), data.dropFirst(6)].map { ("IDAT", Data($0)) }
        parts.replaceSubrange(idat...idat, with: pieces)
        parts.insert(("tEXt", Data("Comment\u{0}between".utf8)), at: idat)
        #expect(Self.direct(Self.assemble(parts)) == 0, "decoded by the fast route")
        let image = try ImageLoader.loadGray(Self.assemble(parts))
        #expect(image.pixels == Self.greyRows.flatMap { $0 })
    }

    /// The fast route's own answer: 0 decoded, -1 left to libpng and libvips.
    static func direct(_ png: Data) -> Int32 {
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = png.withUnsafeBytes { nb_decode_png_direct($0.baseAddress, $0.count, 100_000_000, &pixels, &width, &height, &message, message.count) }
        nb_free_pixels(pixels)
        return status
    }

    @Test func brokenPNGsAreLeftToLibpngAndLibvips() throws {
        let good = Self.greyPNG
        var badFilter = Self.chunks(good)
        let idat = badFilter.firstIndex { $0.type == "IDAT" }!
        // A stored-block zlib stream: the first row's filter byte sits after the 2-byte header and 5-byte block header.
        badFilter[idat].data[7] = 9
        let noEnd = Self.assemble(Self.chunks(good).filter { $0.type != "IEND" && $0.type != "IDAT" })
        let palette = DemoImages.png(width: 4, height: 1, colorType: 3, chunks: [("PLTE", Data([0, 0, 0, 255, 255, 255]))], rawScanlines: [0, 0, 1, 2, 1])
        let cases: [(String, Data)] = [
            ("truncated", good.prefix(good.count / 2)),
            ("an unknown filter type", Self.assemble(badFilter)),
            ("no pixel data", noEnd),
            ("a palette index past the palette", palette),
        ]
        for (name, data) in cases {
            // The fast route leaves each of them to libpng and libvips...
            #expect(Self.direct(data) == -1, "\(name)")
            // ...which refuse it or give what could be read, at the declared size; never a crash.
            do {
                let image = try ImageLoader.loadGray(data)
                #expect(image.width == (name.hasPrefix("a palette") ? 4 : Self.width), "\(name)")
            } catch let error {
                guard case .unreadableImage(let detail) = error else { Issue.record("\(name): \(error)"); continue }
                #expect(!detail.isEmpty, "\(name)")
            }
        }
        #expect(Self.direct(good) == 0)
    }
}
