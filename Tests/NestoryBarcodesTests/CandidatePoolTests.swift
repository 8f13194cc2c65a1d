@testable import NestoryBarcodesLive
import NestoryBarcodes
import Testing

/// The reads pooled across passes: where zbar is asked to confirm zxing's reads before it scans everything.
@Suite struct CandidatePoolTests {
    /// A pool holding `reads`, each found by `pass`.
    static func pool(_ reads: [RawSymbol], pass: BarcodeReader.Pass = .zxing) -> CandidatePool {
        var pool = CandidatePool(strongScanLines: .max)
        for read in reads { pool.add(read, pass: pass, points: read.points) }
        return pool
    }

    /// A read along one scan line from (x0, y) to (x1, y), as zxing reports a 1D code.
    static func line(_ format: BarcodeFormat, _ text: String, x0: Int, x1: Int, y: Int) -> RawSymbol {
        RawSymbol(format: format, text: text, quality: 3, points: [(x: x0, y: y), (x: x1, y: y)])
    }

    static let ean = line(.ean13, "5901234123457", x0: 300, x1: 491, y: 400)

    @Test func theAreaIsTheWaitingReadWithItsQuietZones() {
        let pool = Self.pool([Self.ean])
        // 192 pixels long: padded by an eighth of that, 24 pixels, on every side.
        #expect(pool.confirmationArea(width: 1000, height: 800, origin: (x: 0, y: 0)) == PixelBounds(x: 276, y: 376, width: 240, height: 49))
        // In a region starting at (100, 50) of the photo: the same place in the region's own pixels.
        #expect(pool.confirmationArea(width: 900, height: 750, origin: (x: 100, y: 50)) == PixelBounds(x: 176, y: 326, width: 240, height: 49))
        // At least 16 pixels of margin for a short code, clamped at the picture's edges.
        let small = Self.pool([Self.line(.ean8, "96385074", x0: 2, x1: 60, y: 5)])
        #expect(small.confirmationArea(width: 640, height: 480, origin: (x: 0, y: 0)) == PixelBounds(x: 0, y: 0, width: 77, height: 22))
    }

    @Test func twoWaitingReadsShareOneArea() {
        let pool = Self.pool([
            Self.line(.ean13, "5901234123457", x0: 100, x1: 291, y: 100),
            Self.line(.code128, "BOX-0042", x0: 120, x1: 311, y: 300),
        ])
        #expect(pool.confirmationArea(width: 1000, height: 800, origin: (x: 0, y: 0)) == PixelBounds(x: 76, y: 76, width: 260, height: 249))
    }

    /// zbar looks around zxing's reads on the lines that cross their bars: rows when every read waiting lies across the
    /// picture, columns when every one stands up, both when they differ.
    @Test func theLinesAroundTheWaitingReadsCrossTheirBars() {
        let standing = RawSymbol(format: .code128, text: "BOX-0042", quality: 3, points: [(x: 700, y: 100), (x: 700, y: 300)])
        #expect(Self.pool([Self.ean]).confirmationLines == .rows)
        #expect(Self.pool([standing]).confirmationLines == .columns)
        #expect(Self.pool([Self.ean, Self.line(.code128, "BOX-0043", x0: 120, x1: 311, y: 300)]).confirmationLines == .rows)
        #expect(Self.pool([Self.ean, standing]).confirmationLines == .both)
    }

    /// A read only zbar made is known across its scan lines, not along them (its points are where the lines left the
    /// code): it is looked for in a band along those lines through the whole picture, a quarter of the picture either side.
    @Test func aReadOnlyZBarMadeIsLookedForInABandAlongItsLines() {
        var read = RawSymbol(format: .ean13, text: "5901234123457", quality: 1, points: [(x: 491, y: 400)])
        read.lines = .rows
        #expect(Self.pool([read], pass: .original).confirmationArea(width: 1000, height: 800, origin: (x: 0, y: 0)) == PixelBounds(x: 0, y: 200, width: 1000, height: 401))
        // In a region starting at (100, 50): the same place in the region's pixels, a quarter of the region either side.
        #expect(Self.pool([read], pass: .original).confirmationArea(width: 900, height: 600, origin: (x: 100, y: 50)) == PixelBounds(x: 0, y: 200, width: 900, height: 301))
        read.lines = .columns
        #expect(Self.pool([read], pass: .binarized).confirmationArea(width: 1000, height: 800, origin: (x: 0, y: 0)) == PixelBounds(x: 241, y: 0, width: 501, height: 800))
        // Read along both (or zbar could not say): nowhere in particular.
        read.lines = .both
        #expect(Self.pool([read], pass: .original).confirmationArea(width: 1000, height: 800, origin: (x: 0, y: 0)) == nil)
    }

    /// The other decoder checks a zbar read on a band along its lines through the whole picture (see
    /// ``BarcodeReader/surroundings(of:in:)``); a read whose points are its ends (zxing's) on the crop around them.
    @Test func aZBarReadIsCheckedOnABandAlongItsLines() {
        let image = BarcodeRendering.blank(width: 640, height: 480)
        var oneLine = RawSymbol(format: .ean13, text: "5901234123457", quality: 1, points: [(x: 400, y: 300)])
        oneLine.lines = .rows
        #expect(BarcodeReader.surroundings(of: oneLine, in: image) == PixelBounds(x: 0, y: 268, width: 640, height: 65))
        oneLine.lines = .columns
        #expect(BarcodeReader.surroundings(of: oneLine, in: image) == PixelBounds(x: 368, y: 0, width: 65, height: 480))
        // Four lines, their points at either end, 191 pixels apart along the lines and 41 across: as far either side as
        // for a read whose ends those are, 191 / 4 + 8 = 55 (more than 32 + 41 / 4 = 42).
        var fourLines = RawSymbol(format: .ean13, text: "5901234123457", quality: 4, points: [(x: 400, y: 260), (x: 210, y: 274), (x: 400, y: 288), (x: 210, y: 300)])
        fourLines.lines = .rows
        #expect(BarcodeReader.surroundings(of: fourLines, in: image) == PixelBounds(x: 0, y: 205, width: 640, height: 151))
        // Read along columns: 32 + 191 / 4 = 79 pixels either side of them, clamped at the picture's edge.
        fourLines.lines = .columns
        #expect(BarcodeReader.surroundings(of: fourLines, in: image) == PixelBounds(x: 131, y: 0, width: 349, height: 480))
        let zxingRead = RawSymbol(format: .ean13, text: "5901234123457", quality: 3, points: [(x: 300, y: 400), (x: 491, y: 400)])
        #expect(BarcodeReader.surroundings(of: zxingRead, in: image) == BarcodeReader.surroundings(of: zxingRead.points, in: image))
        #expect(BarcodeReader.surroundings(of: zxingRead, in: image) == PixelBounds(x: 254, y: 345, width: 284, height: 111))
    }

    /// The later passes' part of the picture is read at the whole picture's scale, its shrunk copy the same pixels as the
    /// whole one's.
    @Test func aFocusedPictureHoldsTheWholePicturesPixels() {
        var image = BarcodeRendering.blank(width: 3300, height: 1800)
        for i in image.pixels.indices { image.pixels[i] = UInt8(truncatingIfNeeded: i &* 7 &+ i / 3300) }
        let whole = BarcodeReader.Picture(base: image, shrink: 3, offset: (x: 10, y: 20))
        let focused = whole.focused(on: PixelBounds(x: 1001, y: 500, width: 700, height: 401))
        // The corner moves to a multiple of 6: (996, 498).
        #expect(focused.offset.x == 1006 && focused.offset.y == 518)
        #expect(focused.base.width == 705 && focused.base.height == 403 && focused.shrink == 3)
        let part = focused.working!, all = whole.working!
        #expect(part.pixels == all.cropped(x: 332, y: 166, width: part.width, height: part.height).pixels)
    }

    /// Where zbar read two product codes at one spot, the one both decoders read is sure, unless zbar read the other in
    /// more of its passes: then zbar's own majority is against it, and it is shown to be checked.
    @Test func bothDecodersDoNotSettleASpotWhereZbarMostlyReadAnotherCode() throws {
        let a = Self.line(.ean13, "5901234123457", x0: 300, x1: 491, y: 400)
        let b = Self.line(.ean13, "4006381333931", x0: 300, x1: 491, y: 404)
        func confidence(_ pool: CandidatePool) -> [String: BarcodeConfidence] {
            Dictionary(uniqueKeysWithValues: pool.results(dropLow: true).map { ($0.text, $0.confidence) })
        }
        var pool = CandidatePool(strongScanLines: .max, agreement: .otherDecoderOrScale)
        pool.add(a, pass: .original, points: a.points)
        pool.add(b, pass: .upscaled2x, points: b.points)
        pool.add(b, pass: .zxingCrossCheck, points: b.points)
        #expect(confidence(pool) == ["4006381333931": .high])
        pool.add(a, pass: .binarized, points: a.points)
        #expect(confidence(pool)["4006381333931"] == .medium)
    }

    @Test func boundsEncloseEveryPoint() {
        #expect(PixelBounds(enclosing: [(x: 40, y: 7), (x: 10, y: 30), (x: 25, y: 5)]) == PixelBounds(x: 10, y: 5, width: 31, height: 26))
        #expect(PixelBounds(enclosing: [(x: 3, y: 4)]) == PixelBounds(x: 3, y: 4, width: 1, height: 1))
        #expect(PixelBounds(enclosing: []) == nil)
    }

    @Test func nothingToConfirmOrNowhereToLookMeansTheWholePicture() {
        #expect(Self.pool([]).confirmationArea(width: 640, height: 480, origin: (x: 0, y: 0)) == nil)
        // A QR code needs no second pass.
        let qr = RawSymbol(format: .qr, text: "hello", quality: 1, points: [(x: 10, y: 10), (x: 90, y: 90)])
        #expect(Self.pool([qr]).confirmationArea(width: 640, height: 480, origin: (x: 0, y: 0)) == nil)
        // Already confirmed by a second pass.
        var confirmed = Self.pool([Self.ean])
        confirmed.add(Self.ean, pass: .original, points: Self.ean.points)
        #expect(confirmed.confirmationArea(width: 1000, height: 800, origin: (x: 0, y: 0)) == nil)
        // A read with no position.
        let unplaced = RawSymbol(format: .ean13, text: "5901234123457", quality: 3, points: [])
        #expect(Self.pool([unplaced]).confirmationArea(width: 1000, height: 800, origin: (x: 0, y: 0)) == nil)
        // A code across most of the picture: a crop would save little.
        let big = RawSymbol(format: .ean13, text: "5901234123457", quality: 3, points: [(x: 20, y: 100), (x: 620, y: 400)])
        #expect(Self.pool([big]).confirmationArea(width: 640, height: 480, origin: (x: 0, y: 0)) == nil)
    }

    @Test func aReadThatASecondZBarScaleConfirmsIsNotPutToZXing() throws {
        var pool = CandidatePool(strongScanLines: .max, agreement: .otherDecoderOrScale)
        pool.add(Self.ean, pass: .binarized, points: Self.ean.points)
        let key = try #require(CandidatePool.key(Self.ean))
        let known = BarcodeReader.CrossChecked(pool)
        // zbar reading it again on the doubled picture confirms it by itself; at the same scale it does not.
        #expect(!known.wantsCheck(key, by: .upscaledBinarized))
        #expect(known.wantsCheck(key, by: .inverted))
        // zxing's read of it needs no zbar check: zbar has read it.
        #expect(!known.wantsCheck(key, by: .zxingHarder))

        // A UPC-E is not confirmed by a second scale: zxing is still asked.
        let upce = Self.line(.upcE, "01234565", x0: 300, x1: 380, y: 600)
        pool.add(upce, pass: .binarized, points: upce.points)
        #expect(BarcodeReader.CrossChecked(pool).wantsCheck(try #require(CandidatePool.key(upce)), by: .upscaledBinarized))

        // Another product code read at the same spot: only both decoders settle it, so zxing is asked again.
        let rival = Self.line(.ean13, "4006381333931", x0: 300, x1: 491, y: 404)
        pool.add(rival, pass: .original, points: rival.points)
        #expect(BarcodeReader.CrossChecked(pool).wantsCheck(key, by: .upscaledBinarized))

        // With any two passes agreeing (no cross-checks wanted by the rule), nothing is skipped on a scale's account.
        var anyTwo = CandidatePool(strongScanLines: .max, agreement: .anyTwoPasses)
        anyTwo.add(Self.ean, pass: .binarized, points: Self.ean.points)
        #expect(BarcodeReader.CrossChecked(anyTwo).wantsCheck(key, by: .upscaledBinarized))
    }
}
