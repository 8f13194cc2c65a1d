import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NestoryChildProcess
import NestoryDemo
import Testing

/// What libvips says about a damaged picture: a line of the server's log (its format, its level), and nothing on the
/// command line, which prints its own error.
@Suite struct LibvipsMessageTests {
    /// A JPEG cut in half, from the test's own PNG through the `vips` command (libvips-tools, as the imaging tests use).
    static func halfAJPEG(in folder: CLI.Folder) throws -> URL {
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        let png = URL(fileURLWithPath: folder.path).appendingPathComponent("code.png")
        let jpeg = URL(fileURLWithPath: folder.path).appendingPathComponent("whole.jpg")
        try DemoBarcodes.ean13PNG("4006381333931").write(to: png)
        let made = try ChildProcess.run("/usr/bin/env", ["vips", "copy", png.path, jpeg.path + "[Q=90]"])
        try #require(made.exitCode == 0, "\(made.errorText)")
        let whole = try Data(contentsOf: jpeg)
        let half = URL(fileURLWithPath: folder.path).appendingPathComponent("half.jpg")
        try whole.prefix(whole.count / 2).write(to: half)
        return half
    }

    @Test func theCommandLinePrintsOnlyItsOwnError() throws {
        let folder = CLI.Folder()
        let half = try Self.halfAJPEG(in: folder)
        let result = try CLI.run(["barcode", "read", half.path])
        #expect(result.status != 0)
        #expect(result.stderr == "Error: \(half.path): The image is damaged or incomplete and could not be read.\n", "\(result.stderr)")
    }

    @Test func theServerLogsItAsAWarningOfItsOwn() async throws {
        let folder = CLI.Folder()
        let half = try Self.halfAJPEG(in: folder)
        #expect(try CLI.run(["user", "add", "ann@example.com", "--household", "Smiths", "--data", folder.path],
                            stdin: "correct horse battery\n").status == 0)
        let made = try CLI.run(["token", "create", "ann@example.com", "--name", "Script", "--scope", "write", "--data", folder.path])
        let token = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try CLI.Server(folder: folder)
        defer { server.stop() }
        let up = await server.health() != nil
        try #require(up, "the server did not answer within 30 s")
        func post(_ path: String, _ body: Data) async throws -> (Int, Data) {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
            request.httpMethod = "POST"
            request.httpBody = body
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            let (data, response) = try await URLSession.shared.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
        }
        let (created, item) = try await post("/api/v1/items", Data(#"{"name":"Lamp"}"#.utf8))
        try #require(created == 201, "\(String(decoding: item, as: UTF8.self))")
        struct Item: Decodable { let id: String }
        let id = try JSONDecoder().decode(Item.self, from: item).id
        let (status, _) = try await post("/api/v1/items/\(id)/photos", try Data(contentsOf: half))
        #expect(status == 422)
        let lines = server.log.split(separator: "\n")
        #expect(lines.contains { $0.contains(" warning nestory.libvips: ") }, "\(server.story)")
        #expect(!server.log.contains("VIPS-WARNING"), "\(server.story)")
    }
}
