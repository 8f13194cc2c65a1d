import Foundation
@testable import NestoryCLI
import NestoryStore
import Prometheus
import Testing

/// `/metrics` carries the process's own series, as every Prometheus client library does, read when scraped.
@Suite struct ProcessMetricsTests {
    /// The value of the unlabelled series `name` in Prometheus' text format.
    static func value(_ name: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
    }

    static func emit(_ registry: PrometheusCollectorRegistry) -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    @Test func theProcessFiguresAreReadWhenScraped() throws {
        let registry = PrometheusCollectorRegistry()
        let started = Date(timeIntervalSince1970: 1_795_000_000)
        let metrics = ProcessMetrics(registry: registry, folder: DataFolder(path: FileManager.default.temporaryDirectory.path), started: started)
        metrics.update()
        let first = Self.emit(registry)
        let resident = try #require(Self.value("process_resident_memory_bytes", in: first))
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let kilobytes = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }?.split(separator: " ").dropFirst().first.flatMap { Double($0) })
        #expect(abs(resident - kilobytes * 1024) < 64 * 1024 * 1024, "\(resident) against VmRSS \(kilobytes) kB")
        let virtual = try #require(Self.value("process_virtual_memory_bytes", in: first))
        #expect(virtual >= resident)
        let open = try #require(Self.value("process_open_fds", in: first)), limit = try #require(Self.value("process_max_fds", in: first))
        #expect(open >= 3 && open <= limit)
        #expect(Self.value("process_start_time_seconds", in: first) == 1_795_000_000)
        let free = try #require(Self.value("nestory_data_free_bytes", in: first))
        #expect(free > 0)
        #expect(first.contains("# TYPE process_cpu_seconds_total counter") && first.contains("nestory_build_info{version=\"0.1.0\"} 1"))

        // CPU time only goes up, by what was used between scrapes.
        let cpu = try #require(Self.value("process_cpu_seconds_total", in: first))
        #expect(cpu > 0)
        // This thread works until it has used 0.15 s of CPU (counted by its own clock, so a loaded machine that gives
        // it less than the wall time still gets there; at most 20 s).
        func threadCPU() -> Double {
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
        let (startCPU, giveUp) = (threadCPU(), Date().addingTimeInterval(20))
        var spin = 0
        while threadCPU() - startCPU < 0.15, Date() < giveUp { spin &+= 1 }
        metrics.update()
        let second = try #require(Self.value("process_cpu_seconds_total", in: Self.emit(registry)))
        #expect(second >= cpu + 0.1, "\(cpu) then \(second) after \(threadCPU() - startCPU) s of this thread's CPU (\(spin))")
    }
}
