import Foundation
import NestoryDomain
import NestoryStoreInterfaces

/// Backups, restores and imports on SQLite: AppDatabase's own methods (`exportHousehold`, `restoreHousehold`,
/// `importItemsInBulk`), each run off the caller's thread (`AppDatabase.offload`).
public struct SQLiteArchiveStore: ArchiveStore {
    public let database: AppDatabase

    public init(_ database: AppDatabase) { self.database = database }

    public func exportHousehold(_ householdID: HouseholdID, includePasswordHashes: Bool,
                                to sink: any HouseholdArchiveSink) async throws -> ArchiveRecord.Household {
        try await database.offload { database in
            try database.exportHousehold(householdID) { export in
                for user in try export.users(includePasswordHashes: includePasswordHashes) { try sink.append(.user(user)) }
                for membership in try export.memberships() { try sink.append(.membership(membership)) }
                for room in try export.rooms() { try sink.append(.room(room)) }
                for category in try export.categories() { try sink.append(.category(category)) }
                try export.forEachItem { try sink.append(.item($0)) }
                try export.forEachBlob { try sink.append(.blob($0)) }
                try export.forEachPhoto { try sink.append(.photo($0)) }
                try export.forEachReceipt { try sink.append(.receipt($0)) }
                for report in try export.reports() { try sink.append(.report(report, storedAs: nil)) }
                try export.forEachValuation { try sink.append(.valuation($0)) }
                return export.household
            }
        }
    }

    public func householdExists(_ id: String) async throws -> Bool {
        try await database.offload { try $0.householdExists(id) }
    }

    public func restoreHousehold(_ source: any HouseholdArchiveSource, files: [String: StagedBlob], reportFiles: [String: StagedBlob],
                                 into target: HouseholdID?, mode: RestoreMode, plan: Entitlement?) async throws -> RestoreSummary {
        try await database.offload { try $0.restoreHousehold(source, files: files, reportFiles: reportFiles, into: target, mode: mode, plan: plan) }
    }

    public func importItemsInBulk(_ householdID: HouseholdID, count: Int, now: Date, today: CalendarDate, plan: Entitlement?,
                                  next: @escaping @Sendable () throws -> [NamedPlaceDraft]?) async throws -> ImportSummary {
        try await database.offload { try $0.importItemsInBulk(householdID, count: count, now: now, today: today, plan: plan, next: next) }
    }

    public func storeAttachment(_ data: Data, contentType: String, now: Date) async throws -> Attachment {
        try await database.offload { try $0.storeAttachment(data, contentType: contentType, now: now) }
    }

    public func insertItemsInBulk(_ householdID: HouseholdID, count: Int, today: CalendarDate,
                                  next: @escaping @Sendable () throws -> [NewItem]?) async throws {
        try await database.offload { try $0.insertItemsInBulk(householdID, count: count, today: today, next: next) }
    }
}
