import Foundation
import Hummingbird
import HummingbirdTesting
import NestoryStore
import Testing
@testable import NestoryWeb

@Suite struct HealthTests {
    func withApp(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-web-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let database = try AppDatabase.open(DataFolder(path: path))
        let app = Application(router: buildRouter(WebDependencies(database: database)))
        try await app.test(.router) { client in try await body(client) }
    }

    @Test func healthReportsVersionAndSchema() async throws {
        try await withApp { client in
            try await client.execute(uri: "/health", method: .get) { response in
                #expect(response.status == .ok)
                let json = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: String]
                #expect(json?["status"] == "ok")
                #expect(json?["schema"] == AppDatabase.knownMigrations.last)
            }
        }
    }

    @Test func unknownRoutesGetAJSONError() async throws {
        try await withApp { client in
            try await client.execute(uri: "/no/such/page", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
                let json = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: [String: Any]]
                #expect(json?["error"]?["code"] as? String == "not_found")
            }
        }
    }
}
