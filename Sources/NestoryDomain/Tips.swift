/// The inline tips of the spec (§10), each shown where it helps until the person dismisses it.
public enum Tip: String, CaseIterable, Hashable, Sendable {
    case documentationScore = "documentation-score"
    case firstCapture = "first-capture"
    case reports = "reports"
    case pro = "pro"

    /// Each tip's place in the per-user bit set that remembers dismissals.
    public var bit: Int64 {
        switch self {
        case .documentationScore: return 1 << 0
        case .firstCapture: return 1 << 1
        case .reports: return 1 << 2
        case .pro: return 1 << 3
        }
    }

    public var text: String {
        switch self {
        case .documentationScore:
            return "This score tells you how many items have enough proof for an insurance claim: a photo, a location, and a value. Aim for 80%+."
        case .firstCapture:
            return "Start by taking photos of your most valuable items: TVs, laptops, jewelry, and instruments. You can fill in the details later."
        case .reports:
            return "Most insurers accept a PDF inventory with photos and values. Generate this once you’ve documented your key items."
        case .pro:
            return "Nestory Pro unlocks unlimited items and advanced reports. It’s a one-time purchase — no subscriptions, no ads."
        }
    }

    /// The tips whose bits are set in `bits`.
    public static func dismissed(in bits: Int64) -> Set<Tip> { Set(allCases.filter { bits & $0.bit != 0 }) }
}
