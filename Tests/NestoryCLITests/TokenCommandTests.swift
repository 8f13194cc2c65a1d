import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `nestory token create|list|revoke` against a running server: the printed token works as a bearer token, the list
/// shows it (never the token), and revoking it from the command line ends it at the server's next request.
@Suite(.serialized) struct TokenCommandTests {
    @Test func aTokenMadeOnTheCommandLineWorksUntilRevoked() async throws {
        let folder = CLI.Folder()
        #expect(try CLI.run(["user", "add", "ann@example.com", "--household", "Smiths", "--data", folder.path],
                            stdin: "correct horse battery\n").status == 0)
        let made = try CLI.run(["token", "create", "ann@example.com", "--name", "Script", "--scope", "read", "--data", folder.path])
        #expect(made.status == 0, "\(made.stderr)")
        let token = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("nst_"))
        let bad = try CLI.run(["token", "create", "ann@example.com", "--name", "X", "--scope", "admin", "--data", folder.path])
        #expect(bad.status != 0 && bad.stderr.contains("read or write"))
        let list = try CLI.run(["token", "list", "ann@example.com", "--data", folder.path])
        #expect(list.status == 0 && list.stdout.contains("Script") && list.stdout.contains("read") && !list.stdout.contains(token))
        let id = String(list.stdout.prefix { $0 != "\t" })

        let server = try CLI.Server(folder: folder)
        defer { server.stop() }
        let up = await server.health() != nil
        try #require(up, "the server did not answer within 30 s")
        func status(_ path: String, _ method: String = "GET") async -> Int? {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
            request.httpMethod = method
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            return ((try? await URLSession.shared.data(for: request))?.1 as? HTTPURLResponse)?.statusCode
        }
        #expect(await status("/api/v1/items") == 200)
        #expect(await status("/api/v1/items", "POST") == 403)  // read-only
        #expect(try CLI.run(["token", "revoke", "ann@example.com", id, "--data", folder.path]).status == 0)
        #expect(await status("/api/v1/items") == 401)
    }
}
