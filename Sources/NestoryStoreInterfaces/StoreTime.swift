import Foundation

/// Every engine keeps times as whole milliseconds since 1970 (an integer column), so a time reads back exactly as
/// it was written, whichever engine wrote it, and copying between engines changes nothing.
extension Date {
    /// This time in whole milliseconds since 1970, rounded to the nearest.
    public var millis: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    public init(millis: Int64) { self.init(timeIntervalSince1970: Double(millis) / 1000) }
}
