import Foundation
import NestoryDomain
import NestoryHTTP
import NestoryValuation

/// Market search through Tavily's documented `POST /search` (a Bearer key; JSON body with the query, up to 20
/// results, the search depth, no generated answer). Only each result's url, title and content are read: the
/// answer prose Tavily can add is neither asked for nor read.
public struct TavilySearch: MarketSearching, CustomStringConvertible, CustomReflectable {
    public static let defaultBase = URL(string: "https://api.tavily.com")!
    public static let providerName = "Tavily"

    public let baseURL: URL
    /// "basic" (one credit) or "advanced" (two).
    public let searchDepth: String
    /// ISO 3166 alpha-2, for queries that name none (the household's setting).
    public let country: String?
    private let apiKey: String
    let http: ProviderHTTP

    public init(baseURL: URL = Self.defaultBase, apiKey: String, country: String? = nil, searchDepth: String = "basic", timeout: TimeInterval = 30,
                retry: RetryPolicy = .standard) {
        self.baseURL = baseURL
        self.country = country?.trimmingCharacters(in: .whitespaces).nilIfEmpty
        self.apiKey = apiKey.trimmingCharacters(in: .whitespacesAndNewlines)
        self.searchDepth = searchDepth == "advanced" ? "advanced" : "basic"
        http = ProviderHTTP(provider: Self.providerName, timeout: timeout, retry: retry, secrets: [self.apiKey])
    }

    public var description: String { "Tavily (\(baseURL.absoluteString), \(searchDepth))" }
    public var customMirror: Mirror {
        Mirror(self, children: ["baseURL": baseURL, "searchDepth": searchDepth, "country": country ?? "any", "apiKey": "[redacted]"])
    }

    /// Tavily names countries in lower-case English ("united states"); `country` is ISO 3166 alpha-2.
    public static func countryName(_ country: String) -> String? {
        let code = country.uppercased()
        let overrides = ["US": "united states", "GB": "united kingdom", "KR": "south korea", "CZ": "czech republic", "RU": "russia",
                         "VN": "vietnam", "TR": "turkey", "TW": "taiwan", "AE": "united arab emirates", "BA": "bosnia and herzegovina"]
        if let name = overrides[code] { return name }
        guard code.count == 2, Locale.Region.isoRegions.contains(where: { $0.identifier == code }),
              let name = Locale(identifier: "en_US").localizedString(forRegionCode: code), name != code else { return nil }
        return name.lowercased()
    }

    func requestBody(_ query: MarketQuery) -> Data {
        var body: [String: JSONValue] = [
            "query": .string(String(query.text.prefix(400))),
            "search_depth": .string(searchDepth),
            "max_results": .integer(max(1, min(20, query.maxResults))),
            "topic": .string("general"),
            "include_answer": .bool(false),
            "include_raw_content": .bool(false),
            "include_images": .bool(false),
        ]
        if let country = (query.country ?? country).flatMap(Self.countryName) { body["country"] = .string(country) }
        return ProviderHTTP.encode(.object(body))
    }

    public func search(_ query: MarketQuery) async throws(ProviderError) -> [SearchResult] {
        let url = baseURL.appendingPathComponent("search")
        return try await http.post(url, body: requestBody(query), headers: ["Authorization": "Bearer \(apiKey)"], judge: judge)
    }

    func judge(_ answer: HTTPAnswer) throws(ProviderError) -> Verdict<[SearchResult]> {
        let name = Self.providerName
        switch answer.status {
        case 200..<300:
            guard let value = try? JSONDecoder().decode(JSONValue.self, from: answer.body), case .array(let results)? = value["results"] else {
                throw .invalidAnswer("Tavily's answer had no results list")
            }
            return .done(results.compactMap { result in
                guard let url = result["url"]?.stringValue else { return nil }
                return SearchResult(url: url, title: result["title"]?.stringValue ?? "", content: result["content"]?.stringValue ?? "")
            })
        case 401, 403:
            throw .invalidKey(provider: name)
        case 432, 433:
            throw .planLimit(provider: name, message: http.message(answer.body, fallback: answer.status))
        case 408, 429, 500..<600:
            return .retry(.unavailable(provider: name, status: answer.status, message: http.message(answer.body, fallback: answer.status)))
        default:
            throw .unavailable(provider: name, status: answer.status, message: http.message(answer.body, fallback: answer.status))
        }
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
