import Foundation
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces

/// What is known about a scanned code.
public struct ProductSuggestion: Codable, Hashable, Sendable {
    /// `household` (an item you already have), `catalog`, or a provider's id.
    public var source: String
    public var sourceName: String
    public var name: String
    public var brand: String?
    public var category: String?
    public var imageURL: String?
    /// For `household`: the item that has this code.
    public var itemID: String?
}

public struct LookupResult: Codable, Hashable, Sendable {
    /// The code as scanned or typed.
    public var code: String
    /// Its GTIN-14 key, when it is a product code (EAN/UPC).
    public var gtin: String?
    /// The best answer, nil for "no match" (the code is still saved on the item).
    public var match: ProductSuggestion?
    /// The household's items that already carry this code.
    public var existingItems: [String]
    /// Things the person should know (a provider unreachable, rate limited, online lookups off).
    public var notices: [String]
}

/// Looks a code up, in order: the household's own items with the same GTIN; the local catalogue;
/// then, only when the household has turned them on, the online providers (answers, misses
/// included, are cached). Any spelling of a GTIN (UPC-A, UPC-E, EAN-13, EAN-8) finds the same record.
public struct ProductLookup: Sendable {
    /// The household's items by barcode (the items aggregate).
    public let items: any ItemStore
    /// The catalogue, the providers' cached answers and the household's switch.
    public let store: any ProductStore
    public let providers: [any ProductProvider]
    /// How long a provider's answer is trusted, and how long "not found" is.
    public var foundLifetime: TimeInterval = 30 * 86_400
    public var missLifetime: TimeInterval = 86_400
    /// How many of the household's items with the code are named.
    static let existingLimit = 5

    public init(items: any ItemStore, store: any ProductStore, providers: [any ProductProvider] = [OpenFoodFacts(), UPCItemDB()]) {
        self.items = items
        self.store = store
        self.providers = providers
    }

    public func lookup(_ raw: String, household: HouseholdID, now: Date = Date()) async throws -> LookupResult {
        let code = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        let gtin = GTIN(code)
        let keys = gtin?.lookupKeys ?? [code]
        var result = LookupResult(code: code, gtin: gtin?.key, match: nil, existingItems: [], notices: [])

        let items = try await items.items(household, barcodes: keys, limit: Self.existingLimit)
        result.existingItems = items.map(\.id.description)
        if let item = items.first {
            result.match = ProductSuggestion(source: "household", sourceName: "Your inventory", name: item.name, brand: item.brand,
                                             category: nil, imageURL: nil, itemID: item.id.description)
            return result
        }
        guard let gtin else { return result }
        if let product = try await store.catalogProduct(codes: keys), let name = product.name {
            result.match = ProductSuggestion(source: "catalog", sourceName: "Product catalogue", name: name, brand: product.brand,
                                             category: product.category, imageURL: product.imageURL, itemID: nil)
            return result
        }
        guard try await store.onlineProductLookup(household) else {
            if !providers.isEmpty {
                result.notices.append("Online product lookups are off for this household (Settings).")
            }
            return result
        }
        for provider in providers {
            let answer: CachedAnswer
            if let cached = try await store.cachedAnswer(provider: provider.id, key: gtin.key,
                                                         foundSince: now.addingTimeInterval(-foundLifetime),
                                                         missSince: now.addingTimeInterval(-missLifetime)) {
                answer = cached
            } else {
                do {
                    answer = try await provider.lookup(gtin).map(CachedAnswer.found) ?? .notFound
                    try await store.storeAnswer(provider: provider.id, key: gtin.key, answer, now: now)
                } catch let error as ProviderError {
                    result.notices.append(error.message(provider.displayName))
                    continue
                }
            }
            if case .found(let product) = answer, let name = product.name {
                result.match = ProductSuggestion(source: provider.id, sourceName: provider.displayName, name: name, brand: product.brand,
                                                 category: product.category, imageURL: product.imageURL, itemID: nil)
                return result
            }
        }
        return result
    }
}

/// Reads a catalogue file: JSON Lines with `barcode` (or `code`) and `product_name` (or `name`), and
/// optionally `brands`/`brand`, `categories`/`category`, `image_url` (Open Food Facts' field names
/// and the products-off-sample layout both work). Codes are kept as written: a lookup tries every
/// spelling of the scanned GTIN.
public enum CatalogFile {
    public struct Summary: Sendable {
        public var imported = 0
        public var skipped: [(line: Int, reason: String)] = []
    }

    public static func read(_ url: URL, batch: Int = 2000, _ consume: ([ProductRecord]) throws -> Void) throws -> Summary {
        guard let handle = try? FileHandle(forReadingFrom: url) else { throw CatalogError.unreadable(url.path) }
        defer { try? handle.close() }
        var summary = Summary()
        var records: [ProductRecord] = []
        func take(_ bytes: Data, _ line: Int) throws {
            guard bytes.contains(where: { $0 > 0x20 }) else { return }
            guard let object = (try? JSONSerialization.jsonObject(with: bytes)) as? [String: Any] else {
                summary.skipped.append((line, "not a JSON object"))
                return
            }
            func text(_ keys: String...) -> String? {
                for key in keys {
                    if let value = object[key] as? String, !value.trimmed.isEmpty { return value.trimmed }
                    if let value = object[key] as? NSNumber { return value.stringValue }
                }
                return nil
            }
            guard let code = text("barcode", "code").map({ $0.filter(\.isNumber) }), (6...14).contains(code.count) else {
                summary.skipped.append((line, "no barcode of 6 to 14 digits"))
                return
            }
            guard let name = text("product_name", "name").map(Self.unescapeHTML) else {
                summary.skipped.append((line, "no product name"))
                return
            }
            records.append(ProductRecord(source: "catalog", code: code, name: name, brand: text("brands", "brand")?.firstListed,
                                         category: text("categories", "category")?.firstListed, imageURL: text("image_url")))
            if records.count >= batch {
                try consume(records)
                summary.imported += records.count
                records.removeAll(keepingCapacity: true)
            }
        }
        do {
            try LineFile.forEachLine(of: handle, take)
        } catch LineFile.Failure.lineTooLong(let line) {
            throw CatalogError.lineTooLong(line)
        }
        if !records.isEmpty {
            try consume(records)
            summary.imported += records.count
        }
        return summary
    }

    /// The sample data carries HTML entities in names (`&quot;`).
    static func unescapeHTML(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}

public enum CatalogError: Error, CustomStringConvertible {
    case unreadable(String)
    case lineTooLong(Int)
    public var description: String {
        switch self {
        case .unreadable(let path): return "The catalogue file \(path) cannot be read."
        case .lineTooLong(let line): return "Line \(line) of the catalogue file is longer than 64 MB: it is not JSON Lines."
        }
    }
}
