import Foundation
import NestoryDomain
import NestoryStore
import Prometheus
import Synchronization

/// The server's own figures for `/metrics`, read each time it is scraped: the `process_` series every Prometheus client
/// library exports (memory, CPU time, open files and their limit, start time), the data folder's free space (the
/// readiness check fails below `health.minFreeMegabytes`; this lets an alert come first) and the version.
final class ProcessMetrics: Sendable {
    private let folder: DataFolder
    private let residentMemory, virtualMemory, openFiles, maxFiles, startTime, freeBytes: Gauge
    private let cpuSeconds: Counter
    /// The CPU seconds already counted (the counter only goes up, by what was used since the last scrape).
    private let countedCPU = Mutex(0.0)

    init(registry: PrometheusCollectorRegistry, folder: DataFolder, started: Date = Date()) {
        self.folder = folder
        residentMemory = registry.makeGauge(name: "process_resident_memory_bytes", help: "Resident memory size in bytes.")
        virtualMemory = registry.makeGauge(name: "process_virtual_memory_bytes", help: "Virtual memory size in bytes.")
        openFiles = registry.makeGauge(name: "process_open_fds", help: "Number of open file descriptors.")
        maxFiles = registry.makeGauge(name: "process_max_fds", help: "Maximum number of open file descriptors.")
        startTime = registry.makeGauge(name: "process_start_time_seconds", help: "Start time of the process since the Unix epoch in seconds.")
        cpuSeconds = registry.makeCounter(name: "process_cpu_seconds_total", help: "Total user and system CPU time spent in seconds.")
        freeBytes = registry.makeGauge(name: "nestory_data_free_bytes", help: "Bytes free for the server on the data folder's disk.")
        registry.makeGauge(name: "nestory_build_info", labels: [("version", NestoryVersion.current)],
                           help: "The version of Nestory running (always 1).").set(1.0)
        startTime.set(started.timeIntervalSince1970)
    }

    /// Reads the figures now (a few small reads of /proc and two system calls).
    func update() {
        let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))
        // /proc/self/statm: the program's size and its resident part, in pages.
        if let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) {
            let pages = statm.split(separator: " ").prefix(2).compactMap { Double($0) }
            if pages.count == 2 {
                virtualMemory.set(pages[0] * pageSize)
                residentMemory.set(pages[1] * pageSize)
            }
        }
        if let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            openFiles.set(Double(descriptors.count - 1))  // less the one listing them
        }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 { maxFiles.set(Double(limit.rlim_cur)) }
        var usage = rusage()
        if getrusage(RUSAGE_SELF.rawValue, &usage) == 0 {
            let seconds = [usage.ru_utime, usage.ru_stime].reduce(0.0) { $0 + Double($1.tv_sec) + Double($1.tv_usec) / 1_000_000 }
            let increase = countedCPU.withLock { counted -> Double in
                defer { counted = max(counted, seconds) }
                return max(0, seconds - counted)
            }
            if increase > 0 { cpuSeconds.increment(by: increase) }
        }
        if let free = folder.freeBytes { freeBytes.set(Double(free)) }
    }
}
