import Foundation
import NestoryDomain

/// The rows of one household as a backup archive holds them (format version 1): one record type per
/// table, with the database's own values (ids, amounts in minor units, ISO dates, milliseconds since
/// 1970), so a restore reproduces the data exactly. Keys are snake_case; optional values may be null
/// or absent. See docs/backup-format.md.
public enum ArchiveRecord {
    public struct Household: Codable, Hashable, Sendable {
        public var id: String
        public var name: String
        public var currency: String
        public var highValueThresholdMinor: Int64
        public var createdAt: Int64
        /// Whether online product lookups are on (absent in older archives: off).
        public var onlineProductLookup: Bool?
        /// Whether barcode scanning is offered (absent in older archives: on).
        public var scanningEnabled: Bool?
        /// The household's time zone, an IANA name (absent in older archives, or null: the server's clock).
        public var timeZone: String?

        public init(id: String, name: String, currency: String, highValueThresholdMinor: Int64, createdAt: Int64, onlineProductLookup: Bool? = nil,
                    scanningEnabled: Bool? = nil, timeZone: String? = nil) {
            self.id = id
            self.name = name
            self.currency = currency
            self.highValueThresholdMinor = highValueThresholdMinor
            self.createdAt = createdAt
            self.onlineProductLookup = onlineProductLookup
            self.scanningEnabled = scanningEnabled
            self.timeZone = timeZone
        }

        /// The time zone a restore keeps: the archive's when this system knows it, else none (the server's clock), rather
        /// than refusing a whole backup over a zone another system's time zone database named.
        public var knownTimeZone: String? { timeZone.flatMap { try? NestoryDomain.Household.validatedTimeZone($0) } }

        enum CodingKeys: String, CodingKey {
            case id, name, currency, highValueThresholdMinor = "high_value_threshold_minor", createdAt = "created_at"
            case onlineProductLookup = "online_product_lookup", scanningEnabled = "scanning_enabled", timeZone = "time_zone"
        }
    }

    /// A member's account. The password hash (bcrypt over SHA-256) lets a restored server sign its
    /// members in again; archives made in the web app leave it out (null), and such an account needs
    /// a new password (`nestory user password`) before it can sign in.
    public struct User: Codable, Hashable, Sendable {
        public var id: String
        public var email: String
        public var displayName: String
        public var passwordHash: String?
        public var createdAt: Int64

        public init(id: String, email: String, displayName: String, passwordHash: String? = nil, createdAt: Int64) {
            self.id = id
            self.email = email
            self.displayName = displayName
            self.passwordHash = passwordHash
            self.createdAt = createdAt
        }

        enum CodingKeys: String, CodingKey {
            case id, email, displayName = "display_name", passwordHash = "password_hash", createdAt = "created_at"
        }
    }

    public struct Membership: Codable, Hashable, Sendable {
        public var userID: String
        public var role: String
        public var joinedAt: Int64

        public init(userID: String, role: String, joinedAt: Int64) {
            self.userID = userID
            self.role = role
            self.joinedAt = joinedAt
        }

        enum CodingKeys: String, CodingKey { case userID = "user_id", role, joinedAt = "joined_at" }
    }

    public struct Room: Codable, Hashable, Sendable {
        public var id: String
        public var name: String
        public var sortOrder: Int

        public init(id: String, name: String, sortOrder: Int) {
            self.id = id
            self.name = name
            self.sortOrder = sortOrder
        }

        enum CodingKeys: String, CodingKey { case id, name, sortOrder = "sort_order" }
    }

    public struct Category: Codable, Hashable, Sendable {
        public var id: String
        public var name: String
        public var colorHex: String
        public var icon: String
        public var sortOrder: Int
        public var isCustom: Bool

        public init(id: String, name: String, colorHex: String, icon: String, sortOrder: Int, isCustom: Bool) {
            self.id = id
            self.name = name
            self.colorHex = colorHex
            self.icon = icon
            self.sortOrder = sortOrder
            self.isCustom = isCustom
        }

        enum CodingKeys: String, CodingKey {
            case id, name, colorHex = "color_hex", icon, sortOrder = "sort_order", isCustom = "is_custom"
        }
    }

    public struct Item: Codable, Hashable, Sendable {
        public var id: String
        public var name: String
        public var brand: String?
        public var modelNumber: String?
        public var serialNumber: String?
        public var priceMinor: Int64?
        public var currency: String
        public var quantity: Int
        public var purchaseDate: String?
        public var categoryID: String?
        public var roomID: String?
        public var condition: String
        public var conditionNotes: String?
        public var barcode: String?
        public var warrantyExpiry: String?
        public var notes: String?
        public var tags: [String]
        public var createdAt: Int64
        public var updatedAt: Int64

        public init(id: String, name: String, brand: String? = nil, modelNumber: String? = nil, serialNumber: String? = nil, priceMinor: Int64? = nil, currency: String, quantity: Int, purchaseDate: String? = nil, categoryID: String? = nil, roomID: String? = nil, condition: String, conditionNotes: String? = nil, barcode: String? = nil, warrantyExpiry: String? = nil, notes: String? = nil, tags: [String], createdAt: Int64, updatedAt: Int64) {
            self.id = id
            self.name = name
            self.brand = brand
            self.modelNumber = modelNumber
            self.serialNumber = serialNumber
            self.priceMinor = priceMinor
            self.currency = currency
            self.quantity = quantity
            self.purchaseDate = purchaseDate
            self.categoryID = categoryID
            self.roomID = roomID
            self.condition = condition
            self.conditionNotes = conditionNotes
            self.barcode = barcode
            self.warrantyExpiry = warrantyExpiry
            self.notes = notes
            self.tags = tags
            self.createdAt = createdAt
            self.updatedAt = updatedAt
        }

        enum CodingKeys: String, CodingKey {
            case id, name, brand, modelNumber = "model_number", serialNumber = "serial_number", priceMinor = "price_minor"
            case currency, quantity, purchaseDate = "purchase_date", categoryID = "category_id", roomID = "room_id"
            case condition, conditionNotes = "condition_notes", barcode, warrantyExpiry = "warranty_expiry", notes, tags
            case createdAt = "created_at", updatedAt = "updated_at"
        }
    }

    /// A stored file: its checksum names the archive entry `files/<sha256>`.
    public struct Blob: Codable, Hashable, Sendable {
        public var sha256: String
        public var contentType: String
        public var byteCount: Int64
        public var createdAt: Int64

        public init(sha256: String, contentType: String, byteCount: Int64, createdAt: Int64) {
            self.sha256 = sha256
            self.contentType = contentType
            self.byteCount = byteCount
            self.createdAt = createdAt
        }

        enum CodingKeys: String, CodingKey {
            case sha256, contentType = "content_type", byteCount = "byte_count", createdAt = "created_at"
        }
    }

    public struct Photo: Codable, Hashable, Sendable {
        public var id: String
        public var itemID: String
        public var sha256: String
        public var isPrimary: Bool
        public var position: Int
        public var createdAt: Int64

        public init(id: String, itemID: String, sha256: String, isPrimary: Bool, position: Int, createdAt: Int64) {
            self.id = id
            self.itemID = itemID
            self.sha256 = sha256
            self.isPrimary = isPrimary
            self.position = position
            self.createdAt = createdAt
        }

        enum CodingKeys: String, CodingKey {
            case id, itemID = "item_id", sha256, isPrimary = "is_primary", position, createdAt = "created_at"
        }
    }

    /// The household's valuation settings: the providers (their keys only when the owner asked for them, in clear),
    /// the country, the exchange rates and the household's own depreciation table (JSON).
    public struct ValuationSettings: Codable, Hashable, Sendable {
        public var analysisBaseURL: String?
        public var analysisModel: String?
        public var analysisKey: String?
        public var searchKey: String?
        public var searchCountry: String?
        public var exchangeRates: String?
        public var depreciationTable: String?

        public init(analysisBaseURL: String?, analysisModel: String?, analysisKey: String?, searchKey: String?, searchCountry: String?,
                    exchangeRates: String?, depreciationTable: String?) {
            self.analysisBaseURL = analysisBaseURL
            self.analysisModel = analysisModel
            self.analysisKey = analysisKey
            self.searchKey = searchKey
            self.searchCountry = searchCountry
            self.exchangeRates = exchangeRates
            self.depreciationTable = depreciationTable
        }

        enum CodingKeys: String, CodingKey {
            case analysisBaseURL = "analysis_base_url", analysisModel = "analysis_model", analysisKey = "analysis_key", searchKey = "search_key"
            case searchCountry = "search_country", exchangeRates = "exchange_rates", depreciationTable = "depreciation_table"
        }
    }

    /// One valuation of an item's history (amounts in minor units of `currency`; `sources` is a JSON array).
    public struct Valuation: Codable, Hashable, Sendable {
        public var id: String
        public var itemID: String
        public var currency: String
        public var rcvMinor, rcvLowMinor, rcvHighMinor: Int64?
        public var acvMinor, acvLowMinor, acvHighMinor: Int64?
        public var method: String
        public var confidence: String
        public var valuedOn: String
        public var sources: String
        public var explanation: String?
        public var createdAt: Int64

        public init(id: String, itemID: String, currency: String, rcvMinor: Int64? = nil, rcvLowMinor: Int64? = nil, rcvHighMinor: Int64? = nil, acvMinor: Int64? = nil, acvLowMinor: Int64? = nil, acvHighMinor: Int64? = nil, method: String, confidence: String, valuedOn: String, sources: String, explanation: String? = nil, createdAt: Int64) {
            self.id = id
            self.itemID = itemID
            self.currency = currency
            self.rcvMinor = rcvMinor
            self.rcvLowMinor = rcvLowMinor
            self.rcvHighMinor = rcvHighMinor
            self.acvMinor = acvMinor
            self.acvLowMinor = acvLowMinor
            self.acvHighMinor = acvHighMinor
            self.method = method
            self.confidence = confidence
            self.valuedOn = valuedOn
            self.sources = sources
            self.explanation = explanation
            self.createdAt = createdAt
        }

        enum CodingKeys: String, CodingKey {
            case id, itemID = "item_id", currency, rcvMinor = "rcv_minor", rcvLowMinor = "rcv_low_minor", rcvHighMinor = "rcv_high_minor"
            case acvMinor = "acv_minor", acvLowMinor = "acv_low_minor", acvHighMinor = "acv_high_minor", method, confidence
            case valuedOn = "valued_on", sources, explanation, createdAt = "created_at"
        }
    }

    /// A generated report of the export history; its PDF is the archive entry `reports/<file_name>`.
    public struct Report: Codable, Hashable, Sendable {
        public var id: String
        public var kind: String
        public var createdAt: Int64
        public var byteCount: Int64
        public var options: String
        public var fileName: String

        public init(id: String, kind: String, createdAt: Int64, byteCount: Int64, options: String, fileName: String) {
            self.id = id
            self.kind = kind
            self.createdAt = createdAt
            self.byteCount = byteCount
            self.options = options
            self.fileName = fileName
        }

        enum CodingKeys: String, CodingKey {
            case id, kind, createdAt = "created_at", byteCount = "byte_count", options, fileName = "file_name"
        }
    }

    public struct Receipt: Codable, Hashable, Sendable {
        public var id: String
        public var itemID: String?
        public var sha256: String
        public var vendor: String?
        public var currency: String?
        public var totalMinor: Int64?
        public var taxMinor: Int64?
        public var purchaseDate: String?
        public var rawText: String?
        public var confidence: Double?
        public var createdAt: Int64

        public init(id: String, itemID: String? = nil, sha256: String, vendor: String? = nil, currency: String? = nil, totalMinor: Int64? = nil, taxMinor: Int64? = nil, purchaseDate: String? = nil, rawText: String? = nil, confidence: Double? = nil, createdAt: Int64) {
            self.id = id
            self.itemID = itemID
            self.sha256 = sha256
            self.vendor = vendor
            self.currency = currency
            self.totalMinor = totalMinor
            self.taxMinor = taxMinor
            self.purchaseDate = purchaseDate
            self.rawText = rawText
            self.confidence = confidence
            self.createdAt = createdAt
        }

        enum CodingKeys: String, CodingKey {
            case id, itemID = "item_id", sha256, vendor, currency, totalMinor = "total_minor", taxMinor = "tax_minor"
            case purchaseDate = "purchase_date", rawText = "raw_text", confidence, createdAt = "created_at"
        }
    }
}

/// Where a restore reads the archive's rows from, one at a time (so memory stays flat), after the
/// archive has been validated.
public protocol HouseholdArchiveSource: Sendable {
    var household: ArchiveRecord.Household { get }
    var users: [ArchiveRecord.User] { get }
    var memberships: [ArchiveRecord.Membership] { get }
    var rooms: [ArchiveRecord.Room] { get }
    var categories: [ArchiveRecord.Category] { get }
    var blobs: [String: ArchiveRecord.Blob] { get }
    /// How many items `forEachItem` gives (it decides whether the restore rebuilds the item indexes: see `bulkItemWrite`).
    var itemCount: Int { get }
    func forEachItem(_ body: (ArchiveRecord.Item) throws -> Void) throws
    func forEachPhoto(_ body: (ArchiveRecord.Photo) throws -> Void) throws
    func forEachReceipt(_ body: (ArchiveRecord.Receipt) throws -> Void) throws
    /// The export history (small: read whole).
    var reports: [ArchiveRecord.Report] { get }
    /// The items' valuation histories (archives made before valuations existed have none).
    func forEachValuation(_ body: (ArchiveRecord.Valuation) throws -> Void) throws
}
