import Foundation
import Hummingbird
import Logging
import NestoryDomain
import NestoryStore

/// Where the server listens.
public struct ServerConfiguration: Sendable {
    public var host: String
    public var port: Int

    public init(host: String = "127.0.0.1", port: Int = 8080) {
        self.host = host
        self.port = port
    }
}

/// The live dependencies the web module is given (by the bootstrap, or by tests).
public struct WebDependencies: Sendable {
    public let database: AppDatabase
    public let now: @Sendable () -> Date

    public init(database: AppDatabase, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.now = now
    }
}

/// The request context every route gets.
public typealias AppRequestContext = BasicRequestContext

/// The router, apart from the server, so tests can drive it directly.
public func buildRouter(_ dependencies: WebDependencies) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    router.add(middleware: ErrorMiddleware())
    HealthController(database: dependencies.database).addRoutes(to: router)
    return router
}

/// The whole application: the router served on the configured address.
public func buildApplication(_ dependencies: WebDependencies, configuration: ServerConfiguration,
                             logger: Logger = Logger(label: "nestory")) -> some ApplicationProtocol {
    Application(
        router: buildRouter(dependencies),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Nestory"),
        logger: logger
    )
}
