import Foundation
import NestoryDomain
import NestoryLicences
import NestoryStoreInterfaces

/// Free and Pro: which plan a household is on (the operator's setting, else an installed, unexpired licence for
/// the household or the whole server), and installing licence keys. The items, data and reports services ask
/// it before anything that could cross a Free limit, so the web app, the API and the command line meet the
/// same limits.
public struct PlanService: Sendable {
    let licences: any LicenceStore
    let verifier: LicenceVerifier
    /// The operator declared every household Pro (`licence.instancePro`).
    let instancePro: Bool
    let timeZone: TimeZone
    let now: @Sendable () -> Date

    public init(licences: any LicenceStore, verifier: LicenceVerifier = LicenceVerifier(), instancePro: Bool, timeZone: TimeZone = .current,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.licences = licences
        self.verifier = verifier
        self.instancePro = instancePro
        self.timeZone = timeZone
        self.now = now
    }

    var today: CalendarDate { CalendarDate(now(), in: timeZone) }

    /// The household's plan today. Keys that no longer verify here (another server's, a retired signing key)
    /// or that expired are passed over: the household falls back to Free, and nothing is deleted.
    public func entitlement(_ household: HouseholdID) async throws -> Entitlement {
        if instancePro { return .everything }
        let (instance, today) = (try await licences.instanceID(), today)
        let valid = try await licences.licences(for: household).compactMap { installed in
            try? verifier.summary(installed.key, instance: instance, household: household)
        }.filter { !$0.isExpired(on: today) }
        guard let best = valid.max(by: { ($0.features.count, $0.expires ?? .distantFuture) < ($1.features.count, $1.expires ?? .distantFuture) })
        else { return .free }
        return Entitlement(source: .licence(best), features: best.features)
    }

    /// What Settings → Account & Pro shows: the plan, each licence installed for the household (or the server)
    /// with why it does not apply where it does not, the item count against the limit, and the ids a licence is
    /// issued for.
    public struct Overview: Sendable {
        public let entitlement: Entitlement
        public let licences: [(installed: InstalledLicence, summary: LicenceSummary?, problem: String?)]
        public let itemCount: Int
        public let instanceID: String
    }

    public func overview(_ household: HouseholdID) async throws -> Overview {
        let (instance, today) = (try await licences.instanceID(), today)
        let installed = try await licences.licences(for: household).map { installed in
            do {
                let summary = try verifier.summary(installed.key, instance: instance, household: household)
                return (installed, Optional(summary), summary.isExpired(on: today) ? LicenceError.expired(summary.expires!).description : nil)
            } catch {
                return (installed, nil, String(describing: error))
            }
        }
        return Overview(entitlement: try await entitlement(household), licences: installed, itemCount: try await licences.itemCount(household),
                        instanceID: instance)
    }

    /// Where a key is being installed from: a household's owner (only that household's licences), or the
    /// server's operator at the command line (any licence for this server, for any household).
    public enum Installer: Sendable {
        case owner(HouseholdID)
        case operatorCLI
    }

    /// Verifies and keeps a licence key; a refused key says why (under the field "licence").
    @discardableResult
    public func install(_ text: String, by installer: Installer) async throws -> LicenceSummary {
        let instance = try await licences.instanceID()
        let household: HouseholdID? = if case .owner(let id) = installer { id } else { nil }
        let summary: LicenceSummary
        do { summary = try verifier.check(text, instance: instance, household: household, today: today) } catch {
            throw DomainError.invalid(field: "licence", message: error.description)
        }
        let scope: HouseholdID?
        switch summary.scope {
        case .household(let id): scope = id
        case .instance:
            guard household == nil else {
                throw DomainError.invalid(field: "licence", message: """
                    This licence is for the whole server: its operator installs it with `nestory licence install`.
                    """)
            }
            scope = nil
        }
        let compact = String(text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) })
        try await licences.installLicence(key: compact, keyID: summary.keyID, household: scope, now: now())
        return summary
    }
}

extension CalendarDate {
    /// Later than any expiry (for comparing licences that never expire with ones that do).
    static let distantFuture = try! CalendarDate(year: 9999, month: 12, day: 31)
}
