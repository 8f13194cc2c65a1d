@testable import NestoryBarcodesLive
import NestoryBarcodes
import Testing

/// zbar on its own, as the reader's cross-checks use it.
@Suite struct ZBarScannerTests {
    let modules = BarcodeRendering.ean13("5901234123457")

    func texts(_ image: GrayImage, _ lines: ZBarScanner.Lines) -> [String] {
        ZBarScanner(formats: Set(BarcodeFormat.allCases), density: 2, lines: lines).scan(image).map(\.text)
    }

    /// Rows read a code lying across the picture and columns one standing up; the other lines cross no bars.
    @Test func onlyTheLinesAskedForAreScanned() {
        let lying = BarcodeRendering.picture(modules)
        let standing = BarcodeRendering.rotatedClockwise(lying)
        #expect(texts(lying, .rows) == ["5901234123457"])
        #expect(texts(lying, .columns) == [])
        #expect(texts(lying, .both) == ["5901234123457"])
        #expect(texts(standing, .columns) == ["5901234123457"])
        #expect(texts(standing, .rows) == [])
    }

    /// zbar says which lines read a 1D code: rows for one lying across the picture (either way up), columns for one
    /// standing up. Its points are where those lines left the code, so a read on one line is a single point.
    @Test func zbarSaysWhichLinesReadACode() throws {
        let lying = BarcodeRendering.picture(modules)
        let scanner = { ZBarScanner(formats: Set(BarcodeFormat.allCases), density: 2) }
        #expect(scanner().scan(lying).map(\.lines) == [.rows])
        #expect(scanner().scan(BarcodeRendering.rotatedClockwise(lying)).map(\.lines) == [.columns])
        let upsideDown = BarcodeRendering.rotatedClockwise(BarcodeRendering.rotatedClockwise(lying))
        #expect(scanner().scan(upsideDown).map(\.lines) == [.rows])
        var thin = BarcodeRendering.blank(width: 400, height: 120)
        BarcodeRendering.draw(modules, into: &thin, x: 40, y: 60, moduleWidth: 3, barHeight: 2)
        let read = scanner().scan(thin)
        #expect(read.map(\.text) == ["5901234123457"] && read.first?.points.count == 1, "\(read)")
        // A QR code has no such lines.
        let qr = BarcodeRendering.qrPicture(try BarcodeReaderTests().qrModules("hello"), moduleSize: 4)
        let qrRead = scanner().scan(qr)
        #expect(qrRead.map(\.format) == [.qr] && qrRead.first?.lines == nil, "\(qrRead)")
    }

    /// The lines chosen from a read's points: the ones along its longer side, both when neither side is clearly longer.
    @Test func theLinesAcrossAReadFollowItsShape() {
        #expect(ZBarScanner.Lines(across: [(x: 10, y: 50), (x: 300, y: 50), (x: 12, y: 120)]) == .rows)
        #expect(ZBarScanner.Lines(across: [(x: 50, y: 10), (x: 50, y: 300), (x: 120, y: 12)]) == .columns)
        #expect(ZBarScanner.Lines(across: [(x: 0, y: 0), (x: 100, y: 90)]) == .both)
        #expect(ZBarScanner.Lines(across: [(x: 7, y: 7)]) == .both)
        #expect(ZBarScanner.Lines(across: []) == .both)
    }
}
