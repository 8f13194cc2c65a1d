import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who runs jobs: one server process. Its text (`host/pid/instance`) is recorded on each job it claims, so several
/// servers can share one queue and a starting server can tell which running jobs were its own earlier life's.
public struct JobHolder: Sendable, Hashable, CustomStringConvertible {
    /// The machine, and the process-number space on it: the host name and, on Linux, the PID namespace, so two
    /// containers that share a host name (host networking) but each have their own process 1 are told apart.
    public let host: String
    public let pid: Int32
    /// Random per process: a restarted server, even one given the same process number, is another holder.
    public let instance: String

    public init(host: String, pid: Int32, instance: String = UUID().uuidString.lowercased()) {
        self.host = host.replacingOccurrences(of: "/", with: "_")
        self.pid = pid
        self.instance = instance
    }

    /// This process.
    public static let thisProcess = JobHolder(host: hostName() + pidNamespace(), pid: getpid())

    public var description: String { "\(host)/\(pid)/\(instance)" }

    /// Reads a holder's text back; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, let pid = Int32(parts[1]), !parts[2].isEmpty else { return nil }
        self.init(host: String(parts[0]), pid: pid, instance: String(parts[2]))
    }

    /// Whether `other` is certainly dead, so its jobs may be taken back before their leases pass: an earlier life of a
    /// server on this host, whose process number is gone or is this very process's (one number cannot be two live
    /// processes at once). Anything else (another host, a live number) is left to its lease.
    public func knowsDead(_ other: JobHolder, processExists: (Int32) -> Bool = JobHolder.processExists) -> Bool {
        guard other.host == host, other != self else { return false }
        return other.pid == pid || !processExists(other.pid)
    }

    /// Whether a process with this number runs on this host (one of another user counts as running).
    public static func processExists(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    /// `+` and the PID namespace's number on Linux (`/proc/self/ns/pid` reads `pid:[4026531836]`), else nothing.
    static func pidNamespace() -> String {
        guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/pid") else { return "" }
        let digits = link.filter(\.isNumber)
        return digits.isEmpty ? "" : "+" + digits
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }
}
