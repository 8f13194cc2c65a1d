import Foundation
import HTTPTypes
import Hummingbird
import NestoryDomain

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

    /// The first value of each name (a page's query, for the views that keep their state in the URL).
    var first: [String: String] { values.compactMapValues(\.first) }

    /// Reads and decodes a form body (at most the context's upload limit).
    static func read(_ request: Request, context: AppRequestContext) async throws -> Form {
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        return Form(String(buffer: buffer))
    }
}

extension Request {
    /// The URL's query, decoded as a browser's form writes it (`+` is a space: a GET form's "walnut desk"
    /// arrives as `q=walnut+desk`), the same way as a form body. Hummingbird's `uri.queryParameters` keeps
    /// the `+`, so the query is read here, in one place.
    var query: Form { Form(uri.query ?? "") }

    /// The page's one-off notice (`?notice=`: what a redirect or the script says just happened), only on a page
    /// reached from this site. A link from anywhere else (`Sec-Fetch-Site` cross-site, same-site or none) cannot put
    /// words in the app's mouth; a client that sends no Sec-Fetch headers (an old browser, the tests) is believed.
    var notice: String? {
        guard let site = headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin" else { return query["notice"] }
        return nil
    }
}

