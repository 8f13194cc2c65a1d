import Foundation
import NestoryDomain
import NestoryReports
import NestoryReportsLive
import NestoryStore

/// Reports being generated in the background, one at a time on their own thread (rendering is
/// CPU-bound C code: it must not hold up the server's threads). The web app polls a job's progress.
/// In memory only: a restart forgets running jobs (finished reports are in the export history).
public final class ReportJobs: @unchecked Sendable {
    public enum State: Sendable, Equatable {
        case queued
        case running(done: Int, total: Int)
        case finished(reportID: UUID)
        case failed(String)
    }

    public struct Job: Sendable, Equatable {
        public let id: UUID
        public let householdID: HouseholdID
        public let kind: ReportKind
        public let startedAt: Date
        public var state: State
    }

    private let lock = NSLock()
    private var jobs: [UUID: Job] = [:]
    private let queue = DispatchQueue(label: "nestory.reports", qos: .utility)

    public init() {}

    /// Starts generating a report; returns the job's id at once.
    func start(_ request: ReportRequest, householdID: HouseholdID, generator: ReportGenerator, now: Date) -> UUID {
        let id = UUID()
        lock.withLock {
            // Forget finished jobs older than a day.
            jobs = jobs.filter { now.timeIntervalSince($0.value.startedAt) < 86_400 }
            jobs[id] = Job(id: id, householdID: householdID, kind: request.kind, startedAt: now, state: .queued)
        }
        queue.async { [self] in
            update(id, .running(done: 0, total: 0))
            do {
                let report = try generator.generateAndRecord(householdID, request: request, now: now) { done, total in
                    self.update(id, .running(done: done, total: total))
                }
                update(id, .finished(reportID: report.id))
            } catch let error as DomainError {
                update(id, .failed(error.message))
            } catch {
                update(id, .failed("The report could not be made (\(error)). Nothing was changed; try again."))
            }
        }
        return id
    }

    private func update(_ id: UUID, _ state: State) {
        lock.withLock { jobs[id]?.state = state }
    }

    /// A job of this household (another household's job is not found).
    func job(_ id: UUID, householdID: HouseholdID) -> Job? {
        lock.withLock { jobs[id].flatMap { $0.householdID == householdID ? $0 : nil } }
    }

    /// The household's reports still being made, oldest first.
    func unfinished(householdID: HouseholdID) -> [Job] {
        lock.withLock {
            jobs.values.filter { job in
                guard job.householdID == householdID else { return false }
                switch job.state {
                case .queued, .running: return true
                case .finished, .failed: return false
                }
            }.sorted { $0.startedAt < $1.startedAt }
        }
    }

    /// Waits until the job has finished or failed (for tests and the CLI).
    func wait(_ id: UUID, timeout: TimeInterval = 60) async -> State? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let state = lock.withLock { jobs[id]?.state }
            switch state {
            case .finished, .failed, nil: return state
            default: try? await Task.sleep(nanoseconds: 20_000_000)
            }
        }
        return lock.withLock { jobs[id]?.state }
    }
}
