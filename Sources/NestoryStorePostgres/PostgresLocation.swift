import Foundation

/// Where a PostgreSQL database is and how to reach it, from a `postgres://` URL as libpq writes them:
/// `postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=MODE&sslrootcert=PATH`. The user name and password may be
/// percent-encoded. `sslmode` is libpq's: `disable`, `prefer` (the default: TLS when the server offers it),
/// `require` (TLS, the certificate not checked), `verify-ca` (checked against the roots, any host name) and
/// `verify-full` (checked, and the host name too). `sslrootcert` names a PEM file of roots, else the system's.
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        case disable, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    public var rootCertificatePath: String?

    public init(host: String, port: Int = 5432, username: String, password: String?, database: String,
                tls: TLSMode = .prefer, rootCertificatePath: String? = nil) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.tls = tls
        self.rootCertificatePath = rootCertificatePath
    }

    /// Reads a `postgres://` (or `postgresql://`) URL; anything else is a clear error naming what is wrong, never
    /// repeating the password.
    public init(url text: String) throws(PostgresStoreError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased() else {
            throw .invalidURL("it is not a URL; write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw .invalidURL("it starts with \(scheme)://, not postgres://")
        }
        var host = components.host ?? ""
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw .invalidURL("it names no host (postgres://USER@HOST/DATABASE)") }
        guard let user = components.percentEncodedUser?.removingPercentEncoding, !user.isEmpty else {
            throw .invalidURL("it names no user (postgres://USER@HOST/DATABASE)")
        }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw .invalidURL("the port \(port) is not between 1 and 65535") }
        let path = components.percentEncodedPath.removingPercentEncoding ?? ""
        let database = path.hasPrefix("/") ? String(path.dropFirst()) : path
        guard !database.isEmpty, !database.contains("/") else {
            throw .invalidURL("it names no database (postgres://USER@HOST/DATABASE)")
        }
        var tls = TLSMode.prefer
        var rootCertificate: String?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                let value = item.value ?? ""
                if value == "allow" {
                    tls = .prefer
                } else if let mode = TLSMode(rawValue: value) {
                    tls = mode
                } else {
                    throw .invalidURL("sslmode=\(value) is not one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
            case "sslrootcert":
                guard let value = item.value, !value.isEmpty else { throw .invalidURL("sslrootcert names no file") }
                rootCertificate = value
            case "application_name", "connect_timeout":
                continue
            default:
                throw .invalidURL("the setting \(item.name) is not one Nestory reads (sslmode, sslrootcert)")
            }
        }
        self.init(host: host, port: port, username: user, password: components.percentEncodedPassword?.removingPercentEncoding,
                  database: database, tls: tls, rootCertificatePath: rootCertificate)
    }

    /// The URL without its password, for messages and logs.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(username)@\(shownHost):\(port)/\(database)?sslmode=\(tls.rawValue)"
    }
}
