import Foundation
import HTTPTypes
import Hummingbird
import MCP
import NestoryDomain
import NestoryMCP
import NestoryServices

/// The hosts and origins the MCP endpoint accepts (DNS-rebinding protection), beside this machine's
/// (`mcp.allowedHosts`, `mcp.allowedOrigins`: e.g. `nestory.example` and `https://nestory.example`).
public struct MCPSettings: Sendable {
    public var allowedHosts: [String]
    public var allowedOrigins: [String]

    public init(allowedHosts: [String] = [], allowedOrigins: [String] = []) {
        (self.allowedHosts, self.allowedOrigins) = (allowedHosts, allowedOrigins)
    }

    var validator: OriginValidator {
        let local = OriginValidator.localhost()
        return OriginValidator(allowedHosts: local.allowedHosts + allowedHosts, allowedOrigins: local.allowedOrigins + allowedOrigins)
    }
}

/// MCP over Streamable HTTP at `/mcp`, with a bearer token (issue 20). Each session (`Mcp-Session-Id`, made at
/// `initialize`) has its own MCP server bound to the token's household, and only that token may use it. The SDK's
/// stateful transport answers a request as an SSE stream; this endpoint answers it as one JSON message (the spec allows
/// either, and its tools send nothing unasked), which every client reads, including the SDK's on Linux.
struct MCPController {
    let dependencies: WebDependencies
    let sessions = MCPSessions()

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post("mcp", use: handle)
        // No standalone SSE stream for server-initiated messages (the tools send none): 405, which the spec allows.
        router.get("mcp") { _, context in
            _ = try context.requireViewer()
            return Response(status: .methodNotAllowed, headers: [.allow: "POST, DELETE"])
        }
        router.delete("mcp", use: handle)
    }

    @Sendable func handle(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        guard let grant = viewer.token else { throw WebError.forbidden("MCP takes an API token (Authorization: Bearer).") }
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        if let authority = request.head.authority { headers["Host"] = authority }
        let body = request.method == .post ? Data(buffer: try await request.body.collect(upTo: context.maxUploadSize)) : nil
        let mcpRequest = MCP.HTTPRequest(method: request.method.rawValue, headers: headers, body: body, path: request.uri.path)

        let transport: StatefulHTTPServerTransport
        var isNew = false
        if let id = request.headers[HTTPField.Name(HTTPHeaderName.sessionID)!] {
            guard let found = await sessions.transport(id, token: grant.id) else {
                return Self.jsonRPCError(.notFound, "No such MCP session (it ended, or belongs to another token).")
            }
            transport = found
        } else {
            guard request.method == .post else { return Self.jsonRPCError(.badRequest, "Start a session with initialize first.") }
            transport = StatefulHTTPServerTransport(validationPipeline: StandardValidationPipeline(validators: [
                dependencies.mcp.validator, AcceptHeaderValidator(mode: .sseRequired), ContentTypeValidator(),
                ProtocolVersionValidator(), SessionValidator(),
            ]))
            let mcp = NestoryMCP(items: dependencies.items, places: dependencies.places, reports: dependencies.services.reports,
                                 valuations: dependencies.services.valuations, receipts: dependencies.services.receipts,
                                 origin: viewer.origin ?? request.head.authority.map { (dependencies.cookies.secure ? "https://" : "http://") + $0 })
            let server = await mcp.server(for: MCPAccess(user: viewer.user.id, household: viewer.household, scope: grant.scope))
            try await server.start(transport: transport)
            isNew = true
        }
        let answer = await transport.handleRequest(mcpRequest)
        if let id = answer.headers[HTTPHeaderName.sessionID] {
            if isNew { await sessions.keep(id, transport: transport, token: grant.id) }
            if request.method == .delete { await sessions.end(id) }
        } else if isNew {
            await transport.disconnect()
        }
        return try await Self.response(answer)
    }

    static func response(_ answer: MCP.HTTPResponse) async throws -> Response {
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            guard let field = HTTPField.Name(name), name.lowercased() != "connection", name.lowercased() != "cache-control" else { continue }
            fields[field] = value
        }
        let status = HTTPResponse.Status(code: answer.statusCode)
        switch answer {
        case .stream(let stream, _):
            // The request's answer: the last JSON-RPC message with an id and a result or an error.
            var message = Data()
            var buffer = ""
            streaming: for try await chunk in stream {
                buffer += String(decoding: chunk, as: UTF8.self)
                while let end = buffer.range(of: "\n\n") {
                    let event = String(buffer[..<end.lowerBound])
                    buffer = String(buffer[end.upperBound...])
                    let data = event.split(separator: "\n").filter { $0.hasPrefix("data:") }
                        .map { $0.dropFirst(5).trimmingCharacters(in: .whitespaces) }.joined(separator: "\n")
                    guard !data.isEmpty else { continue }
                    message = Data(data.utf8)
                    if let object = try? JSONSerialization.jsonObject(with: message) as? [String: Any], object["id"] != nil,
                       object["result"] != nil || object["error"] != nil {
                        break streaming
                    }
                }
            }
            fields[.contentType] = "application/json"
            fields[.cacheControl] = "no-store"
            return Response(status: .ok, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: message)))
        default:
            return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: answer.bodyData ?? Data())))
        }
    }

    static func jsonRPCError(_ status: HTTPResponse.Status, _ message: String) -> Response {
        let body = #"{"jsonrpc":"2.0","error":{"code":-32600,"message":"\#(message)"},"id":null}"#
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}

/// The live MCP sessions: each one's transport (and through it its server) and the token that made it.
actor MCPSessions {
    private var sessions: [String: (transport: StatefulHTTPServerTransport, token: String)] = [:]

    func keep(_ id: String, transport: StatefulHTTPServerTransport, token: String) {
        sessions[id] = (transport, token)
    }

    func transport(_ id: String, token: String) -> StatefulHTTPServerTransport? {
        guard let found = sessions[id], found.token == token else { return nil }
        return found.transport
    }

    func end(_ id: String) {
        sessions[id] = nil
    }
}
