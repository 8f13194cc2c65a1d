import Foundation
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces

/// A household's valuation settings as a backup keeps them, on any engine's `ValuationStore`: the providers' keys are
/// sealed with this deployment's key (`SecretKeys`: the data folder's `secrets.key`, or `secrets.key` given to every server) where they are stored, and in clear in an archive that asked for them.
enum ArchivedValuationSettings {
    /// The settings to archive, or nil when none are set; the keys opened only when `withKeys`.
    static func read(_ valuations: any ValuationStore, _ householdID: HouseholdID, withKeys: Bool,
                     secrets: SecretKeys) async throws -> ArchiveRecord.ValuationSettings? {
        let s = try await valuations.valuationSettings(householdID)
        guard s != StoredValuationSettings() else { return nil }
        let box = withKeys && (s.analysisKey != nil || s.searchKey != nil) ? try secrets.box() : nil
        return ArchiveRecord.ValuationSettings(
            analysisBaseURL: s.analysisBaseURL, analysisModel: s.analysisModel,
            analysisKey: try box.flatMap { box in try s.analysisKey.map { try box.open($0, context: "\(householdID)/analysis") } },
            searchKey: try box.flatMap { box in try s.searchKey.map { try box.open($0, context: "\(householdID)/search") } },
            searchCountry: s.searchCountry, exchangeRates: s.exchangeRates, depreciationTable: s.depreciationTable)
    }

    /// Restores archived settings into a household: keys in the archive are sealed with this server's key; with
    /// `onlyIfUnset` (a merge), a household that has settings keeps them.
    static func restore(_ valuations: any ValuationStore, _ householdID: HouseholdID, _ archived: ArchiveRecord.ValuationSettings,
                        onlyIfUnset: Bool, secrets: SecretKeys, now: Date) async throws {
        if onlyIfUnset, try await valuations.valuationSettings(householdID) != StoredValuationSettings() { return }
        let hasKeys = archived.analysisKey != nil || archived.searchKey != nil
        let box = hasKeys ? try secrets.box() : nil
        try await valuations.saveValuationSettings(householdID, StoredValuationSettings(
            analysisBaseURL: archived.analysisBaseURL, analysisModel: archived.analysisModel,
            analysisKey: try box.flatMap { box in try archived.analysisKey.map { try box.seal($0, context: "\(householdID)/analysis") } },
            analysisKeyHint: archived.analysisKey.map { String($0.suffix(4)) },
            searchKey: try box.flatMap { box in try archived.searchKey.map { try box.seal($0, context: "\(householdID)/search") } },
            searchKeyHint: archived.searchKey.map { String($0.suffix(4)) }, searchCountry: archived.searchCountry,
            exchangeRates: archived.exchangeRates, depreciationTable: archived.depreciationTable), now: now)
    }
}
