import Foundation
import NestoryImaging
@testable import NestoryImagingLive
import Testing

// Derived images: sizes, orientation, colour, alpha, and no metadata.
extension ImagingTests {
    /// Where the stored top-left corner is seen after each EXIF orientation (fractions of the size).
    static let cornerAfterOrientation: [UInt16: (x: Double, y: Double)] = [
        1: (0.1, 0.1),  // as stored
        2: (0.9, 0.1),  // mirrored left-right
        3: (0.9, 0.9),  // turned 180°
        4: (0.1, 0.9),  // mirrored top-bottom
        5: (0.1, 0.1),  // transposed
        6: (0.9, 0.1),  // turned 90° clockwise (an iPhone held upright)
        7: (0.9, 0.9),  // transversed
        8: (0.1, 0.9),  // turned 90° anticlockwise
    ]

    @Test(arguments: 1...8)
    func everyExifOrientationIsApplied(orientation: Int) async throws {
        let stored = try Fixtures.jpeg(width: 640, height: 480, in: folder) { x, y in
            Fixtures.cornerMarked(x: x, y: y, width: 640, height: 480)
        }
        let photo = Fixtures.withMetadata(stored, orientation: UInt16(orientation))
        let derived = try await imaging.derive(from: photo)
        let quarterTurn = orientation >= 5
        #expect(derived.thumbnail.width == (quarterTurn ? 240 : 320))
        #expect(derived.thumbnail.height == (quarterTurn ? 320 : 240))
        #expect(derived.display.width == (quarterTurn ? 480 : 640), "no enlargement beyond the original")

        // The thumbnail is resized from the display image, so checking its pixels checks both.
        let corner = try #require(Self.cornerAfterOrientation[UInt16(orientation)])
        let raster = try Fixtures.decode(derived.thumbnail.data, in: folder)
        #expect(raster.width == derived.thumbnail.width && raster.height == derived.thumbnail.height)
        #expect(raster.isRed(atX: corner.x, y: corner.y), "orientation \(orientation): red corner not at \(corner)")
        #expect(!raster.isRed(atX: 1 - corner.x, y: 1 - corner.y))
    }

    @Test func derivedJPEGsCarryNoMetadataAtAll() async throws {
        let stored = try Fixtures.jpeg(width: 900, height: 600, in: folder, pixel: Fixtures.textured)
        let photo = Fixtures.withMetadata(stored, orientation: 6)
        // The fixture really carries location data, as libvips reads it.
        let header = try Fixtures.run("vipsheader", ["-a", try folder.write(photo, "gps.jpg")])
        #expect(header.contains("GPSLatitude") && header.contains("xmp-data") && header.contains("iptc-data"))
        #expect(Fixtures.leakedStrings(inJPEG: photo).contains("GPS"))

        let derived = try await imaging.derive(from: photo)
        for image in [derived.thumbnail, derived.display] {
            try expectNoMetadata(jpeg: image.data)
        }
        #expect(photo == Fixtures.withMetadata(stored, orientation: 6), "the original bytes are untouched")
    }

    @Test func aHEICWithLocationBecomesCleanUprightJPEGs() async throws {
        let stored = try Fixtures.jpeg(width: 800, height: 600, in: folder, pixel: Fixtures.textured)
        let tagged = try folder.write(Fixtures.withMetadata(stored, orientation: 1), "tagged.jpg")
        try Fixtures.vips("copy", tagged, folder.path("photo.heic[Q=60]"))
        let heic = try folder.read("photo.heic")
        let header = try Fixtures.run("vipsheader", ["-a", folder.path("photo.heic")])
        #expect(header.contains("GPSLatitude"), "the HEIC fixture must carry GPS data")

        #expect(try await imaging.probe(heic).format == .heic)
        let derived = try await imaging.derive(from: heic)
        #expect(derived.original.format == .heic)
        #expect((derived.display.width, derived.display.height) == (800, 600))
        #expect((derived.thumbnail.width, derived.thumbnail.height) == (320, 240))
        try expectNoMetadata(jpeg: derived.display.data)
        try expectNoMetadata(jpeg: derived.thumbnail.data)
    }

    @Test func aWebPIsDerived() async throws {
        let webp = try Fixtures.encode(Fixtures.ppm(width: 500, height: 700, pixel: Fixtures.textured), as: "w.webp[Q=80]", in: folder)
        let derived = try await imaging.derive(from: webp)
        #expect(derived.original.format == .webp)
        #expect((derived.thumbnail.width, derived.thumbnail.height) == (229, 320))
        try expectNoMetadata(jpeg: derived.thumbnail.data)
    }

    @Test func largePhotosAreShrunkToBothSizes() async throws {
        let photo = try Fixtures.jpeg(width: 2000, height: 1500, in: folder, pixel: Fixtures.textured)
        let derived = try await imaging.derive(from: photo)
        #expect((derived.display.width, derived.display.height) == (1600, 1200))
        #expect((derived.thumbnail.width, derived.thumbnail.height) == (320, 240))
        #expect(derived.display.format == .jpeg && derived.display.data.starts(with: [0xFF, 0xD8, 0xFF]))
        #expect(derived.thumbnail.data.count < derived.display.data.count)
    }

    @Test func smallImagesAreNeverEnlarged() async throws {
        let tiny = try Fixtures.jpeg(width: 120, height: 90, in: folder, pixel: Fixtures.textured)
        let derived = try await imaging.derive(from: tiny)
        #expect((derived.thumbnail.width, derived.thumbnail.height) == (120, 90))
        #expect((derived.display.width, derived.display.height) == (120, 90))
    }

    @Test func transparentPNGIsFlattenedOnWhite() async throws {
        let width = 400, height = 300
        let rgb = try folder.write(Fixtures.ppm(width: width, height: height) { _, _ in (20, 40, 200) }, "blue.ppm")
        // Left half transparent, right half opaque.
        let alpha = try folder.write(Fixtures.pgm(width: width, height: height) { x, _ in x < width / 2 ? 0 : 255 }, "a.pgm")
        try Fixtures.vips("bandjoin", "\(rgb) \(alpha)", folder.path("alpha.png"))
        let derived = try await imaging.derive(from: try folder.read("alpha.png"))
        let raster = try Fixtures.decode(derived.display.data, in: folder)
        #expect(raster.bands == 3)
        let (lr, lg, lb) = raster.average(atX: 0.2, y: 0.5)
        #expect(lr > 245 && lg > 245 && lb > 245, "transparent area should be white, got \((lr, lg, lb))")
        let (rr, rg, rb) = raster.average(atX: 0.8, y: 0.5)
        #expect(abs(rr - 20) < 12 && abs(rg - 40) < 12 && abs(rb - 200) < 12, "opaque area keeps its colour, got \((rr, rg, rb))")
    }

    @Test func sixteenBitGreyAlphaPNGBecomesAnEightBitJPEG() async throws {
        let grey = try folder.write(Fixtures.pgm(width: 200, height: 100) { x, _ in UInt8(x) }, "g.pgm")
        let alpha = try folder.write(Fixtures.pgm(width: 200, height: 100) { _, y in y < 50 ? 0 : 255 }, "a.pgm")
        try Fixtures.vips("bandjoin", "\(grey) \(alpha)", folder.path("ga.v"))
        try Fixtures.vips("colourspace", folder.path("ga.v"), folder.path("ga16.png"), "grey16")
        let png = try folder.read("ga16.png")
        #expect(png[24] == 16, "the fixture must be a 16-bit PNG")
        let derived = try await imaging.derive(from: png)
        let raster = try Fixtures.decode(derived.display.data, in: folder)
        #expect(raster.width == 200 && raster.height == 100)
        #expect(raster.average(atX: 0.5, y: 0.1).0 > 245, "transparent top is white")
        let opaque = raster.average(atX: 0.5, y: 0.8).0
        #expect(abs(opaque - 100) < 10, "opaque grey keeps its level, got \(opaque)")
    }

    @Test func aDisplayP3PhotoIsConvertedToSRGB() async throws {
        // sRGB (200, 100, 50) encoded in Display P3 with the profile attached, as iPhones do.
        let srgb = try folder.write(Fixtures.ppm(width: 64, height: 48) { _, _ in (200, 100, 50) }, "srgb.ppm")
        try Fixtures.vips("icc_transform", srgb, folder.path("p3.v"), "p3", "--input-profile", "srgb")
        try Fixtures.vips("copy", folder.path("p3.v"), folder.path("p3.jpg[Q=95]"))
        let photo = try folder.read("p3.jpg")
        let stored = try Fixtures.decode(photo, in: folder).average(atX: 0.5, y: 0.5)
        #expect(abs(stored.0 - 200) > 8, "the fixture's stored values must differ from sRGB, got \(stored)")

        let derived = try await imaging.derive(from: photo)
        let (r, g, b) = try Fixtures.decode(derived.display.data, in: folder).average(atX: 0.5, y: 0.5)
        #expect(abs(r - 200) < 5 && abs(g - 100) < 5 && abs(b - 50) < 5, "expected about (200, 100, 50), got \((r, g, b))")
        try expectNoMetadata(jpeg: derived.display.data)
    }

    @Test func aCMYKJPEGBecomesSRGB() async throws {
        let rgb = try folder.write(Fixtures.ppm(width: 64, height: 48) { _, _ in (30, 160, 60) }, "rgb.ppm")
        try Fixtures.vips("icc_export", rgb, folder.path("cmyk.jpg"), "--output-profile", "cmyk")
        let cmyk = try folder.read("cmyk.jpg")
        #expect(try Fixtures.run("vipsheader", [folder.path("cmyk.jpg")]).contains("4 bands"))
        let derived = try await imaging.derive(from: cmyk)
        let raster = try Fixtures.decode(derived.display.data, in: folder)
        #expect(raster.bands == 3)
        let (r, g, b) = raster.average(atX: 0.5, y: 0.5)
        #expect(g > r + 60 && g > b + 60, "a green stays green, got \((r, g, b))")
    }

    @Test func webPOutputCanBeChosenAndCarriesNoMetadata() async throws {
        let webpImaging = try LibvipsImageProcessor(settings: DerivativeSettings(format: .webp))
        let stored = try Fixtures.jpeg(width: 640, height: 480, in: folder, pixel: Fixtures.textured)
        let derived = try await webpImaging.derive(from: Fixtures.withMetadata(stored, orientation: 6))
        #expect(derived.thumbnail.format == .webp)
        #expect((derived.thumbnail.width, derived.thumbnail.height) == (240, 320))
        for image in [derived.thumbnail, derived.display] {
            #expect(image.data.starts(with: Data("RIFF".utf8)))
            let chunks = Fixtures.webpChunks(image.data)
            #expect(!chunks.isEmpty && chunks.allSatisfy { ["VP8 ", "VP8L", "VP8X", "ALPH"].contains($0) }, "\(chunks)")
        }
    }

    @Test func renderMakesOutputsInTheOrderAsked() throws {
        let photo = try Fixtures.jpeg(width: 1000, height: 500, in: folder, pixel: Fixtures.textured)
        let (info, images) = try imaging.renderBlocking(photo, outputs: [
            .init(maxSize: 100, quality: 70), .init(maxSize: 800, quality: 80), .init(maxSize: 400, quality: 75, format: .webp),
        ])
        #expect(info.width == 1000)
        #expect(images.map(\.width) == [100, 800, 400])
        #expect(images.map(\.height) == [50, 400, 200])
        #expect(images.map(\.format) == [.jpeg, .jpeg, .webp])
    }

    // MARK: Helpers

    func expectNoMetadata(jpeg: Data, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(jpeg.starts(with: [0xFF, 0xD8, 0xFF]), sourceLocation: sourceLocation)
        let markers = Fixtures.jpegMarkers(jpeg)
        #expect(markers.last == 0xDA, "the marker walk must reach the image data", sourceLocation: sourceLocation)
        let metadata = markers.filter { (0xE1...0xEF).contains($0) || $0 == 0xFE }
        #expect(metadata.isEmpty, "APPn/COM segments left: \(metadata.map { String($0, radix: 16) })", sourceLocation: sourceLocation)
        #expect(Fixtures.leakedStrings(inJPEG: jpeg).isEmpty, "\(Fixtures.leakedStrings(inJPEG: jpeg))", sourceLocation: sourceLocation)
        let header = try Fixtures.run("vipsheader", ["-a", try folder.write(jpeg, "check-\(UUID().uuidString).jpg")])
        for field in ["exif", "gps", "xmp", "iptc", "icc-profile", "jpeg-comment"] {
            #expect(!header.lowercased().contains(field), "vipsheader shows \(field)", sourceLocation: sourceLocation)
        }
    }
}
