import Foundation
import Hummingbird

/// A decoded `application/x-www-form-urlencoded` body.
struct Form: Sendable {
    private(set) var values: [String: [String]] = [:]

    init(_ body: String) {
        for pair in body.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (s: Substring) in String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            values[decode(parts[0]), default: []].append(parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    subscript(key: String) -> String? { values[key]?.first }

    func all(_ key: String) -> [String] { values[key] ?? [] }

    /// Reads and decodes a form body (at most the context's upload limit).
    static func read(_ request: Request, context: AppRequestContext) async throws -> Form {
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        return Form(String(buffer: buffer))
    }
}
