import Foundation
import NestoryDomain

// The interfaces of the optional valuation providers (issue 17): photo analysis through an OpenAI-compatible
// chat-completions endpoint, and market search (Tavily). Their live implementations speak the documented wire
// formats (NestoryValuationLive); tests give local servers that speak the same formats. With no provider
// configured, the offline estimate is the whole story.

/// What a photo analysis identified: the PRD's fields, every one checked against the strict schema whatever the
/// endpoint claims.
public struct Identification: Codable, Hashable, Sendable {
    public var brand: String
    public var productName: String
    public var model: String?
    public var barcode: String?
    public var condition: ItemCondition?
    /// Sizes or dimensions as seen ("55 in", "Queen"), free text.
    public var sizes: String?
    /// A category name in the household's words if it matches one, else the model's.
    public var category: String?
    public var description: String?

    public init(brand: String, productName: String, model: String? = nil, barcode: String? = nil, condition: ItemCondition? = nil,
                sizes: String? = nil, category: String? = nil, description: String? = nil) {
        self.brand = brand
        self.productName = productName
        self.model = model
        self.barcode = barcode
        self.condition = condition
        self.sizes = sizes
        self.category = category
        self.description = description
    }
}

/// Identifies an item from its photos (all of one item's photos in one request).
public protocol PhotoAnalyzing: Sendable {
    /// `photos`: JPEG bytes, already downsized and stripped of location data by the caller.
    func identify(photos: [Data], hint: String?) async throws(ProviderError) -> Identification
}

/// What to search the market for.
public struct MarketQuery: Hashable, Sendable {
    public var brand: String
    public var productName: String
    public var model: String?
    /// Used prices (actual cash value) or new prices (replacement cost).
    public var used: Bool
    /// ISO 3166 country, for the marketplaces searched (nil: anywhere).
    public var country: String?
    public var maxResults: Int

    public init(brand: String, productName: String, model: String? = nil, used: Bool, country: String? = nil, maxResults: Int = 20) {
        self.brand = brand
        self.productName = productName
        self.model = model
        self.used = used
        self.country = country
        self.maxResults = max(1, min(20, maxResults))
    }

    /// The words sent to the search ("Sony Bravia KD-55X80K used price").
    public var text: String {
        ([brand, productName, model].compactMap { $0?.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } + [used ? "used" : "new", "price"])
            .joined(separator: " ")
    }
}

/// One search result, as the search returned it: its prose is never taken as a number, only its text is parsed.
public struct SearchResult: Codable, Hashable, Sendable {
    public var url: String
    public var title: String
    public var content: String

    public init(url: String, title: String, content: String) {
        self.url = url
        self.title = title
        self.content = content
    }
}

/// Searches the market.
public protocol MarketSearching: Sendable {
    func search(_ query: MarketQuery) async throws(ProviderError) -> [SearchResult]
}

/// What went wrong with a provider, as the provider said it; `stopsBatch` errors need the owner to act (a key, a
/// quota, a plan, an endpoint this server will not call), the others are per item.
public enum ProviderError: Error, Hashable, Sendable, CustomStringConvertible {
    /// 401 (or 403): the key is wrong or revoked.
    case invalidKey(provider: String)
    /// OpenAI's 429 `insufficient_quota`: the account has no credit.
    case quotaExceeded(provider: String, message: String)
    /// Tavily's 432 (plan limit) and 433 (pay-as-you-go limit).
    case planLimit(provider: String, message: String)
    /// 429 rate limits and 408/409/5xx still failing after the retries.
    case unavailable(provider: String, status: Int?, message: String)
    /// No connection, a name that does not resolve, a timeout.
    case unreachable(provider: String, message: String)
    /// The model refused (a `refusal`, or `finish_reason` "content_filter").
    case refused(String)
    /// The answer was cut off (`finish_reason` "length").
    case truncated
    /// The answer was not the JSON the schema asks for.
    case invalidAnswer(String)
    /// The household's own endpoint is somewhere this server does not send requests (its own network); nothing was sent.
    case endpointNotAllowed(String)

    public var stopsBatch: Bool {
        switch self {
        case .invalidKey, .quotaExceeded, .planLimit, .endpointNotAllowed: return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .invalidKey(let provider): return "\(provider) refused the API key: check it in Settings → Valuation."
        case .quotaExceeded(let provider, let message): return "\(provider) says the account has no quota left (\(message)): add credit or change the key."
        case .planLimit(let provider, let message): return "\(provider) says the plan's limit is reached (\(message)): upgrade the plan or wait for it to renew."
        case .unavailable(let provider, let status, let message):
            // Worth trying again only for what passes (rate limits, timeouts, the provider's own errors), not for a
            // request the endpoint refuses as it is (a model that does not take images, say).
            let passing = status.map { [408, 409, 429].contains($0) || $0 >= 500 } ?? true
            return "\(provider) did not answer well\(status.map { " (\($0))" } ?? ""): \(message)." + (passing ? " Try again later." : "")
        case .unreachable(let provider, let message): return "\(provider) could not be reached (\(message)): is the server online?"
        case .refused(let message): return "The model declined to describe these photos: \(message)"
        case .truncated: return "The model's answer was cut off before it was complete. Try again, or with fewer photos."
        case .invalidAnswer(let message): return "The model's answer was not what was asked for: \(message)"
        case .endpointNotAllowed(let message): return "Nothing was sent to the photo analysis endpoint: \(message) Change it in Settings → Valuation."
        }
    }
}
