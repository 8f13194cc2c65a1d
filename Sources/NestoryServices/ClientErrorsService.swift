import Foundation
import NestoryStoreInterfaces

/// The pages' reports of their own non-fatal errors, which go to the log. A signed-in session may send a few a
/// minute, counted on every server together (`RequestBudget`): a page stuck in a loop must not fill the log.
public struct ClientErrorsService: Sendable {
    /// Error reports per session and minute.
    public static let perMinute = 5
    let budget: any RequestBudget
    let now: @Sendable () -> Date

    public init(budget: any RequestBudget, now: @escaping @Sendable () -> Date = Date.init) {
        self.budget = budget
        self.now = now
    }

    /// Counts one report from the session with this token hash: nil when it may be logged, else the whole seconds
    /// to wait before the next.
    public func admit(session tokenHash: String) async throws -> Int? {
        try await budget.admit("client-errors:\(tokenHash)", limit: Self.perMinute, at: now())
    }
}
