import Foundation
import NestoryChildProcess
import NestoryBarcodes
import NestoryBarcodesLive
import NestoryDemo
import NestoryDomain
import Testing

/// Decoding barcodes the tests draw themselves (never the shared dataset).
@Suite struct BarcodeReaderTests {
    let reader = BarcodeReader()

    /// One sample per 1D format: the modules, what the reader must report, and the GTIN key for product codes.
    static let samples: [(name: String, format: BarcodeFormat, text: String, modules: String, key: String?)] = [
        ("EAN-13", .ean13, "5901234123457", BarcodeRendering.ean13("5901234123457"), "05901234123457"),
        ("EAN-8", .ean8, "96385074", BarcodeRendering.ean8("96385074"), "00000096385074"),
        ("UPC-A", .upcA, "036000291452", BarcodeRendering.upcA("036000291452"), "00036000291452"),
        ("UPC-E", .upcE, "04252614", BarcodeRendering.upcE("04252614"), "00042100005264"),
        ("Code 128", .code128, "Nestory-128 ok", BarcodeRendering.code128("Nestory-128 ok"), nil),
    ]

    func decodeOne(_ image: GrayImage, _ sample: (name: String, format: BarcodeFormat, text: String, modules: String, key: String?)) throws {
        let codes = try reader.decode(imageData: BarcodeRendering.png(image))
        #expect(codes.count == 1, "\(sample.name): \(codes)")
        let code = try #require(codes.first, "\(sample.name): nothing decoded")
        #expect(code.format == sample.format, "\(sample.name)")
        #expect(code.text == sample.text, "\(sample.name)")
        #expect(code.gtin?.key == sample.key, "\(sample.name)")
        #expect(code.confidence >= .medium, "\(sample.name)")
    }

    @Test func decodesEachLinearFormat() throws {
        for sample in Self.samples {
            try decodeOne(BarcodeRendering.picture(sample.modules), sample)
        }
    }

    @Test func decodesRotatedAQuarterTurn() throws {
        for sample in Self.samples {
            try decodeOne(BarcodeRendering.rotatedClockwise(BarcodeRendering.picture(sample.modules)), sample)
        }
    }

    @Test func decodesSmallCodes() throws {
        // 1.6 pixels per module: a code far from the camera.
        for sample in Self.samples {
            try decodeOne(BarcodeRendering.scaled(BarcodeRendering.picture(sample.modules, moduleWidth: 4), by: 0.4), sample)
        }
    }

    @Test func decodesSlightlyBlurredCodes() throws {
        for sample in Self.samples {
            // A 5-pixel box blur over 4-pixel modules.
            try decodeOne(BarcodeRendering.blurred(BarcodeRendering.picture(sample.modules, moduleWidth: 4), radius: 2), sample)
        }
    }

    @Test func decodesLightBarsOnADarkGround() throws {
        for sample in Self.samples {
            let picture = BarcodeRendering.picture(sample.modules)
            try decodeOne(GrayImage(width: picture.width, height: picture.height, pixels: picture.pixels.map { 255 - $0 }), sample)
        }
    }

    @Test func decodesNoisyCodes() throws {
        for sample in Self.samples {
            try decodeOne(BarcodeRendering.noisy(BarcodeRendering.picture(sample.modules), amount: 40), sample)
        }
    }

    @Test func laterPassesRescueWhatTheFirstMisses() throws {
        // Heavy sensor noise on a Code 128: zbar alone reads nothing; a smoothing pass does.
        let noisy = BarcodeRendering.png(BarcodeRendering.noisy(BarcodeRendering.picture(BarcodeRendering.code128("Nestory-128 ok")), amount: 40))
        let plain = BarcodeReader(options: .init(passes: [.original]))
        #expect(try plain.decode(imageData: noisy).isEmpty)
        let codes = try reader.decode(imageData: noisy)
        #expect(codes.map(\.text) == ["Nestory-128 ok"])
        #expect(codes.first?.pass != "original")
    }

    @Test func passesOnTwoThreadsReadWhatOneAtATimeReads() throws {
        // Hard pictures reach the later passes, which run on two threads; the reads, which pass found them, how
        // many agreed and where they are must be the same as one pass at a time.
        let code128 = BarcodeRendering.picture(BarcodeRendering.code128("Nestory-128 ok"))
        let pictures = [
            BarcodeRendering.noisy(code128, amount: 40),
            BarcodeRendering.blurred(BarcodeRendering.picture(Self.samples[0].modules, moduleWidth: 2), radius: 2),
            GrayImage(width: code128.width, height: code128.height, pixels: code128.pixels.map { 255 - $0 }),
            BarcodeRendering.noisy(BarcodeRendering.blank(width: 320, height: 240, grey: 128), amount: 80),
        ]
        // zbar alone, so that its later passes do the reading.
        let twoThreads = BarcodeReader(options: .init(zxingWorker: nil, parallelPasses: true))
        let single = BarcodeReader(options: .init(zxingWorker: nil, parallelPasses: false))
        // Both decoders: each read is put to the other decoder only if the passes before left it unconfirmed, as one pass at a
        // time decides it, so the threads' reads (and the passes that made them) are again the same.
        let bothTwoThreads = BarcodeReader(options: .init(parallelPasses: true))
        let bothSingle = BarcodeReader(options: .init(parallelPasses: false))
        for (index, picture) in pictures.enumerated() {
            let png = BarcodeRendering.png(picture)
            #expect(try twoThreads.decode(imageData: png) == single.decode(imageData: png), "picture \(index)")
            #expect(try bothTwoThreads.decode(imageData: png) == bothSingle.decode(imageData: png), "picture \(index), both decoders")
        }
        // zbar's first pass reads nothing of the first one (see laterPassesRescueWhatTheFirstMisses): a later pass
        // read it, so both threads did run. The last has no code and runs every pass.
        let late = try #require(try twoThreads.decode(imageData: BarcodeRendering.png(pictures[0])).first)
        #expect(late.text == "Nestory-128 ok" && !["zxing", "original"].contains(late.pass), "\(late.pass)")
    }

    @Test func aUPCEOfNumberSystem1ThatOnlyZXingReadsIsUncertainAfterZbarsFirstPass() throws {
        // zbar decodes no UPC-E of number system 1, so nothing can confirm zxing's read of one: the reader says so
        // once zbar's first pass (around the read, then over the picture) has found nothing else, without the later passes.
        let text = try #require((0...9).map { "1425261\($0)" }.first { GTIN($0, format: .upcE) != nil })
        let png = BarcodeRendering.png(BarcodeRendering.picture(BarcodeRendering.upcE(text)))
        #expect(try BarcodeReader(options: .init(passes: [.original], zxingWorker: nil)).decode(imageData: png).isEmpty)
        for parallel in [false, true] {
            let timings = BarcodeTimings()
            let codes = try BarcodeReader(options: .init(parallelPasses: parallel, timings: timings)).decode(imageData: png)
            #expect(codes.map(\.text) == [text], "parallel: \(parallel)")
            #expect(codes.first?.isUncertain == true)
            #expect(codes.first?.passes == ["zxing"])
            let stages = Set(timings.stages.map(\.name))
            #expect(stages.isSuperset(of: ["zxing", BarcodeTimings.Name.aroundZXingReads, "original"]), "\(stages)")
            // Nothing after zbar's first pass, which runs before the passes that share two threads.
            let later = stages.subtracting([BarcodeTimings.Name.load, BarcodeTimings.Name.prepare, "zxing", BarcodeTimings.Name.aroundZXingReads, "original"])
            #expect(later.isEmpty, "parallel: \(parallel): \(later)")
        }
    }

    @Test func aCleanCodeIsConfirmedBySeveralPasses() throws {
        let png = BarcodeRendering.png(BarcodeRendering.picture(Self.samples[0].modules))
        let code = try #require(try reader.decode(imageData: png).first)
        #expect(code.pass == BarcodeReader.Pass.standard[0].rawValue)
        #expect(code.agreeingPasses >= 2)
        #expect(code.confidence == .high)
        // Stopping when sure: a clean code does not run every pass.
        let everyPass = BarcodeReader(options: .init(stopWhenSure: false))
        #expect(try everyPass.decode(imageData: png).first?.agreeingPasses ?? 0 > code.agreeingPasses)
    }

    @Test func zxingRunsInItsWorkerAndAgreesWithZbar() throws {
        // The worker program is built beside the test binary, as it is beside `nestory`.
        #expect(ZXingScanner.isAvailable)
        let png = BarcodeRendering.png(BarcodeRendering.picture(Self.samples[0].modules))
        let zxingOnly = BarcodeReader(options: .init(passes: [.zxing]))
        let code = try #require(try zxingOnly.decode(imageData: png).first)
        #expect(code.text == Self.samples[0].text)
        #expect(code.pass == "zxing")
        // Read by zxing, then confirmed by zbar: two independent decoders agree.
        let both = try #require(try BarcodeReader(options: .init(passes: [.zxing, .original])).decode(imageData: png).first)
        #expect(both.agreeingPasses == 2)
        #expect(both.confidence == .high)
    }

    @Test func code128ExtendedCharactersSurviveZbarDroppingThem() throws {
        // FNC4 + letter: Latin-1. zbar drops FNC4 (`ó` reads as `s`); zxing keeps it; one code comes back, right.
        let png = BarcodeRendering.png(BarcodeRendering.picture(BarcodeRendering.code128("óó12ab")))
        let zbarOnly = try BarcodeReader(options: .init(passes: [.original], zxingWorker: nil)).decode(imageData: png)
        #expect(zbarOnly.map(\.text) == ["ss12ab"])
        let codes = try reader.decode(imageData: png)
        #expect(codes.map(\.text) == ["óó12ab"])
        #expect(codes.first?.agreeingPasses ?? 0 >= 2)
    }

    @Test func aBrokenZxingWorkerCostsOnlyItsPass() throws {
        // Debian's zxing-cpp aborts on some pictures: in its own process, that must cost one pass, never this one.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("zxing-workers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func script(_ name: String, _ body: String) throws -> String {
            let url = folder.appendingPathComponent(name)
            try Data("#!/bin/sh\n\(body)\n".utf8).write(to: url)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
            return url.path
        }
        let workers = [
            "missing": folder.appendingPathComponent("no-such-worker").path,
            "exits at once": try script("exits", "exit 0"),
            "aborts mid-read": try script("aborts", "head -c 100 >/dev/null; kill -ABRT $$"),
            "answers nonsense": try script("nonsense", "head -c 16 >/dev/null; printf 'zzzzzzzz'; sleep 10"),
        ]
        let png = BarcodeRendering.png(BarcodeRendering.picture(Self.samples[0].modules))
        for (name, worker) in workers {
            let broken = BarcodeReader(options: .init(zxingWorker: worker))
            for attempt in 1...2 {
                let codes = try broken.decode(imageData: png)
                #expect(codes.map(\.text) == [Self.samples[0].text], "\(name), attempt \(attempt)")
                #expect(codes.first?.pass == "original", "\(name), attempt \(attempt)")
            }
        }
    }

    @Test func decodesAQRCodeMadeByQrencode() throws {
        let text = "https://nestory.example/items/42?ünïcode=✓"
        let modules = try qrModules(text)
        for (name, image) in [
            ("upright", BarcodeRendering.qrPicture(modules, moduleSize: 4)),
            ("rotated", BarcodeRendering.rotatedClockwise(BarcodeRendering.qrPicture(modules, moduleSize: 4))),
            ("small", BarcodeRendering.scaled(BarcodeRendering.qrPicture(modules, moduleSize: 6), by: 0.4)),
            ("blurred", BarcodeRendering.blurred(BarcodeRendering.qrPicture(modules, moduleSize: 5), radius: 1)),
            ("noisy", BarcodeRendering.noisy(BarcodeRendering.qrPicture(modules, moduleSize: 4), amount: 60)),
        ] {
            let codes = try reader.decode(imageData: BarcodeRendering.png(image))
            #expect(codes.map(\.format) == [.qr], "\(name)")
            #expect(codes.first?.text == text, "\(name)")
            #expect(codes.first?.gtin == nil, "\(name)")
            #expect(codes.first?.confidence == .high, "\(name)")
        }
    }

    @Test func findsTwoCodesInOnePicture() throws {
        let ean = BarcodeRendering.samplesModules(.ean13)
        let code128 = BarcodeRendering.code128("BOX-0042")
        var image = BarcodeRendering.blank(width: 600, height: 320)
        BarcodeRendering.draw(ean, into: &image, x: 40, y: 20, moduleWidth: 3, barHeight: 100)
        BarcodeRendering.draw(code128, into: &image, x: 40, y: 190, moduleWidth: 3, barHeight: 100)
        let codes = try reader.decode(imageData: BarcodeRendering.png(image))
        #expect(Set(codes.map(\.text)) == ["5901234123457", "BOX-0042"])

        // A region aimed at the lower half finds only the Code 128, and reports where in the whole picture.
        let lower = try #require(BarcodeRegion(x: 0, y: 0.5, width: 1, height: 0.5))
        let inRegion = try reader.decode(imageData: BarcodeRendering.png(image), region: lower)
        #expect(inRegion.map(\.text) == ["BOX-0042"])
        let bounds = try #require(inRegion.first?.bounds)
        #expect(bounds.y >= 160 && bounds.y + bounds.height <= 320, "\(bounds)")
    }

    @Test func zxingsReadIsConfirmedAroundItInsideARegion() throws {
        // A small code in a large picture: zbar confirms zxing's read on the area around it, and the positions
        // of both come back in the whole picture's pixels, inside a region too.
        var image = BarcodeRendering.blank(width: 1200, height: 900)
        BarcodeRendering.draw(BarcodeRendering.samplesModules(.ean13), into: &image, x: 700, y: 560, moduleWidth: 2, barHeight: 80)
        let png = BarcodeRendering.png(image)
        let twoDecoders = BarcodeReader(options: .init(passes: [.zxing, .original]))
        for region in [nil, BarcodeRegion(x: 0.25, y: 0.5, width: 0.75, height: 0.5)] {
            let codes = try twoDecoders.decode(imageData: png, region: region)
            #expect(codes.map(\.text) == ["5901234123457"], "\(String(describing: region))")
            let code = try #require(codes.first)
            #expect(code.agreeingPasses == 2 && code.confidence == .high)
            let bounds = try #require(code.bounds)
            // The code's bars span x 700 + 2 × (0...95), y 560...640 (with zbar's and zxing's scan lines in it).
            #expect(bounds.x >= 690 && bounds.x + bounds.width <= 920, "\(bounds)")
            #expect(bounds.y >= 555 && bounds.y + bounds.height <= 660, "\(bounds)")
        }
    }

    /// Bars two pixels tall: zbar reads the code on one scan line, which gives one point, at the end where the line left
    /// the code. zxing checks the read on a band along that line through the picture and confirms it (on a crop around
    /// the point alone it could not, and the read, one line of one pass, was dropped).
    /// Standing up, the band is a column, turned for zxing so that its rows cross the bars, and zxing's read of it comes
    /// back where the code is.
    @Test func aCodeZbarReadsOnOneLineIsConfirmedByZXing() throws {
        var image = BarcodeRendering.blank(width: 640, height: 480)
        BarcodeRendering.draw(BarcodeRendering.samplesModules(.ean13), into: &image, x: 150, y: 300, moduleWidth: 3, barHeight: 2)
        let onlyZbarsFirstPass = BarcodeReader(options: .init(passes: [.original]))
        // The bars span x 150 + 3 × (0..<95), y 300...301; turned clockwise, x 178...179 and y 150..<435.
        for (picture, x, y) in [(image, 140...445, 290...310), (BarcodeRendering.rotatedClockwise(image), 168...189, 140...445)] {
            let codes = try onlyZbarsFirstPass.decode(imageData: BarcodeRendering.png(picture))
            #expect(codes.map(\.text) == ["5901234123457"])
            #expect(codes.first?.passes == ["original", "zxing-cross-check"])
            #expect(codes.first?.confidence == .high)
            let bounds = try #require(codes.first?.bounds)
            #expect(x.contains(bounds.x) && x.contains(bounds.x + bounds.width - 1) && y.contains(bounds.y) && y.contains(bounds.y + bounds.height - 1), "\(bounds)")
        }
    }

    @Test func bigNoisyPhotosAreSearchedOnAShrunkCopy() throws {
        // A 6-megapixel "phone photo": passes after the first work on a copy shrunk to at most 1600 pixels,
        // and positions still come back in the photo's own pixels.
        var photo = BarcodeRendering.blank(width: 3300, height: 1800, grey: 200)
        BarcodeRendering.draw(BarcodeRendering.code128("Nestory-128 ok"), into: &photo, x: 1900, y: 1200, moduleWidth: 5, barHeight: 300)
        photo = BarcodeRendering.noisy(photo, amount: 90)
        let codes = try reader.decode(imageData: BarcodeRendering.png(photo))
        #expect(codes.map(\.text) == ["Nestory-128 ok"])
        #expect(codes.first?.pass != "original")
        let bounds = try #require(codes.first?.bounds)
        #expect(bounds.x >= 1850 && bounds.x < 2100, "\(bounds)")
        #expect(bounds.y >= 1150 && bounds.y + bounds.height <= 1560, "\(bounds)")
    }

    @Test func halfACodeIsNotFinishedWithHalfOfTheNextPhoto() throws {
        // zbar keeps half an EAN it read for the other half to turn up. One photo shows only the left half of a
        // code, the next only the right half of the same code: neither may report it, whichever comes first.
        let modules = BarcodeRendering.samplesModules(.ean13)
        func half(_ keep: Range<Int>) -> Data {
            var image = BarcodeRendering.blank(width: 400, height: 160)
            let kept = String(modules.enumerated().map { keep.contains($0.offset) ? $0.element : "0" })
            BarcodeRendering.draw(kept, into: &image, x: 50, y: 30, moduleWidth: 3, barHeight: 100)
            return BarcodeRendering.png(image)
        }
        // Each keeps the centre guard and a bar past it, so zbar can measure the guard's last space.
        let left = half(0..<52), right = half(43..<95)
        let zbarOnly = BarcodeReader(options: .init(passes: [.original], zxingWorker: nil))
        for order in [[left, right], [right, left], [left, right, left]] {
            for photo in order { #expect(try zbarOnly.decode(imageData: photo).isEmpty) }
        }
        // The whole code in one photo is read, by the same reader.
        #expect(try zbarOnly.decode(imageData: BarcodeRendering.png(BarcodeRendering.picture(modules))).map(\.text) == ["5901234123457"])
    }

    @Test func aBlankPictureHasNoCodes() throws {
        #expect(try reader.decode(imageData: BarcodeRendering.png(BarcodeRendering.blank(width: 320, height: 240))).isEmpty)
        #expect(try reader.decode(imageData: BarcodeRendering.png(BarcodeRendering.noisy(BarcodeRendering.blank(width: 320, height: 240, grey: 128), amount: 80))).isEmpty)
    }

    @Test func badInputIsAnError() throws {
        var generator = SystemRandomNumberGenerator()
        let random = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
        #expect(throws: BarcodeReaderError.notAnImage) { try reader.decode(imageData: random) }
        #expect(throws: BarcodeReaderError.emptyFile) { try reader.decode(imageData: Data()) }
        #expect(throws: BarcodeReaderError.notAnImage) { try reader.decode(imageData: Data("not a picture at all".utf8)) }
        // Formats other than JPEG, PNG, HEIF and WebP are not images here, whichever loaders this process has
        // blocked: a 1×1 GIF (libvips's own loader) and a 1×1 BMP (only ImageMagick's would read it).
        let gif: [UInt8] = [0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x21, 0xF9, 4, 1,
                            0, 0, 0, 0, 0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 1, 0, 0x3B]
        #expect(throws: BarcodeReaderError.notAnImage) { try reader.decode(imageData: Data(gif)) }
        var bmp: [UInt8] = Array("BM".utf8) + [58, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0]
        bmp += [40, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 24, 0, 0, 0, 0, 0, 4, 0, 0, 0] + [UInt8](repeating: 0, count: 16)
        bmp += [0, 0, 0, 0]
        #expect(throws: BarcodeReaderError.notAnImage) { try reader.decode(imageData: Data(bmp)) }

        // A PNG cut short: recognised as an image, but unreadable.
        let png = BarcodeRendering.png(BarcodeRendering.picture(Self.samples[0].modules))
        do {
            _ = try reader.decode(imageData: png.prefix(png.count / 2))
            Issue.record("a truncated PNG decoded")
        } catch let error {
            guard case .unreadableImage = error else { Issue.record("expected unreadableImage, got \(error)"); return }
        }
    }

    @Test func everyPNGLayoutReadsTheSame() throws {
        // Grey, RGB, grey + alpha and RGBA of one picture must give the same code at the same place (each
        // layout is turned to grey by its own loop; ImageLoaderTests compares the pixels).
        let picture = BarcodeRendering.picture(Self.samples[0].modules)
        func layout(_ colorType: UInt8, _ channels: (UInt8) -> [UInt8]) -> Data {
            var raw: [UInt8] = []
            for y in 0..<picture.height {
                raw.append(0)
                for x in 0..<picture.width { raw.append(contentsOf: channels(picture.pixels[y * picture.width + x])) }
            }
            return DemoImages.png(width: picture.width, height: picture.height, colorType: colorType, rawScanlines: raw)
        }
        let layouts: [(String, Data)] = [
            ("grey", BarcodeRendering.png(picture)),
            ("RGB", layout(2) { [$0, $0, $0] }),
            ("grey + alpha", layout(4) { [$0, 255] }),
            ("RGBA", layout(6) { [$0, $0, $0, 255] }),
        ]
        let expected = try reader.decode(imageData: layouts[0].1)
        #expect(expected.map(\.text) == ["5901234123457"])
        for (name, data) in layouts.dropFirst() {
            let codes = try reader.decode(imageData: data)
            #expect(codes.map(\.text) == expected.map(\.text), "\(name)")
            #expect(codes.map(\.bounds) == expected.map(\.bounds), "\(name)")
        }
    }

    @Test func aPNGDeclaringTooManyPixelsIsRefusedBeforeDecoding() throws {
        // 20,000 × 6,000 in the header (over the 100-megapixel limit) with almost no pixel data behind it.
        let bomb = DemoImages.png(width: 20_000, height: 6_000, colorType: 2, rawScanlines: [0, 0, 0, 0])
        do {
            _ = try reader.decode(imageData: bomb)
            Issue.record("an oversized PNG was decoded")
        } catch let error {
            guard case .imageTooLarge(let detail) = error else { Issue.record("expected imageTooLarge, got \(error)"); return }
            #expect(detail.contains("20000x6000"), "\(detail)")
        }
    }

    @Test func aWrongCheckDigitIsNotReportedAsAProduct() throws {
        // Bars that spell 5901234123458 (check digit off by one): no decoder may call that a product.
        let bits = BarcodeRendering.ean13("5901234123458")
        let codes = try reader.decode(imageData: BarcodeRendering.png(BarcodeRendering.picture(bits)))
        #expect(codes.isEmpty, "\(codes)")
    }

    @Test func concurrentCallsAgree() async throws {
        let png = BarcodeRendering.png(BarcodeRendering.picture(Self.samples[0].modules))
        let reader = self.reader
        let texts = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<8 { group.addTask { (try? reader.decode(imageData: png).map(\.text)) ?? [] } }
            return await group.reduce(into: [[String]]()) { $0.append($1) }
        }
        #expect(texts.count == 8)
        #expect(texts.allSatisfy { $0 == ["5901234123457"] })
    }

    /// A QR code's modules (true = dark) from Debian's `qrencode` (in TEST_PACKAGES), through its text output.
    func qrModules(_ text: String) throws -> [[Bool]] {
        let tool = try #require(["/usr/bin/qrencode", "/usr/local/bin/qrencode"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                "qrencode is missing: run `make test-deps`")
        let finished = try ChildProcess.run(tool, ["-t", "ASCII", "-m", "0", "-8", text])
        try #require(finished.exitCode == 0)
        // Two characters per module: "##" dark, "  " light.
        let rows = finished.outputText.split(separator: "\n").map { line in
            stride(from: 0, to: line.count, by: 2).map { line[line.index(line.startIndex, offsetBy: $0)] == "#" }
        }
        try #require(rows.count >= 21 && rows.allSatisfy { $0.count == rows.count }, "unexpected qrencode output")
        return rows
    }
}

extension BarcodeRendering {
    static func samplesModules(_ format: BarcodeFormat) -> String {
        BarcodeReaderTests.samples.first { $0.format == format }!.modules
    }

    /// A QR code drawn `moduleSize` pixels per module with a four-module quiet zone.
    static func qrPicture(_ modules: [[Bool]], moduleSize: Int) -> GrayImage {
        let side = (modules.count + 8) * moduleSize
        var image = blank(width: side, height: side)
        for (row, line) in modules.enumerated() {
            for (col, dark) in line.enumerated() where dark {
                for y in 0..<moduleSize {
                    for x in 0..<moduleSize {
                        image.pixels[((row + 4) * moduleSize + y) * side + (col + 4) * moduleSize + x] = 0
                    }
                }
            }
        }
        return image
    }
}


