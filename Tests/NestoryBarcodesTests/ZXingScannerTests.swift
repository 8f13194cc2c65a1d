@testable import NestoryBarcodesLive
import NestoryBarcodes
import Testing

/// zxing in its worker process, asked to look as hard as a pass or a check needs.
@Suite struct ZXingScannerTests {
    let lying = BarcodeRendering.picture(BarcodeRendering.ean13("5901234123457"))

    func texts(_ image: GrayImage, _ effort: ZXingScanner.Effort) -> [String] {
        ZXingScanner.scan(image, formats: [.ean13], effort: effort, workerPath: ZXingScanner.workerPath).map(\.text)
    }

    /// Trying harder turns the picture too, unless asked to read it as it is (a check's crop already turned so that its
    /// rows cross the bars).
    @Test func onlyTheHarderEffortTurnsThePicture() {
        #expect(ZXingScanner.isAvailable)
        let standing = BarcodeRendering.rotatedClockwise(lying)
        for effort in [ZXingScanner.Effort.quick, .harder, .harderAsItIs] {
            #expect(texts(lying, effort) == ["5901234123457"], "\(effort)")
        }
        #expect(texts(standing, .harder) == ["5901234123457"])
        #expect(texts(standing, .harderAsItIs) == [])
        #expect(texts(standing, .quick) == [])
    }
}
