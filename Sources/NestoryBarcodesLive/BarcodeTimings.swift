import Foundation
import Synchronization

/// Where a ``BarcodeReader``'s time goes, stage by stage, summed over every call: loading the picture, preparing each
/// pass's picture, each pass's decoder, zbar around zxing's reads, and the cross-checks. For benchmarks (`bench-barcodes
/// --stages`); a reader without one (``BarcodeReader/Options/timings`` nil, the default) measures nothing. Passes that
/// run on two threads add up their own times, so the stages can sum to more than the wall time.
public final class BarcodeTimings: Sendable {
    /// One stage's calls and the milliseconds they took in all.
    public struct Stage: Sendable, Equatable {
        public let name: String
        public let calls: Int
        public let milliseconds: Double
    }

    /// The stages' names besides the passes' own (a pass's decoder call is named after the pass, ``BarcodeReader/Pass``).
    public enum Name {
        public static let load = "load"
        public static let prepare = "prepare pictures"
        public static let aroundZXingReads = "original, around zxing's reads"
        public static let checkByZXing = "cross-check by zxing"
        public static let checkByZBar = "cross-check by zbar"
    }

    private let totals = Mutex<[String: (calls: Int, nanoseconds: UInt64)]>([:])

    public init() {}

    /// Runs `body`, adding its time to `stage`.
    func measure<T, Failure: Error>(_ stage: String, _ body: () throws(Failure) -> T) throws(Failure) -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        defer {
            let elapsed = DispatchTime.now().uptimeNanoseconds - start
            totals.withLock { $0[stage, default: (0, 0)].calls += 1; $0[stage, default: (0, 0)].nanoseconds += elapsed }
        }
        return try body()
    }

    /// Every stage measured so far, the longest first.
    public var stages: [Stage] {
        totals.withLock { totals in
            totals.map { Stage(name: $0.key, calls: $0.value.calls, milliseconds: Double($0.value.nanoseconds) / 1e6) }
        }.sorted { ($0.milliseconds, $1.name) > ($1.milliseconds, $0.name) }
    }

    /// Forgets what was measured (after a warm-up).
    public func reset() {
        totals.withLock { $0 = [:] }
    }
}

extension Optional where Wrapped == BarcodeTimings {
    /// `body`'s result, its time added to `stage` when there are timings.
    func measure<T, Failure: Error>(_ stage: String, _ body: () throws(Failure) -> T) throws(Failure) -> T {
        switch self {
        case .some(let timings): return try timings.measure(stage, body)
        case .none: return try body()
        }
    }
}
