import ArgumentParser
import Foundation
import MCP
import NestoryDomain
import NestoryImaging
import NestoryImagingLive
import NestoryMCP
import NestoryServices
import NestoryStore
import NestoryStoreInterfaces

/// `nestory mcp`: the MCP server over stdio, for an assistant on this machine, acting with a personal API token
/// (its household and scope) on the data folder directly.
struct MCPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp", abstract: "Serve MCP (Model Context Protocol) over standard input and output, with an API token.",
        discussion: """
            The token (NESTORY_TOKEN, or --token) chooses the household and what is allowed: a read token gets only the \
            read-only tools. Messages go over stdin/stdout; logs to stderr. For an assistant on another machine, use \
            /mcp on the server (Streamable HTTP, Authorization: Bearer).
            """)

    @OptionGroup var data: DataOptions

    @Option(help: "The API token (better: NESTORY_TOKEN, which other users cannot see).")
    var token: String?

    func run() async throws {
        guard let token = token ?? ProcessInfo.processInfo.environment["NESTORY_TOKEN"], !token.isEmpty else {
            throw CLIError("No token: set NESTORY_TOKEN (make one with `nestory token create`).")
        }
        let settings = try await data.settings()
        let secrets = try settings.secretKeys() ?? .folder(data.folder)
        try await data.withDatabase(.readCurrent) { database in
            let blocking = BlockingPool(label: "nestory.mcp", width: 2)
            let stores = database.stores
            guard let access = try await TokenService(stores: stores).authenticate(token) else {
                throw CLIError("That token is not valid: it was revoked, it expired, or its account left the household.")
            }
            let imagingLimits = ImagingLimits(maxFileBytes: Int(settings.limits.maxPhotoBytes))
            let imaging = LazyImageProcessor(limits: imagingLimits) { () throws(ImagingError) in try LibvipsImageProcessor(limits: imagingLimits) }
            let items = ItemsService(items: stores.items, attachments: stores.attachments, accounts: stores.accounts, reminders: stores.reminders,
                                     files: stores.files, renditions: RenditionCache(folder: data.folder), imaging: imaging, blocking: blocking,
                                     maxBytes: settings.limits.maxPhotoBytes, plan: settings.plan(stores.licences))
            let valuations = ValuationService(store: stores.valuations, items: stores.items, accounts: stores.accounts, jobs: stores.jobs,
                                              attachments: stores.attachments, secrets: secrets, providers: UnavailableValuationProviders(),
                                              defaults: ValuationDefaults())
            let mcp = NestoryMCP(items: items, places: PlacesService(items: stores.items), valuations: valuations)
            let server = await mcp.server(for: MCPAccess(user: access.user.id, household: access.household, scope: access.scope))
            try await server.start(transport: StdioTransport())
            await server.waitUntilCompleted()
        }
    }
}
