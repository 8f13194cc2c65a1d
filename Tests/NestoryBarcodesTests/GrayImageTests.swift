@testable import NestoryBarcodesLive
import Testing

/// The passes' picture transforms are written for speed; these check them against the plain formulas they stand
/// for, on pseudo-random pictures of awkward sizes, pixel for pixel.
@Suite struct GrayImageTests {
    static func noise(_ width: Int, _ height: Int, seed: UInt64) -> GrayImage {
        var state = seed
        let pixels = (0..<(width * height)).map { _ -> UInt8 in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    static let sizes = [(1, 1), (1, 7), (9, 9), (10, 33), (64, 17), (127, 128), (300, 41)]

    /// Bilinear, 8-bit fixed point: each output pixel from its four source neighbours.
    static func referenceUpscaled(_ image: GrayImage, by factor: Int) -> [UInt8] {
        let w = image.width * factor, h = image.height * factor
        func position(_ i: Int, _ size: Int) -> (Int, Int, Int) {
            let f = max(0, ((2 * i + 1) * 256 / (2 * factor)) - 128)
            let lo = min(size - 1, f >> 8)
            return (lo, min(size - 1, lo + 1), f & 255)
        }
        var out: [UInt8] = []
        for y in 0..<h {
            let (y0, y1, wy) = position(y, image.height)
            for x in 0..<w {
                let (x0, x1, wx) = position(x, image.width)
                func p(_ x: Int, _ y: Int) -> Int { Int(image.pixels[y * image.width + x]) }
                let top = p(x0, y0) * (256 - wx) + p(x1, y0) * wx
                let bottom = p(x0, y1) * (256 - wx) + p(x1, y1) * wx
                out.append(UInt8((top * (256 - wy) + bottom * wy + 32768) >> 16))
            }
        }
        return out
    }

    /// Each pixel against 95% of the mean of its window (radius max(4, short side / 16), clamped to the picture).
    static func referenceBinarized(_ image: GrayImage) -> [UInt8] {
        let w = image.width, h = image.height, r = max(4, min(w, h) / 16)
        var out: [UInt8] = []
        for y in 0..<h {
            for x in 0..<w {
                var sum = 0, area = 0
                for yy in max(0, y - r)..<min(h, y + r + 1) {
                    for xx in max(0, x - r)..<min(w, x + r + 1) { sum += Int(image.pixels[yy * w + xx]); area += 1 }
                }
                out.append(Int(image.pixels[y * w + x]) * 100 * area < sum * 95 ? 0 : 255)
            }
        }
        return out
    }

    @Test(arguments: sizes)
    func upscalingMatchesTheBilinearFormula(size: (Int, Int)) {
        let image = Self.noise(size.0, size.1, seed: UInt64(size.0 * 1000 + size.1))
        for factor in [2, 3] {
            let up = image.upscaled(by: factor)
            #expect(up.width == size.0 * factor && up.height == size.1 * factor)
            #expect(up.pixels == Self.referenceUpscaled(image, by: factor), "\(size) × \(factor)")
        }
    }

    @Test(arguments: sizes.filter { $0.0 > 8 && $0.1 > 8 })
    func binarizingMatchesTheLocalMeanFormula(size: (Int, Int)) {
        // Noise, and a smooth ramp with a dark band (where rounding of the threshold matters).
        let ramp = GrayImage(width: size.0, height: size.1, pixels: (0..<(size.0 * size.1)).map { i in
            let x = i % size.0
            return UInt8(x % 13 < 3 ? 20 : min(255, 60 + x * 190 / max(1, size.0 - 1)))
        })
        for image in [Self.noise(size.0, size.1, seed: 7), ramp] {
            let reference = Self.referenceBinarized(image)
            #expect(image.locallyBinarized().pixels == reference, "\(size)")
            // The 64-bit path, taken for windows too large for 32-bit products (cross-checks on very large photos).
            #expect(image.locallyBinarized(narrowProducts: 0).pixels == reference, "\(size), 64-bit")
        }
    }
}
