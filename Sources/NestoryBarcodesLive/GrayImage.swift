import CBarcodeImageLoader
import Foundation
import NestoryBarcodes

/// An 8-bit grayscale picture, row-major, `width` bytes per row: what the decoder scans.
public struct GrayImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height, "pixel count must be width × height")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    @inline(__always) subscript(x: Int, y: Int) -> UInt8 { pixels[y * width + x] }
}

/// Turns encoded image bytes into a ``GrayImage``. Internal so the decoder can later take its pixels from
/// the shared imaging module instead of this private libvips loader.
enum ImageLoader {
    /// Pictures above this many pixels are refused (a decompression bomb guard): 100 megapixels.
    static let maxPixels: UInt64 = 100_000_000

    static func loadGray(_ data: Data) throws(BarcodeReaderError) -> GrayImage {
        if data.isEmpty { throw .emptyFile }
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0
        var message = [CChar](repeating: 0, count: 512)
        let status = data.withUnsafeBytes { buffer in
            nb_load_gray(buffer.baseAddress, buffer.count, maxPixels, &pixels, &width, &height, &message, message.count)
        }
        let detail = String(decoding: message.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch status {
        case 0:
            guard let pixels else { throw .unreadableImage(detail) }
            defer { nb_free_pixels(pixels) }
            let count = Int(width) * Int(height)
            return GrayImage(width: Int(width), height: Int(height), pixels: Array(UnsafeBufferPointer(start: pixels, count: count)))
        case 1: throw .notAnImage
        case 3: throw .imageTooLarge(detail)
        default: throw .unreadableImage(detail)
        }
    }
}

// MARK: Transforms used by the decoding passes.

extension GrayImage {
    /// The part of the picture inside `region` (fractions of the width and height), clamped to the picture.
    func cropped(to region: BarcodeRegion) -> GrayImage {
        let x0 = max(0, min(width, Int((region.x * Double(width)).rounded(.down))))
        let y0 = max(0, min(height, Int((region.y * Double(height)).rounded(.down))))
        let x1 = max(x0, min(width, Int(((region.x + region.width) * Double(width)).rounded(.up))))
        let y1 = max(y0, min(height, Int(((region.y + region.height) * Double(height)).rounded(.up))))
        let w = x1 - x0, h = y1 - y0
        var out = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            let source = (y0 + y) * width + x0
            out.replaceSubrange(y * w..<(y + 1) * w, with: pixels[source..<source + w])
        }
        return GrayImage(width: w, height: h, pixels: out)
    }

    /// Rotated a quarter turn clockwise.
    func rotatedClockwise() -> GrayImage {
        var out = [UInt8](repeating: 0, count: pixels.count)
        let h = height, w = width
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    for x in 0..<w { dst[x * h + (h - 1 - y)] = src[y * w + x] }
                }
            }
        }
        return GrayImage(width: h, height: w, pixels: out)
    }

    /// Shrunk by an integer `factor`, averaging each factor × factor block (which also smooths noise).
    func downscaled(by factor: Int) -> GrayImage {
        guard factor > 1 else { return self }
        let w = width / factor, h = height / factor
        guard w > 0, h > 0 else { return self }
        var out = [UInt8](repeating: 0, count: w * h)
        let area = factor * factor
        let sw = width
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    for x in 0..<w {
                        var sum = 0
                        for dy in 0..<factor {
                            let row = (y * factor + dy) * sw + x * factor
                            for dx in 0..<factor { sum += Int(src[row + dx]) }
                        }
                        dst[y * w + x] = UInt8(sum / area)
                    }
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }

    /// Enlarged by `factor` with bilinear interpolation (thin bars get more than one pixel each).
    func upscaled(by factor: Int) -> GrayImage {
        guard factor > 1, width > 0, height > 0 else { return self }
        let w = width * factor, h = height * factor
        // Fixed-point (8-bit) source positions and weights, one table per axis.
        func axis(_ size: Int, _ count: Int) -> (lo: [Int], hi: [Int], weight: [Int]) {
            var lo = [Int](repeating: 0, count: count), hi = lo, weight = lo
            for i in 0..<count {
                let f = max(0, ((2 * i + 1) * 256 / (2 * factor)) - 128)
                lo[i] = min(size - 1, f >> 8)
                hi[i] = min(size - 1, lo[i] + 1)
                weight[i] = f & 255
            }
            return (lo, hi, weight)
        }
        let xs = axis(width, w), ys = axis(height, h)
        var out = [UInt8](repeating: 0, count: w * h)
        let sw = width
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    let r0 = ys.lo[y] * sw, r1 = ys.hi[y] * sw, wy = ys.weight[y]
                    for x in 0..<w {
                        let x0 = xs.lo[x], x1 = xs.hi[x], wx = xs.weight[x]
                        let top = Int(src[r0 + x0]) * (256 - wx) + Int(src[r0 + x1]) * wx
                        let bottom = Int(src[r1 + x0]) * (256 - wx) + Int(src[r1 + x1]) * wx
                        dst[y * w + x] = UInt8((top * (256 - wy) + bottom * wy + 32768) >> 16)
                    }
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }

    /// Levels stretched so the darkest 1% maps to black and the brightest 1% to white (washed-out photos).
    func contrastStretched() -> GrayImage {
        guard !pixels.isEmpty else { return self }
        var histogram = [Int](repeating: 0, count: 256)
        for p in pixels { histogram[Int(p)] += 1 }
        let cut = pixels.count / 100
        var low = 0, seen = 0
        while low < 255, seen + histogram[low] <= cut { seen += histogram[low]; low += 1 }
        var high = 255
        seen = 0
        while high > 0, seen + histogram[high] <= cut { seen += histogram[high]; high -= 1 }
        guard high - low >= 8 else { return self }
        let table = (0..<256).map { v -> UInt8 in UInt8(max(0, min(255, (v - low) * 255 / (high - low)))) }
        return GrayImage(width: width, height: height, pixels: pixels.map { table[Int($0)] })
    }

    /// Each pixel replaced by the mean of its 3 × 3 neighbourhood (edges clamped).
    func boxBlurred3x3() -> GrayImage {
        guard width > 2, height > 2 else { return self }
        let w = width, h = height
        var rows = [UInt16](repeating: 0, count: w * h)
        var out = [UInt8](repeating: 0, count: w * h)
        pixels.withUnsafeBufferPointer { src in
            rows.withUnsafeMutableBufferPointer { mid in
                for y in 0..<h {
                    let r = y * w
                    for x in 0..<w {
                        mid[r + x] = UInt16(src[r + max(0, x - 1)]) + UInt16(src[r + x]) + UInt16(src[r + min(w - 1, x + 1)])
                    }
                }
            }
            rows.withUnsafeBufferPointer { mid in
                out.withUnsafeMutableBufferPointer { dst in
                    for y in 0..<h {
                        let up = max(0, y - 1) * w, here = y * w, down = min(h - 1, y + 1) * w
                        for x in 0..<w { dst[here + x] = UInt8((Int(mid[up + x]) + Int(mid[here + x]) + Int(mid[down + x]) + 4) / 9) }
                    }
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }

    /// Thresholded against the mean of a window about 1/8 of the short side (an integral image), so a
    /// bright streak of glare or a shadow does not swallow the bars under it.
    func locallyBinarized() -> GrayImage {
        guard width > 8, height > 8 else { return self }
        let w = width, h = height, stride = w + 1
        let r = max(4, min(w, h) / 16)
        var integral = [Int32](repeating: 0, count: (w + 1) * (h + 1))
        var out = [UInt8](repeating: 0, count: w * h)
        pixels.withUnsafeBufferPointer { src in
            integral.withUnsafeMutableBufferPointer { sums in
                for y in 0..<h {
                    var rowSum: Int32 = 0
                    for x in 0..<w {
                        rowSum += Int32(src[y * w + x])
                        sums[(y + 1) * stride + x + 1] = sums[y * stride + x + 1] + rowSum
                    }
                }
                out.withUnsafeMutableBufferPointer { dst in
                    for y in 0..<h {
                        let y0 = max(0, y - r), y1 = min(h, y + r + 1)
                        let top = y0 * stride, bottom = y1 * stride
                        for x in 0..<w {
                            let x0 = max(0, x - r), x1 = min(w, x + r + 1)
                            let sum = Int(sums[bottom + x1] - sums[top + x1] - sums[bottom + x0] + sums[top + x0])
                            let area = (x1 - x0) * (y1 - y0)
                            // Darker than 95% of the local mean is a bar.
                            dst[y * w + x] = Int(src[y * w + x]) * 100 * area < sum * 95 ? 0 : 255
                        }
                    }
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }

    /// Light and dark swapped.
    func inverted() -> GrayImage {
        GrayImage(width: width, height: height, pixels: pixels.map { 255 - $0 })
    }

    /// Histogram-equalised: every grey level gets an equal share of the picture.
    func equalized() -> GrayImage {
        guard !pixels.isEmpty else { return self }
        var histogram = [Int](repeating: 0, count: 256)
        for p in pixels { histogram[Int(p)] += 1 }
        var table = [UInt8](repeating: 0, count: 256)
        var cumulative = 0
        for v in 0..<256 {
            cumulative += histogram[v]
            table[v] = UInt8(min(255, cumulative * 255 / pixels.count))
        }
        return GrayImage(width: width, height: height, pixels: table.withUnsafeBufferPointer { t in pixels.map { t[Int($0)] } })
    }

    /// Sharpened with a 3 × 3 unsharp mask (edges of slightly blurred bars stand out again).
    func sharpened(amount: Int = 1) -> GrayImage {
        guard width > 2, height > 2 else { return self }
        var out = pixels
        let w = width
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 1..<(height - 1) {
                    for x in 1..<(w - 1) {
                        let i = y * w + x
                        let neighbours = Int(src[i - 1]) + Int(src[i + 1]) + Int(src[i - w]) + Int(src[i + w])
                        let value = Int(src[i]) * (1 + 4 * amount) - neighbours * amount
                        dst[i] = UInt8(max(0, min(255, value)))
                    }
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: out)
    }
}
