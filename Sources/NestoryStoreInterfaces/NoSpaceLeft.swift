import Foundation

/// The disk that holds the data is full (the data folder's, an account's quota on it, or the database server's):
/// nothing was written. Whoever runs Nestory has to free space; trying again before that does not help.
public struct NoSpaceLeft: Error, Equatable, Sendable, CustomStringConvertible {
    /// Where, and what the system said.
    public let detail: String

    public init(_ detail: String) { self.detail = detail }

    public var description: String {
        "There is no space left on the disk that holds Nestory's data (\(detail)); nothing was saved. Free some space and try again."
    }
}
