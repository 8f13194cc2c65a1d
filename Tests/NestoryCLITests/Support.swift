import Foundation
import NestoryChildProcess
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs the built `nestory` binary, as a person at a terminal would.
struct CLI {
    /// The binary sits next to the test bundle in the build folder.
    static let binary: URL = {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("nestory").path), dir.path != "/" {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("nestory")
    }()

    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// A fresh data folder for one test, removed at the end.
    final class Folder {
        let path: String
        init() { path = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-cli-\(UUID())").path }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    /// A port of 127.0.0.1 the kernel just gave out and nothing listens on. A random one from a range could be a port
    /// another test's server holds (the kernel gives ports from 32768 up): then `serve` cannot bind and exits.
    static func freePort() -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// `nestory serve` on a free port of 127.0.0.1, over `folder`, until `stop()`. What it writes to stderr is kept, for
    /// a test to show when the server does not answer (`story`) or to read what it said at start (`log`).
    final class Server: Sendable {
        let process: ChildProcess
        let port = CLI.freePort()
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-cli-serve-\(UUID()).log")

        init(folder: Folder, environment: [String: String] = [:]) throws {
            process = try ChildProcess(executable: CLI.binary.path, arguments: ["serve", "--data", folder.path, "--port", String(port)],
                                       environment: environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 },
                                       output: .discard, errors: .file(errors.path))
        }

        deinit { try? FileManager.default.removeItem(at: errors) }

        /// What the server has written to stderr so far.
        var log: String { (try? String(contentsOf: errors, encoding: .utf8)) ?? "" }

        /// Whether the server still runs (or how it ended) and the last of what it wrote to stderr.
        var story: String {
            let state = process.isRunning ? "still running" : "exited with wait status \(process.waitUntilExit())"
            return "port \(port), \(state); stderr ends: \(log.suffix(1500))"
        }

        /// The body of `/health` once it answers 200, polling every 100 ms; nil if it has not within 30 s (a loaded
        /// clean-clone CI run once waited more than 10 s for a server that answers in 0.6 s alone).
        func health() async -> String? {
            for _ in 0..<300 {
                try? await Task.sleep(for: .milliseconds(100))
                if let (data, response) = try? await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/health")!),
                   (response as? HTTPURLResponse)?.statusCode == 200 {
                    return String(decoding: data, as: UTF8.self)
                }
            }
            return nil
        }

        /// The status and body of one GET, or nil when the server does not answer.
        func get(_ path: String) async -> (status: Int, body: String)? {
            guard let (data, response) = try? await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)\(path)")!),
                  let http = response as? HTTPURLResponse else { return nil }
            return (http.statusCode, String(decoding: data, as: UTF8.self))
        }

        func stop() {
            process.signal(SIGTERM)
            process.waitUntilExit()
        }
    }

    @discardableResult
    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> Result {
        // Not Foundation's Process: see NestoryChildProcess (it crashed the test process with many descriptors open).
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NESTORY_DATA")
        env.removeValue(forKey: "NESTORY_PASSWORD")
        // The commands' tests run as Pro (as a self-hoster who set licence.instancePro); LicenceCommandTests set Free.
        env["NESTORY_LICENCE_INSTANCE_PRO"] = "true"
        for (key, value) in environment { env[key] = value }
        let finished = try ChildProcess.run(binary.path, arguments, environment: env, input: Array((stdin ?? "").utf8))
        return Result(status: finished.exitCode, stdout: finished.outputText, stderr: finished.errorText)
    }
}
