import Foundation
import NestoryChildProcess
import Testing

/// Test images made at test time: pixels written by hand as PPM/PGM, encoded by the `vips` command
/// (Debian's libvips-tools), metadata segments written byte by byte.
enum Fixtures {
    struct ToolFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// A folder removed when the value goes away.
    final class Folder {
        let url: URL

        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-imaging-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(at: url) }

        func path(_ name: String) -> String { url.appendingPathComponent(name).path }

        func write(_ data: Data, _ name: String) throws -> String {
            let path = path(name)
            try data.write(to: URL(fileURLWithPath: path))
            return path
        }

        func read(_ name: String) throws -> Data {
            try Data(contentsOf: URL(fileURLWithPath: path(name)))
        }
    }

    // MARK: Command-line tools

    static func executable(_ name: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in (path + ":/usr/bin:/usr/local/bin").split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw ToolFailure(description: "`\(name)` is not installed: install libvips-tools (make test-deps)")
    }

    /// Runs a tool and returns its standard output; throws with its standard error if it fails.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let finished = try ChildProcess.run(try executable(tool), arguments)
        guard finished.exitCode == 0 else {
            throw ToolFailure(description: "\(tool) \(arguments.joined(separator: " ")) failed: \(finished.errorText)")
        }
        return finished.outputText
    }

    static func vips(_ arguments: String...) throws { try run("vips", arguments) }

    // MARK: Pixels

    typealias RGB = (r: UInt8, g: UInt8, b: UInt8)

    /// A binary PPM (P6) whose pixels come from `pixel(x, y)`.
    static func ppm(width: Int, height: Int, pixel: (Int, Int) -> RGB) -> Data {
        var data = Data("P6\n\(width) \(height)\n255\n".utf8)
        data.reserveCapacity(data.count + width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let p = pixel(x, y)
                data.append(contentsOf: [p.r, p.g, p.b])
            }
        }
        return data
    }

    /// A binary PGM (P5), for alpha channels.
    static func pgm(width: Int, height: Int, value: (Int, Int) -> UInt8) -> Data {
        var data = Data("P5\n\(width) \(height)\n255\n".utf8)
        for y in 0..<height {
            for x in 0..<width { data.append(value(x, y)) }
        }
        return data
    }

    /// Grey with a red block in the stored top-left corner (a quarter of each side), so a test can
    /// see where that corner ends up after rotation.
    static func cornerMarked(x: Int, y: Int, width: Int, height: Int) -> RGB {
        x < width / 4 && y < height / 4 ? (230, 20, 20) : (128, 128, 128)
    }

    /// Detailed pixels (gradients and a deterministic texture), so encoders do real work.
    static func textured(x: Int, y: Int) -> RGB {
        var h = UInt32(truncatingIfNeeded: x &* 73_856_093 ^ y &* 19_349_663)
        h = (h ^ (h >> 13)) &* 1_274_126_177
        let noise = Int(h >> 24) / 8
        return (UInt8(clamping: (x / 3) % 200 + noise), UInt8(clamping: (y / 2) % 200 + noise), UInt8(clamping: 90 + noise))
    }

    /// Encodes pixels with `vips copy` to `name` (e.g. "photo.jpg[Q=90]") and returns the bytes.
    static func encode(_ source: Data, as name: String, in folder: Folder) throws -> Data {
        let input = try folder.write(source, "source-\(UUID().uuidString).ppm")
        try run("vips", ["copy", input, folder.path(name)])
        return try folder.read(String(name.prefix { $0 != "[" }))
    }

    static func jpeg(width: Int, height: Int, in folder: Folder, pixel: (Int, Int) -> RGB) throws -> Data {
        try encode(ppm(width: width, height: height, pixel: pixel), as: "image-\(UUID().uuidString).jpg[Q=90]", in: folder)
    }

    /// Decodes an image with the `vips` command to 8-bit pixels (independent of the code under test's
    /// process). Returns width, height, bands and the samples.
    static func decode(_ image: Data, in folder: Folder) throws -> Raster {
        let name = "decode-\(UUID().uuidString)"
        let input = try folder.write(image, name + ".img")
        let output = folder.path(name + ".pnm")
        try run("vips", ["copy", input, output])
        return try Raster(pnm: try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    struct Raster {
        var width: Int
        var height: Int
        var bands: Int
        var samples: [UInt8]

        init(pnm: Data) throws {
            let bytes = [UInt8](pnm)
            var fields: [String] = []
            var index = 0
            while fields.count < 4 {
                while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A { index += 1 }
                if index < bytes.count, bytes[index] == 0x23 {  // "#": a comment line (vips writes one)
                    while index < bytes.count, bytes[index] != 0x0A { index += 1 }
                    continue
                }
                var field = ""
                while index < bytes.count, bytes[index] != 0x20, bytes[index] != 0x0A {
                    field.append(Character(UnicodeScalar(bytes[index])))
                    index += 1
                }
                fields.append(field)
            }
            index += 1
            guard fields[0] == "P6" || fields[0] == "P5", let width = Int(fields[1]), let height = Int(fields[2]), fields[3] == "255" else {
                throw ToolFailure(description: "unexpected PNM header \(fields)")
            }
            self.width = width
            self.height = height
            self.bands = fields[0] == "P6" ? 3 : 1
            self.samples = Array(bytes[index...])
        }

        /// The average colour of a box of pixels around a point given as fractions of the size.
        func average(atX fx: Double, y fy: Double, radius: Int = 3) -> (Double, Double, Double) {
            let cx = Int(fx * Double(width))
            let cy = Int(fy * Double(height))
            var sum = [0.0, 0.0, 0.0]
            var count = 0.0
            for y in max(0, cy - radius)...min(height - 1, cy + radius) {
                for x in max(0, cx - radius)...min(width - 1, cx + radius) {
                    for band in 0..<3 {
                        sum[band] += Double(samples[(y * width + x) * bands + min(band, bands - 1)])
                    }
                    count += 1
                }
            }
            return (sum[0] / count, sum[1] / count, sum[2] / count)
        }

        func isRed(atX fx: Double, y fy: Double) -> Bool {
            let (r, g, b) = average(atX: fx, y: fy)
            return r > 180 && g < 80 && b < 80
        }
    }

    // MARK: Hand-made bytes

    /// A PNG whose header claims `width` × `height` RGB pixels, followed by a few KB of compressed
    /// zeros: decoding it would need width × height × 3 bytes.
    static func pngBomb(width: UInt32, height: UInt32) -> Data {
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var ihdr = Data()
        ihdr.appendBigEndian(width)
        ihdr.appendBigEndian(height)
        ihdr.append(contentsOf: [8, 2, 0, 0, 0])  // 8-bit RGB, deflate, no filter, not interlaced
        data.appendPNGChunk("IHDR", ihdr)
        // A zlib stream of stored blocks of zeros (valid as far as it goes).
        var idat = Data([0x78, 0x01])
        for _ in 0..<4 {
            idat.append(contentsOf: [0x00, 0x00, 0x04, 0xFF, 0xFB])  // not final, 1024 bytes
            idat.append(Data(count: 1024))
        }
        data.appendPNGChunk("IDAT", idat)
        data.appendPNGChunk("IEND", Data())
        return data
    }

    /// `jpeg` with its frame header (SOFn) rewritten to claim `width` × `height`.
    static func jpegClaiming(width: UInt16, height: UInt16, from jpeg: Data) throws -> Data {
        var bytes = [UInt8](jpeg)
        var index = 2
        while index + 9 < bytes.count {
            guard bytes[index] == 0xFF else { throw ToolFailure(description: "no marker at \(index)") }
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if (0xC0...0xC3).contains(marker) {
                bytes[index + 5] = UInt8(height >> 8)
                bytes[index + 6] = UInt8(height & 0xFF)
                bytes[index + 7] = UInt8(width >> 8)
                bytes[index + 8] = UInt8(width & 0xFF)
                return Data(bytes)
            }
            index += 2 + length
        }
        throw ToolFailure(description: "no SOF marker")
    }

    static let gpsMarker = "NESTORY-GPS-SECRET"
    static let xmpMarker = "NESTORY-XMP-SECRET"
    static let iptcMarker = "NESTORY-IPTC-SECRET"
    static let commentMarker = "NESTORY-COMMENT-SECRET"

    /// `jpeg` with, right after its SOI marker: an EXIF segment (Orientation, Make, and GPS latitude
    /// and longitude, plus a GPS processing note holding ``gpsMarker``), an XMP packet with a location,
    /// a Photoshop IPTC block with a city, and a comment: what a phone's photo can carry.
    static func withMetadata(_ jpeg: Data, orientation: UInt16) -> Data {
        var segments = Data()
        segments.appendJPEGSegment(0xE1, Data("Exif\0\0".utf8) + exifTIFF(orientation: orientation))
        let xmp = """
            <?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">\
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description \
            xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="37,46.494N" \
            exif:GPSLongitude="122,25.164W" exif:UserComment="\(xmpMarker)"/></rdf:RDF></x:xmpmeta><?xpacket end="w"?>
            """
        segments.appendJPEGSegment(0xE1, Data("http://ns.adobe.com/xap/1.0/\0".utf8) + Data(xmp.utf8))
        var iptc = Data([0x1C, 0x02, 0x5A])  // IPTC 2:90 City
        iptc.appendBigEndian(UInt16(iptcMarker.utf8.count))
        iptc.append(Data(iptcMarker.utf8))
        var photoshop = Data("Photoshop 3.0\0".utf8) + Data("8BIM".utf8) + Data([0x04, 0x04, 0x00, 0x00])
        photoshop.appendBigEndian(UInt32(iptc.count))
        photoshop.append(iptc)
        if iptc.count % 2 == 1 { photoshop.append(0) }
        segments.appendJPEGSegment(0xED, photoshop)
        segments.appendJPEGSegment(0xFE, Data(commentMarker.utf8))
        return jpeg.prefix(2) + segments + jpeg.dropFirst(2)
    }

    /// A big-endian TIFF structure: IFD0 (Make, Orientation, GPS pointer) and a GPS IFD.
    private static func exifTIFF(orientation: UInt16) -> Data {
        // Offsets from the TIFF header: IFD0 at 8 (3 entries: 42 bytes), "Apple\0" at 50,
        // GPS IFD at 56 (5 entries: 66 bytes), latitude at 122, longitude at 146, note at 170.
        var tiff = Data("MM".utf8)
        tiff.appendBigEndian(UInt16(42))
        tiff.appendBigEndian(UInt32(8))
        tiff.appendBigEndian(UInt16(3))
        tiff.appendIFDEntry(tag: 0x010F, type: 2, count: 6, value: 50)  // Make, ASCII
        tiff.appendIFDEntry(tag: 0x0112, type: 3, count: 1, value: UInt32(orientation) << 16)  // SHORT, left-justified
        tiff.appendIFDEntry(tag: 0x8825, type: 4, count: 1, value: 56)  // GPS IFD pointer
        tiff.appendBigEndian(UInt32(0))
        tiff.append(Data("Apple\0".utf8))
        let note = Data("ASCII\0\0\0".utf8) + Data(gpsMarker.utf8)
        tiff.appendBigEndian(UInt16(5))
        tiff.appendIFDEntry(tag: 0x0001, type: 2, count: 2, value: UInt32(0x4E00_0000))  // GPSLatitudeRef "N"
        tiff.appendIFDEntry(tag: 0x0002, type: 5, count: 3, value: 122)  // GPSLatitude
        tiff.appendIFDEntry(tag: 0x0003, type: 2, count: 2, value: UInt32(0x5700_0000))  // GPSLongitudeRef "W"
        tiff.appendIFDEntry(tag: 0x0004, type: 5, count: 3, value: 146)  // GPSLongitude
        tiff.appendIFDEntry(tag: 0x001B, type: 7, count: UInt32(note.count), value: 170)  // GPSProcessingMethod
        tiff.appendBigEndian(UInt32(0))
        for (numerator, denominator) in [(37, 1), (46, 1), (2964, 100), (122, 1), (25, 1), (984, 100)] as [(UInt32, UInt32)] {
            tiff.appendBigEndian(numerator)
            tiff.appendBigEndian(denominator)
        }
        tiff.append(note)
        return tiff
    }

    // MARK: Inspecting derived files

    /// Every marker before the image data of a JPEG (SOI excluded), e.g. 0xE0 for APP0.
    static func jpegMarkers(_ jpeg: Data) -> [UInt8] {
        let bytes = [UInt8](jpeg)
        var markers: [UInt8] = []
        var index = 2
        while index + 3 < bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            markers.append(marker)
            if marker == 0xDA { break }  // start of scan: the image data follows
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            index += 2 + length
        }
        return markers
    }

    /// The chunk names of a RIFF WebP file.
    static func webpChunks(_ webp: Data) -> [String] {
        let bytes = [UInt8](webp)
        var chunks: [String] = []
        var index = 12
        while index + 8 <= bytes.count {
            chunks.append(String(decoding: bytes[index..<index + 4], as: UTF8.self))
            let size = Int(bytes[index + 4]) | Int(bytes[index + 5]) << 8 | Int(bytes[index + 6]) << 16 | Int(bytes[index + 7]) << 24
            index += 8 + size + (size & 1)
        }
        return chunks
    }

    /// Strings that must never appear in a derived image.
    static let forbiddenStrings = ["Exif", "GPS", "http://ns.adobe.com", "Photoshop", "8BIM", "ICC_PROFILE", "NESTORY-", "Apple"]

    /// The forbidden strings found in a JPEG's headers (everything before its image data; compressed
    /// image data is not searched, where three random bytes could spell "GPS").
    static func leakedStrings(inJPEG jpeg: Data) -> [String] {
        let bytes = [UInt8](jpeg)
        var end = bytes.count
        for index in 0..<(bytes.count - 1) where bytes[index] == 0xFF && bytes[index + 1] == 0xDA {
            end = index
            break
        }
        let header = Data(bytes[..<end])
        return forbiddenStrings.filter { header.range(of: Data($0.utf8)) != nil }
    }

    /// Current resident memory of this process, in bytes (Linux).
    static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return 0 }
        return pages * 4096
    }
}

extension Data {
    mutating func appendBigEndian(_ value: UInt16) {
        append(contentsOf: [UInt8(value >> 8), UInt8(value & 0xFF)])
    }

    mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
    }

    mutating func appendIFDEntry(tag: UInt16, type: UInt16, count: UInt32, value: UInt32) {
        appendBigEndian(tag)
        appendBigEndian(type)
        appendBigEndian(count)
        appendBigEndian(value)
    }

    mutating func appendJPEGSegment(_ marker: UInt8, _ payload: Data) {
        append(contentsOf: [0xFF, marker])
        appendBigEndian(UInt16(payload.count + 2))
        append(payload)
    }

    mutating func appendPNGChunk(_ type: String, _ payload: Data) {
        appendBigEndian(UInt32(payload.count))
        let typed = Data(type.utf8) + payload
        append(typed)
        appendBigEndian(crc32(typed))
    }
}

func crc32(_ data: Data) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in data {
        crc ^= UInt32(byte)
        for _ in 0..<8 {
            crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
        }
    }
    return ~crc
}
