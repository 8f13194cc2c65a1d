import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import NestoryCLI
import NIOCore
import Testing

/// `nestory serve` when it cannot listen: one line that says why and what to do, and no claim that it is serving.
@Suite struct ServeTests {
    @Test func aPortInUseIsSaidPlainly() async throws {
        let folder = CLI.Folder()
        let first = try CLI.Server(folder: folder)
        defer { first.stop() }
        let up = await first.health() != nil
        try #require(up, "the first server did not answer within 30 s: \(first.story)")
        let second = try CLI.run(["serve", "--data", folder.path, "--port", String(first.port)])
        #expect(second.status != 0)
        #expect(second.stderr.hasSuffix("Error: Port \(first.port) on 127.0.0.1 is already in use (another Nestory, or another program, listens there): stop it, or choose another port with --port or the setting port.\n"),
                "\(second.stderr)")
        #expect(!second.stderr.contains("serving http"), "\(second.stderr)")
        #expect(first.log.contains("serving http://127.0.0.1:\(first.port)"))
    }

    /// A calendar feed's address is its secret: the request log shows the path without it.
    @Test func theRequestLogLeavesACalendarFeedsSecretOut() async throws {
        let folder = CLI.Folder()
        let server = try CLI.Server(folder: folder)
        defer { server.stop() }
        let up = await server.health() != nil
        try #require(up, "the server did not answer within 30 s: \(server.story)")
        let secret = "k3Ep-Th1s-0ut-of-the-logs"
        // A session of its own, not the shared one the other suites' live-server tests use at the same time.
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        _ = try await session.data(from: URL(string: "http://127.0.0.1:\(server.port)/calendar/\(secret).ics")!)
        _ = try await session.data(from: URL(string: "http://127.0.0.1:\(server.port)/items/seen-in-the-log")!)
        // The log is written as the answers go; wait for the second line.
        for _ in 0..<100 where !server.log.contains("seen-in-the-log") { try await Task.sleep(for: .milliseconds(50)) }
        #expect(server.log.contains("path=/calendar/(secret)") && server.log.contains("path=/items/seen-in-the-log"), "\(server.story)")
        #expect(server.log.contains("client=127.0.0.1"), "the connection's address is in the access log: \(server.story)")
        #expect(!server.log.contains(secret))
    }

    @Test func eachListenFailureNamesItsRemedy() {
        #expect(Serve.listenFailure(IOError(errnoCode: EACCES, reason: "bind"), host: "0.0.0.0", port: 80)?.description
            .hasPrefix("This user may not listen on port 80") == true)
        #expect(Serve.listenFailure(IOError(errnoCode: EADDRNOTAVAIL, reason: "bind"), host: "10.9.8.7", port: 8080)?.description
            .hasPrefix("10.9.8.7 is not an address of this machine") == true)
        #expect(Serve.listenFailure(IOError(errnoCode: ECONNRESET, reason: "read"), host: "127.0.0.1", port: 8080) == nil)
    }
}
