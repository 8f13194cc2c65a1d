import Foundation
import NestoryDomain

/// A licence key as installed: its text (verified each time it is read) and the household it was installed for
/// (nil: the whole server).
public struct InstalledLicence: Hashable, Sendable {
    public let key: String
    public let householdID: HouseholdID?
    public let installedAt: Date

    public init(key: String, householdID: HouseholdID?, installedAt: Date) {
        (self.key, self.householdID, self.installedAt) = (key, householdID, installedAt)
    }
}

/// This server's (or this deployment's) id and the licence keys installed, for the household's plan.
///
/// Every engine keeps the same rules (checked by the conformance suite): the id is made once, with the store, and
/// never changes (every server on one store has the same one); a key is kept once however often it is installed;
/// a household sees its own keys and the whole server's, newest first, and never another household's.
public protocol LicenceStore: Sendable {
    /// This store's id, made once (a licence for a whole server names it).
    func instanceID() async throws -> String
    /// Keeps a licence key (already verified by the caller); installing the same key again changes nothing.
    func installLicence(key: String, keyID: String, household: HouseholdID?, now: Date) async throws
    /// The licences that may apply to a household: its own and the whole server's, newest first; with no household,
    /// every licence.
    func licences(for household: HouseholdID?) async throws -> [InstalledLicence]
    /// How many items the household has (the kept counter).
    func itemCount(_ householdID: HouseholdID) async throws -> Int
}
