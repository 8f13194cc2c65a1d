import Foundation
import NestoryImaging
import Testing

@Suite struct LazyImageProcessorTests {
    final class Counter: @unchecked Sendable {
        let lock = NSLock()
        var made = 0
    }

    @Test func startsTheRealProcessorOnceOnFirstUse() async throws {
        let counter = Counter()
        let info = ImageInfo(format: .png, width: 4, height: 3, byteCount: 10)
        let lazy = LazyImageProcessor(limits: ImagingLimits()) { () throws(ImagingError) in
            counter.lock.withLock { counter.made += 1 }
            return ImageProcessingMock(probe: { _ in info })
        }
        #expect(counter.lock.withLock { counter.made } == 0)
        for _ in 0..<3 { #expect(try await lazy.probe(Data([1])) == info) }
        #expect(counter.lock.withLock { counter.made } == 1)
    }

    @Test func aFailedStartIsReportedAndRetried() async throws {
        let lazy = LazyImageProcessor(limits: ImagingLimits()) { () throws(ImagingError) in throw .processingFailed(detail: "no library") }
        await #expect(throws: ImagingError.processingFailed(detail: "no library")) { try await lazy.probe(Data([1])) }
    }
}
