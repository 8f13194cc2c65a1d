import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NestoryAuth
import NestoryDomain
import NestoryStore
import Testing

/// The server keeps recent sessions in memory; a change made by another process must still end them.
@Suite(.serialized) struct SessionCommandTests {
    @Test func aPasswordChangedFromTheCommandLineEndsTheRunningServersSessionsAtOnce() async throws {
        let folder = CLI.Folder()
        let added = try CLI.run(["user", "add", "ann@example.com", "--household", "Smiths", "--data", folder.path],
                                stdin: "correct horse battery\n")
        #expect(added.status == 0, "\(added.stderr)")
        // A session as sign-in makes it (stored as the token's hash), written by this test process.
        let token = SessionToken.generate()
        do {
            let database = try AppDatabase.open(DataFolder(path: folder.path))
            let user = try #require(try database.userCredentials(email: "ann@example.com")?.user)
            try database.createSession(tokenHash: SessionToken.hash(token), userID: user.id, csrfToken: SessionToken.generate(),
                                       now: Date(), expiresAt: Date().addingTimeInterval(3600))
            try database.close()
        }

        let server = try CLI.Server(folder: folder)
        defer { server.stop() }
        let port = server.port

        func status(_ path: String, token: String? = nil) async -> Int? {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
            request.httpShouldHandleCookies = false
            if let token { request.setValue("nestory_session=\(token)", forHTTPHeaderField: "Cookie") }
            return ((try? await URLSession.shared.data(for: request))?.1 as? HTTPURLResponse)?.statusCode
        }
        let up = await server.health() != nil
        try #require(up, "the server did not answer within 30 s")

        #expect(await status("/api/v1/items", token: token) == 200)
        #expect(await status("/api/v1/items", token: token) == 200)  // now from the server's cache
        #expect(await status("/api/v1/items", token: "not-a-session") == 401)

        let changed = try CLI.run(["user", "password", "ann@example.com", "--data", folder.path], stdin: "a different long passphrase\n")
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(await status("/api/v1/items", token: token) == 401)
    }

    @Test func signingAnAccountOutEverywhereEndsItsSessionsAndPasskeys() throws {
        let folder = CLI.Folder()
        #expect(try CLI.run(["user", "add", "ann@example.com", "--household", "Smiths", "--data", folder.path],
                            stdin: "correct horse battery\n").status == 0)
        let user: User
        do {
            let database = try AppDatabase.open(DataFolder(path: folder.path))
            user = try #require(try database.userCredentials(email: "ann@example.com")?.user)
            for _ in 0..<2 {
                try database.createSession(tokenHash: SessionToken.hash(SessionToken.generate()), userID: user.id, csrfToken: "c", now: Date(),
                                           expiresAt: Date().addingTimeInterval(3600))
            }
            _ = try database.addPasskey(userID: user.id, credentialID: [1], name: "Phone", publicKey: [4], signCount: 0, backupEligible: false,
                                        now: Date())
            try database.close()
        }
        let kept = try CLI.run(["user", "signout", "ANN@example.com", "--data", folder.path])
        #expect(kept.status == 0 && kept.stdout.contains("Signed ann@example.com out of 2 sessions."), "\(kept.stderr)")
        let removed = try CLI.run(["user", "signout", "ann@example.com", "--passkeys", "--data", folder.path])
        #expect(removed.stdout.contains("out of 0 sessions and removed 1 passkey."), "\(removed.stdout)")
        let database = try AppDatabase.open(DataFolder(path: folder.path))
        #expect(try database.sessions(of: user.id, now: Date()).isEmpty && database.passkeys(of: user.id).isEmpty)
        #expect(try CLI.run(["user", "signout", "nobody@example.com", "--data", folder.path]).status != 0)
    }
}
