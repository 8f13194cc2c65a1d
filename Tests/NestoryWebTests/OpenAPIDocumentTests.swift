import Foundation
import Hummingbird
import Testing
@testable import NestoryWeb

/// The document is the contract (issue 20): every route under /api/v1 is in it, and every path in it is routed.
@Suite struct OpenAPIDocumentTests {
    @Test func theDocumentAndTheRouterDescribeTheSameOperations() throws {
        let app = try TestApp()
        let router = buildRouter(app.dependencies)
        let routed = Set(router.routes.compactMap { route -> String? in
            let path = "/" + route.path.description.split(separator: "/").joined(separator: "/")
            guard path.hasPrefix("/api/v1/") else { return nil }
            return "\(route.method.rawValue) \(OpenAPIContract.normalized(String(path.dropFirst("/api/v1".count))))"
        })
        #expect(routed.count > 30)
        let documented = OpenAPIContract.shared.operations
        #expect(routed.subtracting(documented).sorted() == [], "routed but not documented")
        #expect(documented.subtracting(routed).sorted() == [], "documented but not routed")
    }

    @Test func theCheckerRefusesAnswersOutsideTheSchema() throws {
        let contract = OpenAPIContract.shared
        let json = "application/json"
        let good = #"{"error":{"code":"not_found","message":"The item was not found."}}"#
        #expect(contract.problems(method: "GET", path: "/items/\(UUID())", status: 404, contentType: json, body: Data(good.utf8)) == [])
        let bad = #"{"error":{"code":5}}"#
        let found = contract.problems(method: "GET", path: "/items/\(UUID())", status: 404, contentType: json, body: Data(bad.utf8))
        #expect(found.contains { $0.contains("$.error.code: integer where string was expected") })
        #expect(found.contains { $0.contains("$.error: message is missing") })
        #expect(contract.problems(method: "GET", path: "/nowhere", status: 200, contentType: json, body: Data("{}".utf8)) != [])
        let summary = contract.problems(method: "GET", path: "/summary", status: 200, contentType: json, body: Data(#"{"itemCount":"x"}"#.utf8))
        #expect(!summary.isEmpty)
    }
}
