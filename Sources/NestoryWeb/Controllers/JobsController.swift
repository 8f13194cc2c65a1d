import Foundation
import Hummingbird
import NestoryDomain
import NestoryServices

/// Every background job's status in one shape (`GET /api/v1/jobs/:id`), and cancelling one. The pages'
/// one poller reads this for reports, backups and receipts alike.
struct JobsController {
    let dependencies: WebDependencies
    var jobs: JobsService { dependencies.services.jobs }

    func addRoutes(to api: RouterGroup<AppRequestContext>) {
        api.get("jobs/:id", use: status)
        api.post("jobs/:id/cancel", use: cancel)
    }

    @Sendable func status(_ request: Request, context: AppRequestContext) async throws -> JobJSON {
        let viewer = try context.requireViewer()
        return JobJSON(try await jobs.job(viewer.household.id, try Self.jobID(context)))
    }

    @Sendable func cancel(_ request: Request, context: AppRequestContext) async throws -> JobJSON {
        let viewer = try context.requireViewer()
        return JobJSON(try await jobs.cancel(viewer.household.id, try Self.jobID(context)))
    }

    static func jobID(_ context: AppRequestContext) throws -> JobID {
        guard let id = context.parameters.get("id").flatMap(JobID.init(string:)) else { throw DomainError.notFound("The job") }
        return id
    }
}

/// A job as JSON: the same shape for every kind (documented in openapi.json as Job).
struct JobJSON: ResponseEncodable {
    struct Progress: Encodable {
        let done: Int64
        let total: Int64
    }

    struct Links: Encodable {
        /// The page that shows this job's outcome.
        var page: String?
        /// What it made, once it succeeded.
        var download: String?
    }

    let id: String
    let kind: String
    /// queued, running, succeeded, failed, cancelled or interrupted.
    let state: String
    let progress: Progress
    /// Safe to show: why it failed or was interrupted, or a note on what it made.
    let message: String?
    let errorCode: String?
    let attempts: Int
    let createdAt: String
    let finishedAt: String?
    let links: Links

    init(_ job: Job) {
        id = job.id.description
        kind = job.kind
        state = job.state.rawValue
        progress = Progress(done: job.done, total: job.total)
        errorCode = job.errorCode
        attempts = job.attempts
        createdAt = ISO8601DateFormatter().string(from: job.createdAt)
        finishedAt = job.finishedAt.map { ISO8601DateFormatter().string(from: $0) }
        var links = Links()
        var note: String?
        switch job.kind {
        case JobKind.report:
            links.page = "/reports/jobs/\(job.id)"
            if job.state == .succeeded, let made = job.decodedResult(as: ReportsService.Made.self) {
                links.download = "/reports/\(made.reportID.uuidString.lowercased())/download"
            }
        case JobKind.backup:
            links.page = "/settings/data"
            if job.state == .succeeded { links.download = "/settings/data/export/\(job.id)/download" }
        case JobKind.valuation:
            links.page = "/valuations/batches/\(job.id)"
        case JobKind.restore, JobKind.import:
            links.page = "/settings/data/jobs/\(job.id)"
        case JobKind.receipt:
            if let request = try? job.decodedPayload(as: ReceiptsService.Request.self) { links.page = "/receipts/\(request.receiptID)" }
            note = job.decodedResult(as: ReceiptJobHandler.Read.self)?.message
        default:
            break
        }
        message = job.message ?? note
        self.links = links
    }
}
