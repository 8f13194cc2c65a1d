import Foundation
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

    /// `nestory serve` on a random port of 127.0.0.1, over `folder`, until `stop()`.
    final class Server {
        let process = Process()
        let port = Int.random(in: 20_000..<40_000)

        init(folder: Folder, environment: [String: String] = [:]) throws {
            process.executableURL = CLI.binary
            process.arguments = ["serve", "--data", folder.path, "--port", String(port)]
            if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
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
            process.terminate()
            process.waitUntilExit()
        }
    }

    @discardableResult
    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NESTORY_DATA")
        env.removeValue(forKey: "NESTORY_PASSWORD")
        // The commands' tests run as Pro (as a self-hoster who set licence.instancePro); LicenceCommandTests set Free.
        env["NESTORY_LICENCE_INSTANCE_PRO"] = "true"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }
}
