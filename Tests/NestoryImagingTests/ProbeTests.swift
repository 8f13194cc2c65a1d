import CVipsShim
import Foundation
import NestoryImaging
@testable import NestoryImagingLive
import Testing

// Probing: format, size and limits from the header alone; bad files give errors, not crashes.
extension ImagingTests {
    @Test func probeReadsFormatAndSizeOfEachAcceptedFormat() async throws {
        let pixels = Fixtures.ppm(width: 300, height: 200, pixel: Fixtures.textured)
        let cases: [(String, ImageFormat)] = [
            ("a.jpg[Q=85]", .jpeg), ("a.png", .png), ("a.webp[Q=80]", .webp), ("a.heic[Q=50]", .heic),
        ]
        for (name, format) in cases {
            let data = try Fixtures.encode(pixels, as: name, in: folder)
            let info = try await imaging.probe(data)
            #expect(info.format == format, "\(name)")
            #expect(info.width == 300 && info.height == 200, "\(name): \(info)")
            #expect(info.orientation == 1)
            #expect(info.byteCount == data.count)
            #expect(ImageFormat.sniff(data) == format)
        }
    }

    @Test func probeReportsExifOrientationAndTheSizeAsSeen() async throws {
        let plain = try Fixtures.jpeg(width: 300, height: 200, in: folder, pixel: Fixtures.textured)
        let portrait = Fixtures.withMetadata(plain, orientation: 6)
        let info = try await imaging.probe(portrait)
        #expect(info.orientation == 6)
        #expect(info.width == 300 && info.height == 200)
        #expect(info.orientedWidth == 200 && info.orientedHeight == 300)
    }

    @Test func probeReportsAlpha() async throws {
        let rgb = try folder.write(Fixtures.ppm(width: 40, height: 30) { _, _ in (10, 200, 10) }, "rgb.ppm")
        let alpha = try folder.write(Fixtures.pgm(width: 40, height: 30) { x, _ in x < 20 ? 0 : 255 }, "alpha.pgm")
        try Fixtures.vips("bandjoin", "\(rgb) \(alpha)", folder.path("alpha.png"))
        let info = try await imaging.probe(try folder.read("alpha.png"))
        #expect(info.format == .png && info.hasAlpha)
    }

    // MARK: Limits

    @Test func aPNGBombIsRefusedFromItsHeaderQuickly() async throws {
        let bomb = Fixtures.pngBomb(width: 30_000, height: 30_000)
        #expect(bomb.count < 8_000)  // a few KB claiming 900 megapixels (2.7 GB decoded)
        let objectsBefore = nv_live_objects()
        let clock = ContinuousClock()
        let elapsed = await clock.measure {
            await expectError("image_too_many_pixels") { () throws(ImagingError) in _ = try await imaging.probe(bomb) }
            await expectError("image_too_many_pixels") { () throws(ImagingError) in _ = try await imaging.derive(from: bomb) }
        }
        // Decoding 900 megapixels would take far longer (and gigabytes); 3 s leaves room for a loaded CI machine.
        #expect(elapsed < .seconds(3), "refusing a bomb took \(elapsed)")
        #expect(nv_live_objects() == objectsBefore)
        do {
            _ = try await imaging.probe(bomb)
        } catch {
            #expect(error == .tooManyPixels(format: .png, width: 30_000, height: 30_000, limit: 60_000_000))
        }
    }

    @Test func aJPEGWhoseHeaderClaimsHugeDimensionsIsRefused() async throws {
        let small = try Fixtures.jpeg(width: 64, height: 48, in: folder, pixel: Fixtures.textured)
        let bomb = try Fixtures.jpegClaiming(width: 20_000, height: 20_000, from: small)
        await expectError("image_too_many_pixels") { () throws(ImagingError) in _ = try await imaging.derive(from: bomb) }
    }

    @Test func limitsAreConfigurable() async throws {
        let photo = try Fixtures.jpeg(width: 600, height: 400, in: folder, pixel: Fixtures.textured)  // 240,000 px
        let strict = try LibvipsImageProcessor(limits: ImagingLimits(maxPixels: 200_000, maxFileBytes: 10_000_000))
        await expectError("image_too_many_pixels") { () throws(ImagingError) in _ = try await strict.derive(from: photo) }

        let atTheLimit = try LibvipsImageProcessor(limits: ImagingLimits(maxPixels: 240_000, maxFileBytes: photo.count))
        #expect(try await atTheLimit.probe(photo).pixelCount == 240_000)

        let small = try LibvipsImageProcessor(limits: ImagingLimits(maxFileBytes: photo.count - 1))
        do {
            _ = try await small.probe(photo)
            Issue.record("a file over the byte limit was accepted")
        } catch {
            #expect(error == .fileTooLarge(byteCount: photo.count, limit: photo.count - 1))
        }
    }

    @Test func defaultLimitsAreSixtyMegapixelsAndFortyMegabytes() {
        #expect(ImagingLimits().maxPixels == 60_000_000)
        #expect(ImagingLimits().maxFileBytes == 40 * 1024 * 1024)
        let info = ImageInfo(format: .jpeg, width: 8_000, height: 7_500, byteCount: 1)  // exactly 60 MP
        #expect(ImagingLimits().violation(for: info) == nil)
        let over = ImageInfo(format: .jpeg, width: 8_000, height: 7_501, byteCount: 1)
        #expect(ImagingLimits().violation(for: over)?.code == "image_too_many_pixels")
        let overflowing = ImageInfo(format: .png, width: Int.max / 2, height: Int.max / 2, byteCount: 1)
        #expect(ImagingLimits().violation(for: overflowing)?.code == "image_too_many_pixels")
    }

    // MARK: Files that are not acceptable images

    @Test func anEmptyFileIsRefused() async {
        await expectError("image_empty") { () throws(ImagingError) in _ = try await imaging.probe(Data()) }
        await expectError("image_empty") { () throws(ImagingError) in _ = try await imaging.derive(from: Data()) }
    }

    @Test func randomBytesAndTextAreNotImages() async {
        var generator = SystemRandomNumberGenerator()
        var random = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
        random[0] = 0x00  // no accepted signature starts with 0x00
        let text = Data("Receipt: 1 sofa, 499.00 EUR\nThis is a text file renamed photo.jpg\n".utf8)
        let svg = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>"#.utf8)
        let pdf = Data("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n".utf8)
        for (name, data) in [("random", random), ("text", text), ("svg", svg), ("pdf", pdf)] {
            #expect(ImageFormat.sniff(data) == nil, "\(name)")
            await expectError("image_unsupported_format") { () throws(ImagingError) in _ = try await imaging.derive(from: data) }
        }
    }

    @Test func otherImageFormatsAreRefused() async throws {
        let pixels = Fixtures.ppm(width: 32, height: 32, pixel: Fixtures.textured)
        for name in ["a.tif", "a.avif", "a.v"] {
            let data = try Fixtures.encode(pixels, as: name, in: folder)
            if name == "a.avif" {
                #expect(data[8..<12] == Data("avif".utf8), "the fixture must really be AVIF")
            }
            await expectError("image_unsupported_format") { () throws(ImagingError) in _ = try await imaging.derive(from: data) }
        }
    }

    @Test func libvipsRefusesLoadersOtherThanTheFourFormats() throws {
        // Below our own signature check: libvips itself must not open TIFF, SVG or PPM.
        let pixels = Fixtures.ppm(width: 16, height: 16, pixel: Fixtures.textured)
        let tiff = try Fixtures.encode(pixels, as: "b.tif", in: folder)
        let svg = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>"#.utf8)
        for data in [tiff, svg, pixels] {
            #expect(throws: ImagingError.self) { try LibvipsImageProcessor.readHeader(data) }
        }
        let jpeg = try Fixtures.encode(pixels, as: "b.jpg", in: folder)
        #expect(try LibvipsImageProcessor.readHeader(jpeg).width == 16)
    }

    @Test func aFileWithAJPEGSignatureButGarbageAfterIsUnreadable() async {
        let fake = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 0x41, count: 500)
        await expectError("image_unreadable") { () throws(ImagingError) in _ = try await imaging.probe(fake) }
    }

    @Test func truncatedImagesAreUnreadableNotCrashes() async throws {
        let pixels = Fixtures.ppm(width: 400, height: 300, pixel: Fixtures.textured)
        for name in ["t.jpg[Q=90]", "t.png", "t.webp", "t.heic"] {
            let whole = try Fixtures.encode(pixels, as: name, in: folder)
            for fraction in [0.5, 0.9] {
                let cut = whole.prefix(Int(Double(whole.count) * fraction))
                await expectError("image_unreadable") { () throws(ImagingError) in
                    _ = try await imaging.derive(from: Data(cut))
                }
                // The single-output path decodes while encoding: still the upload's fault.
                await expectError("image_unreadable") { () throws(ImagingError) in
                    _ = try imaging.renderBlocking(Data(cut), outputs: [.init(maxSize: 320, quality: 80)])
                }
            }
            // The whole file works, so the errors above come from the truncation.
            #expect(try await imaging.derive(from: whole).display.width == 400, "\(name)")
        }
    }

    @Test func damagedFilesGiveErrorsOrImagesNeverCrashes() async throws {
        // Bytes overwritten at random past the signature, in each accepted format: libvips must
        // either decode something or report an error. A crash would end the test process.
        let pixels = Fixtures.ppm(width: 200, height: 150, pixel: Fixtures.textured)
        var generator = SeededGenerator(seed: 20_261_122)
        var outcomes: [String: Int] = [:]
        for name in ["d.jpg[Q=85]", "d.png", "d.webp", "d.heic"] {
            let whole = try Fixtures.encode(pixels, as: name, in: folder)
            for _ in 0..<15 {
                var damaged = whole
                for _ in 0..<8 {
                    let index = Int.random(in: 16..<damaged.count, using: &generator)
                    damaged[index] = UInt8.random(in: 0...255, using: &generator)
                }
                do {
                    let derived = try await imaging.derive(from: damaged)
                    #expect(derived.thumbnail.data.starts(with: [0xFF, 0xD8, 0xFF]))
                    outcomes["decoded", default: 0] += 1
                } catch {
                    outcomes[error.code, default: 0] += 1
                }
            }
        }
        #expect(outcomes.values.reduce(0, +) == 60)
        #expect(outcomes["image_unreadable", default: 0] > 0, "the damage must reach libvips' error paths: \(outcomes)")
        #expect(outcomes["image_processing_failed"] == nil, "damage is the upload's fault, not ours: \(outcomes)")
    }

    @Test func aJPEGWhoseDataIsDamagedIsRefusedNotStoredAsGrey() async throws {
        // libjpeg reports damaged entropy data (bad Huffman codes, data ending inside a segment) only as a
        // warning and decodes the rest as grey or noise: JPEGs stop at warnings, so such a photo is
        // refused rather than kept as an item's proof. (A single flipped bit often decodes to a valid code
        // and cannot be told apart: JPEG carries no checksum.)
        let whole = try Fixtures.encode(Fixtures.ppm(width: 1200, height: 900, pixel: Fixtures.textured), as: "d.jpg[Q=85]", in: folder)
        var generator = SeededGenerator(seed: 7)
        var refused = 0
        for _ in 0..<20 {
            var damaged = whole
            for _ in 0..<64 {
                let index = Int.random(in: (whole.count / 10)..<damaged.count, using: &generator)
                damaged[index] ^= UInt8(1 << Int.random(in: 0..<8, using: &generator))
            }
            do { _ = try imaging.deriveBlocking(from: damaged) } catch {
                #expect(error.code == "image_unreadable")
                refused += 1
            }
        }
        #expect(refused >= 10, "\(refused) of 20 damaged JPEGs refused")
        // A header claiming 3000 x 3000 with almost no data after it.
        let black = try Fixtures.encode(Fixtures.ppm(width: 3000, height: 3000) { _, _ in (0, 0, 0) }, as: "b.jpg", in: folder)
        await expectError("image_unreadable") { () throws(ImagingError) in _ = try await imaging.derive(from: Data(black.prefix(4_600))) }
        #expect(try imaging.deriveBlocking(from: black).display.width > 0)
        #expect(try imaging.deriveBlocking(from: whole).display.width == 1200)
    }

    // MARK: Messages

    @Test func errorsHaveStableCodesAndMessagesWithoutLibraryDetail() {
        let secret = "VipsJpeg: /tmp/secret-path"
        #expect(!ImagingError.unreadable(detail: secret).message.contains("secret"))
        #expect(!ImagingError.processingFailed(detail: secret).message.contains("secret"))
        #expect(ImagingError.tooManyPixels(format: .png, width: 30_000, height: 30_000, limit: 60_000_000).message
            == "The image is 30000 × 30000 pixels (900 megapixels); photos can be at most 60 megapixels.")
        #expect(ImagingError.fileTooLarge(byteCount: 50 * 1_048_576, limit: 40 * 1_048_576).message
            == "The file is 50 MB; photos can be at most 40 MB.")
        let codes = Set([
            ImagingError.empty, .fileTooLarge(byteCount: 1, limit: 0), .unsupportedFormat,
            .tooManyPixels(format: .png, width: 1, height: 1, limit: 0), .unreadable(detail: ""), .processingFailed(detail: ""),
        ].map(\.code))
        #expect(codes.count == 6)
    }
}

/// A small deterministic generator (SplitMix64), so a failing damaged file can be made again.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
