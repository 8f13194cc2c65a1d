import Foundation
import NestoryImaging
@testable import NestoryImagingLive
import Testing

/// All imaging tests run one at a time: the leak and memory checks read process-wide counters that
/// a test running beside them would disturb. The whole suite takes a few seconds.
@Suite(.serialized)
struct ImagingTests {
    let imaging: LibvipsImageProcessor
    let folder: Fixtures.Folder

    init() throws {
        imaging = try LibvipsImageProcessor()
        folder = try Fixtures.Folder()
    }

    /// Expects `body` to throw exactly `expected` (an `ImagingError` case, compared by its code).
    func expectError(
        _ expectedCode: String,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws(ImagingError) -> Void
    ) async {
        do {
            try await body()
            Issue.record("expected \(expectedCode), but nothing was thrown", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == expectedCode, "got \(error)", sourceLocation: sourceLocation)
        }
    }
}
