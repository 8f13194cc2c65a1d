import Foundation
import NestoryDomain

/// A product as a catalogue or an online provider describes it.
public struct ProductRecord: Hashable, Sendable, Codable {
    /// Where it came from: `catalog`, or a provider's id (`openfoodfacts`, `upcitemdb`).
    public var source: String
    /// The code as the source spells it.
    public var code: String
    public var name: String?
    public var brand: String?
    public var category: String?
    public var imageURL: String?

    public init(source: String, code: String, name: String?, brand: String? = nil, category: String? = nil, imageURL: String? = nil) {
        self.source = source
        self.code = code
        self.name = name
        self.brand = brand
        self.category = category
        self.imageURL = imageURL
    }
}

/// A provider's cached answer: a product, or "it does not know this code".
public enum CachedAnswer: Hashable, Sendable {
    case found(ProductRecord)
    case notFound
}

/// Product lookups: the catalogue (products by GTIN, loaded by `nestory catalog import`), online providers' answers
/// kept for a while (a product, or "it does not know this code"), and each household's switches for scanning and
/// for asking providers. Catalogue and answers describe products, not anyone's belongings, so they are shared by
/// every household; the switches are the household's.
///
/// Every engine keeps the same rules (checked by the conformance suite): a catalogue product is found under the
/// first of the codes given that it has; an answer is returned only while it is fresh (a miss for less long than a
/// find); storing an answer again replaces it; online lookup is off and scanning on until the household changes them.
public protocol ProductStore: Sendable {
    /// Adds or replaces catalogue products (one transaction per call). Returns how many were written.
    @discardableResult
    func importCatalog(_ products: [ProductRecord], now: Date) async throws -> Int
    /// The first catalogue product under any of `codes` (tried in order: the spellings of one GTIN).
    func catalogProduct(codes: [String]) async throws -> ProductRecord?
    func catalogCount() async throws -> Int
    /// A provider's answer for a GTIN key: a find stored at or after `foundSince`, a miss at or after `missSince`.
    func cachedAnswer(provider: String, key: String, foundSince: Date, missSince: Date) async throws -> CachedAnswer?
    func storeAnswer(provider: String, key: String, _ answer: CachedAnswer, now: Date) async throws
    /// Whether Nestory may ask online providers about products for the household (off unless turned on).
    func onlineProductLookup(_ householdID: HouseholdID) async throws -> Bool
    func setOnlineProductLookup(_ householdID: HouseholdID, _ enabled: Bool) async throws
    /// Whether the Capture tab offers barcode scanning (on unless turned off).
    func scanningEnabled(_ householdID: HouseholdID) async throws -> Bool
    func setScanningEnabled(_ householdID: HouseholdID, _ enabled: Bool) async throws
}
