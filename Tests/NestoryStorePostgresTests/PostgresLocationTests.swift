import Foundation
import NestoryStorePostgres
import Testing

/// Reading the database URL: what libpq accepts, and a clear error (never showing the password) for the rest.
@Suite struct PostgresLocationTests {
    @Test func aFullURLIsReadWithItsEncodedPasswordAndTLSMode() throws {
        let location = try PostgresLocation(url: "postgres://nestory:p%40ss%2Fw0rd@db.example.net:6432/inventory?sslmode=verify-full&sslrootcert=/etc/ca.pem")
        #expect(location.host == "db.example.net")
        #expect(location.port == 6432)
        #expect(location.username == "nestory")
        #expect(location.password == "p@ss/w0rd")
        #expect(location.database == "inventory")
        #expect(location.tls == .verifyFull)
        #expect(location.rootCertificatePath == "/etc/ca.pem")
        #expect(!location.description.contains("p@ss"))
        #expect(location.description == "postgres://nestory@db.example.net:6432/inventory?sslmode=verify-full")
    }

    @Test func theDefaultsAreLibpqs() throws {
        let location = try PostgresLocation(url: "postgresql://me@[::1]/db")
        #expect(location.host == "::1")
        #expect(location.port == 5432)
        #expect(location.password == nil)
        #expect(location.tls == .prefer)
        #expect(location.description == "postgres://me@[::1]:5432/db?sslmode=prefer")
    }

    @Test(arguments: [
        ("mysql://u@h/db", "starts with mysql://"),
        ("postgres://h/db", "names no user"),
        ("postgres://u:secret@/db", "names no host"),
        ("postgres://u:secret@h", "names no database"),
        ("postgres://u:secret@h:70000/db", "not between 1 and 65535"),
        ("postgres://u:secret@h/db?sslmode=sometimes", "sslmode=sometimes is not one of"),
        ("postgres://u:secret@h/db?pool=9", "pool is not one Nestory reads"),
        ("just words", "not a URL"),
    ])
    func aWrongURLSaysWhatIsWrongWithoutThePassword(url: String, expected: String) {
        do {
            _ = try PostgresLocation(url: url)
            Issue.record("\(url) was accepted")
        } catch {
            #expect(error.description.contains(expected), "\(error.description)")
            #expect(!error.description.contains("secret"))
        }
    }
}
