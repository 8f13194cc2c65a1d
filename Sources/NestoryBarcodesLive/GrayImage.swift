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
        return cropped(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The `width` × `height` pixels from (`x`, `y`); the rectangle must lie inside the picture.
    func cropped(x: Int, y: Int, width w: Int, height h: Int) -> GrayImage {
        precondition(x >= 0 && y >= 0 && w >= 0 && h >= 0 && x + w <= width && y + h <= height, "crop outside the picture")
        var out = [UInt8](repeating: 0, count: w * h)
        for row in 0..<h {
            let source = (y + row) * width + x
            out.replaceSubrange(row * w..<(row + 1) * w, with: pixels[source..<source + w])
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
        let w = width * factor, h = height * factor, sw = width
        /// Per output column or row: its two source positions and the second one's weight (8-bit fixed point).
        func axis(_ size: Int, _ count: Int) -> [(lo: Int, hi: Int, weight: Int32)] {
            (0..<count).map { i in
                let f = max(0, ((2 * i + 1) * 256 / (2 * factor)) - 128)
                let lo = min(size - 1, f >> 8)
                return (lo, min(size - 1, lo + 1), Int32(f & 255))
            }
        }
        let rows = axis(height, h)
        var out = [UInt8](repeating: 0, count: w * h)
        // Separable: each source row is interpolated across once into a row buffer (an output row blends the
        // buffers of its two source rows), which gives exactly the four-neighbour formula's values.
        var upper = [Int32](repeating: 0, count: w), lower = upper
        var upperRow = -1, lowerRow = -1
        // Doubling has its own loop below, without the columns' table.
        (factor == 2 ? [] : axis(width, w)).withUnsafeBufferPointer { columns in
            pixels.withUnsafeBufferPointer { src in
                func across(_ row: Int, into buffer: inout [Int32]) {
                    let r = row * sw
                    buffer.withUnsafeMutableBufferPointer { line in
                        if factor == 2 {
                            // The same weights without the table: column 0 is source 0; 2k + 1 and 2k + 2 lie a quarter
                            // and three quarters of the way from source k to k + 1; the last column is the last source.
                            let source = src.baseAddress! + r, into = line.baseAddress!
                            into[0] = Int32(source[0]) &* 256
                            for k in 0..<(sw - 1) {
                                let a = Int32(source[k]), b = Int32(source[k + 1])
                                into[2 &* k &+ 1] = a &* 192 &+ b &* 64
                                into[2 &* k &+ 2] = a &* 64 &+ b &* 192
                            }
                            into[w - 1] = Int32(source[sw - 1]) &* 256
                            return
                        }
                        for x in 0..<w {
                            let c = columns[x]
                            line[x] = Int32(src[r + c.lo]) * (256 - c.weight) + Int32(src[r + c.hi]) * c.weight
                        }
                    }
                }
                for y in 0..<h {
                    let (top, bottom, wy) = rows[y]
                    if upperRow != top {
                        if lowerRow == top {
                            swap(&upper, &lower)
                            swap(&upperRow, &lowerRow)
                        } else {
                            across(top, into: &upper)
                            upperRow = top
                        }
                    }
                    if lowerRow != bottom {
                        across(bottom, into: &lower)
                        lowerRow = bottom
                    }
                    out.withUnsafeMutableBufferPointer { dst in
                        upper.withUnsafeBufferPointer { a in
                            lower.withUnsafeBufferPointer { b in
                                let into = dst.baseAddress! + y * w, above = a.baseAddress!, below = b.baseAddress!, wa = 256 - wy
                                for x in 0..<w { into[x] = UInt8(truncatingIfNeeded: (above[x] &* wa &+ below[x] &* wy &+ 32768) >> 16) }
                            }
                        }
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

    /// Thresholded against the mean of a window about 1/8 of the short side, so a bright streak of glare or a
    /// shadow does not swallow the bars under it. The window sums come from running column sums (a row enters
    /// and a row leaves as the window moves down) and a prefix sum along each row: the same sums as an integral
    /// image, with buffers of one row instead of a second copy of the picture.
    /// `narrowProducts` is the largest product worked in 32-bit lanes (lowered by the tests, to check the 64-bit path).
    func locallyBinarized(narrowProducts: Int = Int(Int32.max)) -> GrayImage {
        guard width > 8, height > 8 else { return self }
        let w = width, h = height
        let r = max(4, min(w, h) / 16)
        var columns = [Int32](repeating: 0, count: w)
        var prefix = [Int32](repeating: 0, count: w + 1)
        var out = [UInt8](repeating: 0, count: w * h)
        pixels.withUnsafeBufferPointer { srcBuffer in
            columns.withUnsafeMutableBufferPointer { columnBuffer in
                prefix.withUnsafeMutableBufferPointer { sumsBuffer in
                    out.withUnsafeMutableBufferPointer { dstBuffer in
                        // Base pointers, so the loops over a row are plain (no overflow-checked index arithmetic) and
                        // the compiler vectorises them.
                        let src = srcBuffer.baseAddress!, column = columnBuffer.baseAddress!
                        let sums = sumsBuffer.baseAddress!, dst = dstBuffer.baseAddress!
                        func add(_ y: Int) { let line = src + y * w; for x in 0..<w { column[x] &+= Int32(line[x]) } }
                        func remove(_ y: Int) { let line = src + y * w; for x in 0..<w { column[x] &-= Int32(line[x]) } }
                        // Rows [0, r) are in the window before the first row's turn.
                        for y in 0..<min(r, h) { add(y) }
                        // The window is clamped to the picture near its edges; in between, its width is 2r + 1.
                        let inner = min(r, w)..<max(min(r, w), w - r)
                        for y in 0..<h {
                            if y + r < h { add(y + r) }
                            if y - r - 1 >= 0 { remove(y - r - 1) }
                            for x in 0..<w { sums[x + 1] = sums[x] &+ column[x] }
                            let rows = min(h, y + r + 1) - max(0, y - r), line = src + y * w, result = dst + y * w
                            // Darker than 95% of the local mean is a bar.
                            func pixel(_ x: Int) {
                                let x0 = max(0, x - r), x1 = min(w, x + r + 1)
                                let sum = Int(sums[x1] &- sums[x0])
                                result[x] = Int(line[x]) * 100 * ((x1 - x0) * rows) < sum * 95 ? 0 : 255
                            }
                            for x in 0..<inner.lowerBound { pixel(x) }
                            // "value × 100 × area < sum × 95" divided by 5, in 32-bit lanes when the largest product fits:
                            // windows up to ~650 pixels across, those of every pass's picture (a cross-check's crop of a
                            // very large photo takes the 64-bit path).
                            let area = (2 * r + 1) * rows
                            if 255 * 20 * area <= narrowProducts, !inner.isEmpty {
                                let area20 = Int32(20 * area), first = inner.lowerBound
                                let ahead = sums + first + r + 1, behind = sums + first - r
                                let values = line + first, into = result + first
                                for i in 0..<inner.count {
                                    into[i] = Int32(values[i]) &* area20 < (ahead[i] &- behind[i]) &* 19 ? 0 : 255
                                }
                            } else {
                                for x in inner { pixel(x) }
                            }
                            for x in inner.upperBound..<w { pixel(x) }
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
