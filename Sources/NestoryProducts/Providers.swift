import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces

/// An online product database, asked by GTIN over its documented HTTP API. Hosts are fixed in code
/// (a person can never make the server fetch an address of their choosing); tests give a local base.
public protocol ProductProvider: Sendable {
    /// Stable id, stored with cached answers.
    var id: String { get }
    var displayName: String { get }
    /// The product, nil when the provider does not know the code.
    func lookup(_ gtin: GTIN) async throws(ProviderError) -> ProductRecord?
}

public enum ProviderError: Error, Hashable, Sendable {
    case unreachable
    case timedOut
    case rateLimited
    case badResponse(String)

    func message(_ provider: String) -> String {
        switch self {
        case .unreachable: return "\(provider) could not be reached (no network?). The code is saved; try the lookup again later."
        case .timedOut: return "\(provider) did not answer in time. The code is saved; try again later."
        case .rateLimited: return "\(provider) has had too many lookups from this server for now (its rate limit). Try again later."
        case .badResponse: return "\(provider) sent an answer Nestory could not read."
        }
    }
}

/// Shared HTTP plumbing: one GET with a timeout, errors mapped to `ProviderError`. The session is
/// made on the first lookup, so a server whose households never look online does not start libcurl.
final class ProviderHTTP: @unchecked Sendable {
    let timeout: TimeInterval
    private let configuration: URLSessionConfiguration
    private let lock = NSLock()
    private var started: URLSession?

    private var session: URLSession {
        lock.withLock {
            if let started { return started }
            let made = URLSession(configuration: configuration)
            started = made
            return made
        }
    }

    /// `timeout` is rounded up to whole seconds: FoundationNetworking (libcurl) on Linux fires a
    /// sub-second timeout at once.
    init(timeout: TimeInterval) {
        let timeout = max(1, timeout.rounded(.up))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.httpAdditionalHeaders = ["User-Agent": "Nestory/\(NestoryVersion.current) (self-hosted home inventory)"]
        self.configuration = configuration
        self.timeout = timeout
    }

    func get(_ url: URL) async throws(ProviderError) -> (status: Int, body: Data) {
        var request = URLRequest(url: url)
        request.timeoutInterval = timeout
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { throw ProviderError.badResponse("not HTTP") }
            if http.statusCode == 429 { throw ProviderError.rateLimited }
            return (http.statusCode, data)
        } catch let error as ProviderError {
            throw error
        } catch let error as URLError where error.code == .timedOut {
            throw .timedOut
        } catch {
            throw .unreachable
        }
    }
}

/// Open Food Facts' product API (v2): `GET /api/v2/product/{code}.json`. Food and household goods.
public struct OpenFoodFacts: ProductProvider {
    public static let defaultBase = URL(string: "https://world.openfoodfacts.org")!
    public let id = "openfoodfacts"
    public let displayName = "Open Food Facts"
    let base: URL
    let http: ProviderHTTP

    public init(base: URL = Self.defaultBase, timeout: TimeInterval = 4) {
        self.base = base
        http = ProviderHTTP(timeout: timeout)
    }

    struct Response: Decodable {
        struct Product: Decodable {
            let product_name: String?
            let brands: String?
            let categories: String?
            let image_front_url: String?
        }
        let status: Int?
        let product: Product?
    }

    public func lookup(_ gtin: GTIN) async throws(ProviderError) -> ProductRecord? {
        let code = gtin.gtin13 ?? gtin.key
        let url = base.appendingPathComponent("api/v2/product/\(code).json")
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "fields", value: "product_name,brands,categories,image_front_url")]
        let (status, body) = try await http.get(components.url!)
        // An unknown product is a 404 with `"status": 0`.
        if status == 404 { return nil }
        guard status == 200 else { throw .badResponse("HTTP \(status)") }
        guard let decoded = try? JSONDecoder().decode(Response.self, from: body) else { throw .badResponse("not the documented JSON") }
        guard decoded.status == 1, let product = decoded.product, let name = product.product_name?.trimmed, !name.isEmpty else { return nil }
        return ProductRecord(source: id, code: code, name: name, brand: product.brands?.firstListed,
                             category: product.categories?.firstListed, imageURL: product.image_front_url)
    }
}

/// UPCitemdb's free trial lookup: `GET /prod/trial/lookup?upc={code}` (100 lookups a day per address).
public struct UPCItemDB: ProductProvider {
    public static let defaultBase = URL(string: "https://api.upcitemdb.com")!
    public let id = "upcitemdb"
    public let displayName = "UPCitemdb"
    let base: URL
    let http: ProviderHTTP

    public init(base: URL = Self.defaultBase, timeout: TimeInterval = 4) {
        self.base = base
        http = ProviderHTTP(timeout: timeout)
    }

    struct Response: Decodable {
        struct Item: Decodable {
            let title: String?
            let brand: String?
            let category: String?
            let images: [String]?
        }
        let code: String?
        let total: Int?
        let items: [Item]?
    }

    public func lookup(_ gtin: GTIN) async throws(ProviderError) -> ProductRecord? {
        let code = gtin.upcA ?? gtin.gtin13 ?? gtin.key
        var components = URLComponents(url: base.appendingPathComponent("prod/trial/lookup"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "upc", value: code)]
        let (status, body) = try await http.get(components.url!)
        let decoded = try? JSONDecoder().decode(Response.self, from: body)
        if decoded?.code == "TOO_FAST" || decoded?.code == "EXCEED_LIMIT" { throw .rateLimited }
        // An invalid or unknown code is a 400 / 404 with a code such as INVALID_UPC or NOT_FOUND.
        if status == 400 || status == 404 { return nil }
        guard status == 200, let decoded else { throw .badResponse("HTTP \(status)") }
        guard let item = decoded.items?.first, let title = item.title?.trimmed, !title.isEmpty else { return nil }
        return ProductRecord(source: id, code: code, name: title, brand: item.brand?.trimmed.nilIfEmpty,
                             category: item.category.flatMap { $0.split(separator: ">").last.map { String($0).trimmed } },
                             imageURL: item.images?.first)
    }
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
    var nilIfEmpty: String? { isEmpty ? nil : self }
    /// The first entry of a comma-separated list ("Nestlé, Nescafé" → "Nestlé").
    var firstListed: String? { split(separator: ",").first.map { String($0).trimmed }.flatMap(\.nilIfEmpty) }
}
