import Foundation
import Logging
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

/// Nestory's store on PostgreSQL: a pool of connections (postgres-nio's `PostgresClient`) running for as long as the
/// store is open. Every query names its household; times are whole milliseconds and money whole minor units, as on
/// SQLite, so the two engines answer alike (the conformance suite checks it).
public final class PostgresStore: Sendable {
    public struct Configuration: Sendable {
        public var location: PostgresLocation
        /// A schema of its own inside the database (created when missing), else PostgreSQL's default (`public`).
        /// The tests give each test one; an operator may share a database between deployments with it.
        public var schema: String?
        /// Apply the changes this version needs when the database lacks them (else: a clear error).
        public var migrate: Bool
        /// The most connections the pool opens.
        public var maximumConnections: Int
        public var connectTimeout: Duration
        /// Where the bytes of photos, receipts and generated reports are kept (the same files every server of the
        /// deployment sees); nil: the store has no files, and adding or reading one fails.
        public var blobs: (any BlobFiles)?

        public init(location: PostgresLocation, schema: String? = nil, migrate: Bool = true, maximumConnections: Int = 20,
                    connectTimeout: Duration = .seconds(10), blobs: (any BlobFiles)? = nil) {
            self.blobs = blobs
            self.location = location
            self.schema = schema
            self.migrate = migrate
            self.maximumConnections = maximumConnections
            self.connectTimeout = connectTimeout
        }
    }

    let client: PostgresClient
    let logger: Logger
    public let location: PostgresLocation
    let blobFiles: (any BlobFiles)?
    private let runner: Task<Void, Never>

    private init(client: PostgresClient, location: PostgresLocation, blobs: (any BlobFiles)?, logger: Logger) {
        self.blobFiles = blobs
        self.client = client
        self.location = location
        self.logger = logger
        runner = Task { await client.run() }
    }

    /// Connects once to say clearly what is wrong when something is (host, TLS, password, database), brings the
    /// schema up to date (or refuses a newer one), then starts the pool.
    public static func open(_ configuration: Configuration, logger: Logger = Logger(label: "nestory.postgres")) async throws -> PostgresStore {
        let location = configuration.location
        let tls = try TLSSettings(location)
        if let schema = configuration.schema {
            guard schema.range(of: "^[a-z_][a-z0-9_]{0,62}$", options: .regularExpression) != nil else {
                throw PostgresStoreError.invalidURL("the schema name \(schema) must be lower-case letters, digits and _")
            }
        }
        // The pool starts running at once (it opens no connection before one is asked for), so it is running by
        // the time the first query leases one.
        var poolConfiguration = PostgresClient.Configuration(host: location.host, port: location.port, username: location.username,
                                                             password: location.password, database: location.database, tls: tls.clientTLS)
        poolConfiguration.options.maximumConnections = configuration.maximumConnections
        poolConfiguration.options.connectTimeout = configuration.connectTimeout
        poolConfiguration.options.tlsServerName = tls.serverName
        if let schema = configuration.schema {
            poolConfiguration.options.additionalStartupParameters = [("search_path", schema)]
        }
        let store = PostgresStore(client: PostgresClient(configuration: poolConfiguration, backgroundLogger: logger), location: location,
                                  blobs: configuration.blobs, logger: logger)
        // The first connection, of its own: classify its failure, then migrate on it.
        var probeConfiguration = PostgresConnection.Configuration(host: location.host, port: location.port, username: location.username,
                                                                  password: location.password, database: location.database,
                                                                  tls: try tls.connectionTLS())
        let (seconds, attoseconds) = configuration.connectTimeout.components
        probeConfiguration.options.connectTimeout = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        probeConfiguration.options.tlsServerName = tls.serverName
        let probe: PostgresConnection
        do {
            probe = try await PostgresConnection.connect(configuration: probeConfiguration, id: 0, logger: logger)
        } catch {
            await store.close()
            throw classify(error, location: location)
        }
        do {
            try await PostgresMigrations.bringUpToDate(probe, schema: configuration.schema, migrate: configuration.migrate, logger: logger)
            try await probe.close()
        } catch {
            try? await probe.close()
            await store.close()
            if let wrapped = error as? PostgresTransactionError, let inner = wrapped.closureError ?? wrapped.beginError ?? wrapped.commitError {
                throw translate(inner, location: location)
            }
            throw translate(error, location: location)
        }

        return store
    }

    /// Stops the pool; queries after this fail.
    public func close() async {
        runner.cancel()
        _ = await runner.value
    }

    /// The server's version, for `nestory` to report.
    public func serverVersion() async throws -> String {
        try await withStoreErrors {
            for try await version in try await client.query("SHOW server_version", logger: logger).decode(String.self) {
                return version
            }
            return "unknown"
        }
    }

    /// Every change this version knows, in order.
    public static var knownMigrations: [String] { PostgresMigrations.changes.map(\.id) }

    /// The migrations applied, in this version's order (those applied together share a time), then any this version
    /// does not know. Read only: it writes nothing, so a read-only standby answers. A database whose record of changes
    /// is gone (dropped after the store opened) needs every change: `schemaTooOld` names them.
    public func appliedMigrations() async throws -> [String] {
        let recorded = try await withStoreErrors {
            try await client.withConnection { connection in try await PostgresMigrations.applied(connection, logger: logger) }
        }
        guard let applied = recorded else { throw PostgresStoreError.schemaTooOld(missing: Self.knownMigrations) }
        let known = Self.knownMigrations
        return known.filter(applied.contains) + applied.filter { !known.contains($0) }
    }

    // MARK: - Running queries

    /// One transaction: committed when `body` returns, rolled back when it throws.
    func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await withStoreErrors {
            try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        }
    }

    /// Runs `body`, turning the database's own refusals into the domain's errors where they mean one (a unique key
    /// taken is a conflict, a missing referenced row a not-found) and a lost server into a clear error.
    @discardableResult
    func withStoreErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PSQLError {
            throw Self.translate(error, location: location)
        } catch let error as PostgresTransactionError {
            if let inner = error.closureError { throw Self.translate(inner, location: location) }
            if let inner = error.beginError ?? error.commitError { throw Self.translate(inner, location: location) }
            throw error
        }
    }

    static func translate(_ error: any Error, location: PostgresLocation) -> any Error {
        guard let error = error as? PSQLError else { return error }
        if error.code == .server {
            let state = error.serverInfo?[.sqlState] ?? ""
            switch state {
            case "23505": return DomainError.conflict("That already exists.")
            case "23503": return DomainError.notFound("What it refers to")
            case "53100": return NoSpaceLeft("the PostgreSQL server at \(location.description): \(error.serverInfo?[.message] ?? "disk full")")
            default: break
            }
        }
        return classify(error, location: location)
    }

    /// A failure to connect, or a lost connection, as an operator should read it.
    static func classify(_ error: any Error, location: PostgresLocation) -> any Error {
        let shown = location.description
        guard let error = error as? PSQLError else {
            return PostgresStoreError.unreachable(location: shown, reason: String(describing: error))
        }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            let message = error.serverInfo?[.message] ?? "no message"
            switch state {
            case "28P01", "28000": return PostgresStoreError.authenticationFailed(location: shown, user: location.username)
            case "3D000": return PostgresStoreError.databaseMissing(location: shown, database: location.database)
            default: return PostgresStoreError.refused(location: shown, message: "\(message) (\(state))")
            }
        case .sslUnsupported:
            return PostgresStoreError.tls(location: shown, reason: "the server does not offer TLS")
        case .failedToAddSSLHandler:
            return PostgresStoreError.tls(location: shown, reason: error.underlying.map { String(describing: $0) } ?? "TLS failed")
        case .authMechanismRequiresPassword:
            return PostgresStoreError.authenticationFailed(location: shown, user: location.username)
        case .connectionError:
            let reason = error.underlying.map { String(describing: $0) } ?? "the connection failed"
            if reason.contains("NIOSSL") || reason.contains("handshake") || reason.contains("certificate") {
                return PostgresStoreError.tls(location: shown, reason: reason)
            }
            return PostgresStoreError.unreachable(location: shown, reason: reason)
        default:
            return PostgresStoreError.unreachable(location: shown, reason: String(describing: error.code))
        }
    }
}

/// The URL's sslmode as postgres-nio's settings.
struct TLSSettings {
    let mode: PostgresLocation.TLSMode
    let configuration: TLSConfiguration
    let serverName: String?

    init(_ location: PostgresLocation) throws {
        mode = location.tls
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch location.tls {
        case .disable, .prefer, .require: configuration.certificateVerification = .none
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .verifyFull: configuration.certificateVerification = .fullVerification
        }
        if let path = location.rootCertificatePath {
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw PostgresStoreError.tls(location: location.description, reason: "cannot read sslrootcert \(path)")
            }
            configuration.trustRoots = .file(path)
        }
        self.configuration = configuration
        // A host name is sent for SNI and checked; an address is not.
        let isAddress = location.host.contains(":") || location.host.allSatisfy { $0.isNumber || $0 == "." }
        serverName = isAddress ? nil : location.host
    }

    var clientTLS: PostgresClient.Configuration.TLS {
        switch mode {
        case .disable: return .disable
        case .prefer: return .prefer(configuration)
        case .require, .verifyCA, .verifyFull: return .require(configuration)
        }
    }

    func connectionTLS() throws -> PostgresConnection.Configuration.TLS {
        switch mode {
        case .disable: return .disable
        case .prefer: return .prefer(try NIOSSLContext(configuration: configuration))
        case .require, .verifyCA, .verifyFull: return .require(try NIOSSLContext(configuration: configuration))
        }
    }
}

extension PostgresStore {
    /// Records a change this version does not know, as a newer Nestory would have: for the test that such a
    /// database is refused.
    package func recordMigrationForTests(_ id: String) async throws {
        try await withStoreErrors { try await client.query("INSERT INTO nestory_migration (id) VALUES (\(id))", logger: logger) }
    }
}
