import Foundation
import NestoryBarcodes
import NestoryBarcodesLive
import Testing

/// The reader's stage timings (`bench-barcodes --stages`): every stage a read went through is counted, under its name.
@Suite struct BarcodeTimingsTests {
    let png = BarcodeRendering.png(BarcodeRendering.picture(BarcodeReaderTests.samples[0].modules))

    func calls(_ timings: BarcodeTimings) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: timings.stages.map { ($0.name, $0.calls) })
    }

    @Test func zxingsReadConfirmedAroundItIsThreeStages() throws {
        // A small code in a large picture, so zbar confirms zxing's read on the area around it.
        var image = BarcodeRendering.blank(width: 1200, height: 900)
        BarcodeRendering.draw(BarcodeReaderTests.samples[0].modules, into: &image, x: 700, y: 560, moduleWidth: 2, barHeight: 80)
        let png = BarcodeRendering.png(image)
        let timings = BarcodeTimings()
        let start = DispatchTime.now().uptimeNanoseconds
        let timed = try BarcodeReader(options: .init(timings: timings)).decode(imageData: png)
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        // Measuring changes nothing about the reads.
        let plain = try BarcodeReader().decode(imageData: png)
        #expect(timed.map(\.text) == plain.map(\.text) && timed.map(\.passes) == plain.map(\.passes))
        #expect(timed.first?.passes == ["zxing", "original"])
        // The picture is loaded, zxing reads it (its picture is the one loaded: one preparation), zbar confirms around
        // zxing's read: nothing else ran.
        #expect(calls(timings) == [
            BarcodeTimings.Name.load: 1, BarcodeTimings.Name.prepare: 1, "zxing": 1, BarcodeTimings.Name.aroundZXingReads: 1,
        ])
        // One thread here (the first two passes run in turn), and no stage inside another: together they fit in the call.
        #expect(timings.stages.reduce(0) { $0 + $1.milliseconds } <= wall)
    }

    @Test func aZBarReadIsCheckedByZXing() throws {
        let timings = BarcodeTimings()
        let codes = try BarcodeReader(options: .init(passes: [.original], timings: timings)).decode(imageData: png)
        #expect(codes.first?.passes == ["original", "zxing-cross-check"])
        #expect(calls(timings)[BarcodeTimings.Name.checkByZXing] == 1)
        #expect(calls(timings)["original"] == 1)
    }

    @Test func stagesAddUpOverCallsUntilReset() throws {
        let timings = BarcodeTimings()
        let reader = BarcodeReader(options: .init(timings: timings))
        _ = try reader.decode(imageData: png)
        _ = try reader.decode(imageData: png)
        #expect(calls(timings)[BarcodeTimings.Name.load] == 2)
        #expect(calls(timings)["zxing"] == 2)
        // A picture that cannot be loaded is still a load.
        #expect(throws: BarcodeReaderError.self) { try reader.decode(imageData: Data("not a picture".utf8)) }
        #expect(calls(timings)[BarcodeTimings.Name.load] == 3)
        timings.reset()
        #expect(timings.stages.isEmpty)
        // The stages come longest first.
        _ = try reader.decode(imageData: png)
        let times = timings.stages.map(\.milliseconds)
        #expect(times == times.sorted(by: >))
    }
}
