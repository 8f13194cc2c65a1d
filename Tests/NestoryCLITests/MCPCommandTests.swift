import Foundation
import MCP
import NestoryChildProcess
import SystemPackage
import Testing

/// `nestory mcp` over stdio (issue 20), driven by the SDK's client through the child's standard input and output.
@Suite(.serialized) struct MCPCommandTests {
    static func start(folder: CLI.Folder, token: String, environment extra: [String: String] = [:]) throws -> (ChildProcess, Client, StdioTransport) {
        var environment = ProcessInfo.processInfo.environment
        environment["NESTORY_TOKEN"] = token
        environment.merge(extra) { $1 }
        let process = try ChildProcess(executable: CLI.binary.path, arguments: ["mcp", "--data", folder.path], environment: environment)
        // The descriptors stay the process's (it closes them when it goes): keep it as long as the transport.
        let transport = StdioTransport(input: FileDescriptor(rawValue: try #require(process.output)), output: FileDescriptor(rawValue: process.input))
        return (process, Client(name: "nestory-tests", version: "1"), transport)
    }

    @Test func anAssistantOnThisMachineUsesTheInventoryWithinTheTokensScope() async throws {
        let folder = CLI.Folder()
        #expect(try CLI.run(["user", "add", "ann@example.com", "--household", "Smiths", "--data", folder.path],
                            stdin: "correct horse battery\n").status == 0)
        let write = try CLI.run(["token", "create", "ann@example.com", "--name", "w", "--scope", "write", "--data", folder.path])
        let read = try CLI.run(["token", "create", "ann@example.com", "--name", "r", "--scope", "read", "--data", folder.path])
        try #require(write.status == 0 && read.status == 0)

        let (writerProcess, writer, writerTransport) = try Self.start(folder: folder, token: write.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        defer { writerProcess.signal(SIGTERM) }
        _ = try await writer.connect(transport: writerTransport)
        // Everything but start_report and start_loss_list (reports are made by the server).
        #expect(try await writer.listTools().tools.count == 8)
        let added = try await writer.callTool(name: "add_item", arguments: ["name": "Record player", "price": "320.00"])
        #expect(added.isError == false)
        let found = try await writer.callTool(name: "search_items", arguments: ["query": "record"])
        let text = found.content.compactMap { if case .text(let text, _, _) = $0 { return text } else { return nil } }.joined()
        #expect(text.contains("Record player") && text.contains("\"amount\":\"320.00\""))
        await writer.disconnect()

        let (readerProcess, reader, readerTransport) = try Self.start(folder: folder, token: read.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        defer { readerProcess.signal(SIGTERM) }
        _ = try await reader.connect(transport: readerTransport)
        let tools = try await reader.listTools().tools
        #expect(tools.count == 5 && tools.allSatisfy { $0.annotations.readOnlyHint == true })
        let refused = try await reader.callTool(name: "update_item", arguments: ["id": "x", "name": "y"])
        #expect(refused.isError == true)
        await reader.disconnect()

        // A token that is not valid: the command refuses to start.
        let bad = try CLI.run(["mcp", "--data", folder.path], environment: ["NESTORY_TOKEN": "nst_nope"])
        #expect(bad.status != 0 && bad.stderr.contains("not valid"))
    }
}
