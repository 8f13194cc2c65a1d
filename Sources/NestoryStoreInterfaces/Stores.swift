import Foundation

/// Every store of one engine, as the bootstrap picked them: SQLite in the data folder (`Stores.sqlite`, NestoryStore)
/// or PostgreSQL (`Stores.postgres`, NestoryStorePostgres). `Services` is built from one bundle, so no service
/// chooses an engine or makes a store of its own.
public struct Stores: Sendable {
    public var items: any ItemStore
    public var attachments: any AttachmentStore
    public var accounts: any AccountStore
    public var jobs: any JobStore
    public var reports: any ReportStore
    public var reminders: any ReminderStore
    public var valuations: any ValuationStore
    public var products: any ProductStore
    public var licences: any LicenceStore
    public var tokens: any APITokenStore
    public var idempotency: any IdempotencyStore
    public var captureCounters: any CaptureCounterStore
    /// The database itself: where, which schema, writable now.
    public var status: any DatabaseStatus
    /// Stored files' bytes (the data folder or an object store) and this server's temporary files.
    public var files: any BlobFiles
    /// Backups, restores and imports.
    public var archive: any ArchiveStore
    /// Requests counted per key per minute (API tokens' budgets), shared by every server on the store.
    public var requestBudget: any RequestBudget
    /// What the server keeps beside its households' archives, row by row (`nestory copy`).
    public var serverRecords: any ServerRecordStore

    public init(items: any ItemStore, attachments: any AttachmentStore, accounts: any AccountStore, jobs: any JobStore,
                reports: any ReportStore, reminders: any ReminderStore, valuations: any ValuationStore, products: any ProductStore,
                licences: any LicenceStore, tokens: any APITokenStore, idempotency: any IdempotencyStore,
                captureCounters: any CaptureCounterStore, status: any DatabaseStatus, files: any BlobFiles, archive: any ArchiveStore,
                requestBudget: any RequestBudget, serverRecords: any ServerRecordStore) {
        self.items = items
        self.attachments = attachments
        self.accounts = accounts
        self.jobs = jobs
        self.reports = reports
        self.reminders = reminders
        self.valuations = valuations
        self.products = products
        self.licences = licences
        self.tokens = tokens
        self.idempotency = idempotency
        self.captureCounters = captureCounters
        self.status = status
        self.files = files
        self.archive = archive
        self.requestBudget = requestBudget
        self.serverRecords = serverRecords
    }
}
