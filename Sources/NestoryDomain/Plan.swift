import Foundation

/// Nestory Free or Nestory Pro (the spec's §3): what a household may do. The server checks it on every path
/// that could cross a limit; data already over a limit (a Pro licence that expired) is never deleted or hidden.
public enum Plan: String, Hashable, Codable, Sendable {
    case free, pro

    public var label: String { self == .free ? "Nestory Free" : "Nestory Pro" }
}

/// What Pro unlocks, one by one (a licence may name some; a Pro licence that names none unlocks them all).
public enum ProFeature: String, Hashable, Codable, Sendable, CaseIterable {
    case unlimitedItems = "unlimited-items"
    case unlimitedLossList = "unlimited-loss-list"
    case reportPhotos = "report-photos"
    case csvExport = "csv-export"

    public var label: String {
        switch self {
        case .unlimitedItems: return "Unlimited items (Free keeps \(PlanLimits.freeItems))"
        case .unlimitedLossList: return "Loss lists of any length (Free: up to \(PlanLimits.freeLossListItems) items)"
        case .reportPhotos: return "The full inventory PDF with photos (Free: without photos)"
        case .csvExport: return "CSV export"
        }
    }
}

/// The Free plan's limits, in one place.
public enum PlanLimits {
    public static let freeItems = 100
    public static let freeLossListItems = 20
    /// The spec's paywall copy (§10.5), for a licence rather than an app-store purchase.
    public static let paywall = "Nestory Pro unlocks unlimited items and advanced reports. It’s a one-time licence — no subscription, no ads."
}

/// A verified licence, as the household's settings show it.
public struct LicenceSummary: Hashable, Sendable {
    public enum Scope: Hashable, Sendable {
        case household(HouseholdID)
        case instance(String)
    }

    public let keyID: String
    public let licensee: String
    public let scope: Scope
    public let issued: CalendarDate
    public let expires: CalendarDate?
    public let features: Set<ProFeature>

    public init(keyID: String, licensee: String, scope: Scope, issued: CalendarDate, expires: CalendarDate?, features: Set<ProFeature>) {
        self.keyID = keyID
        self.licensee = licensee
        self.scope = scope
        self.issued = issued
        self.expires = expires
        self.features = features
    }

    public func isExpired(on day: CalendarDate) -> Bool { expires.map { $0 < day } ?? false }
}

/// A Pro limit a request ran into: which feature would lift it, and what to tell the person (the limit, and
/// what Pro unlocks).
public struct ProLimit: Hashable, Sendable {
    public let feature: ProFeature
    public let message: String

    public init(feature: ProFeature, message: String) {
        self.feature = feature
        self.message = message
    }

    /// `action`: what would have added the items ("add an item", "import", "restore").
    static func items(before: Int, after: Int, action: ItemGrowth) -> ProLimit {
        let limit = PlanLimits.freeItems
        let text: String
        switch action {
        case .add:
            text = "Nestory Free keeps up to \(limit) items, and this household has \(before). Nothing you entered was lost: "
                + "unlock unlimited items with Nestory Pro (Settings → Account & Pro)."
        case .import, .restore:
            let (noun, done) = action == .import ? ("import", "imported") : ("restore", "restored")
            text = "This \(noun) would bring the household to \(after) items (it has \(before)); Nestory Free keeps up to \(limit). "
                + "Nothing was \(done). Nestory Pro unlocks unlimited items (Settings → Account & Pro, or an instance licence)."
        }
        return ProLimit(feature: .unlimitedItems, message: text)
    }
}

/// What is adding items, for the limit's message.
public enum ItemGrowth: Sendable { case add, `import`, restore }

/// What a household's plan allows: where it comes from and the features it unlocks.
public struct Entitlement: Hashable, Sendable {
    public enum Source: Hashable, Sendable {
        /// No licence (or only expired ones).
        case free
        /// A verified, unexpired licence.
        case licence(LicenceSummary)
        /// The operator declared the whole server Pro (`licence.instancePro`).
        case instanceSetting
    }

    public let source: Source
    public let features: Set<ProFeature>

    public init(source: Source, features: Set<ProFeature>) {
        self.source = source
        self.features = features
    }

    public static let free = Entitlement(source: .free, features: [])
    public static let everything = Entitlement(source: .instanceSetting, features: Set(ProFeature.allCases))

    public var plan: Plan { features.isEmpty ? .free : .pro }

    public func allows(_ feature: ProFeature) -> Bool { features.contains(feature) }

    /// The most items the household may grow to, nil for no limit.
    public var maxItems: Int? { allows(.unlimitedItems) ? nil : PlanLimits.freeItems }

    /// A write that takes the household from `before` items to `after` is allowed when it stays within the limit,
    /// or does not grow it (a household already over the limit keeps everything and may still delete or edit).
    public func checkItems(before: Int, after: Int, action: ItemGrowth) throws(DomainError) {
        guard let limit = maxItems, after > limit, after > before else { return }
        throw .proRequired(.items(before: before, after: after, action: action))
    }

    public func checkLossList(count: Int) throws(DomainError) {
        guard !allows(.unlimitedLossList), count > PlanLimits.freeLossListItems else { return }
        throw .proRequired(ProLimit(feature: .unlimitedLossList, message: """
            A loss list on Nestory Free has up to \(PlanLimits.freeLossListItems) items, and \(count) are chosen. \
            Choose fewer, or unlock loss lists of any length with Nestory Pro (Settings → Account & Pro).
            """))
    }

    public func checkReportPhotos(_ includePhotos: Bool) throws(DomainError) {
        guard includePhotos, !allows(.reportPhotos) else { return }
        throw .proRequired(ProLimit(feature: .reportPhotos, message: """
            The full inventory PDF with photos is part of Nestory Pro; Nestory Free makes it without photos. \
            Untick “Include photos”, or unlock it in Settings → Account & Pro.
            """))
    }

    public func checkCSVExport() throws(DomainError) {
        guard !allows(.csvExport) else { return }
        throw .proRequired(ProLimit(feature: .csvExport, message: """
            CSV export is part of Nestory Pro. The JSON export and a full backup (Settings → Your data) keep everything on every plan.
            """))
    }
}
