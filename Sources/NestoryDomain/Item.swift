import Foundation

/// The state an item is in, on the spec's five-step scale.
public enum ItemCondition: String, Hashable, Codable, Sendable, CaseIterable {
    case new
    case likeNew = "like_new"
    case good
    case fair
    case poor

    public var label: String {
        switch self {
        case .new: return "New"
        case .likeNew: return "Like new"
        case .good: return "Good"
        case .fair: return "Fair"
        case .poor: return "Poor"
        }
    }
}

/// Something the household owns, with the evidence of what it was worth and where it was.
public struct Item: Identifiable, Hashable, Codable, Sendable {
    public let id: ItemID
    public let householdID: HouseholdID
    public var name: String
    public var brand: String?
    public var modelNumber: String?
    public var serialNumber: String?
    /// Price of one unit; its currency is the item's currency.
    public var purchasePrice: Money?
    public var purchaseDate: CalendarDate?
    /// The currency the item is valued in (the household's unless the user chose another).
    public var currency: CurrencyCode
    public var categoryID: CategoryID?
    public var roomID: RoomID?
    public var condition: ItemCondition
    public var conditionNotes: String?
    /// As scanned or typed; normalisation to a GTIN belongs to the barcode capability.
    public var barcode: String?
    public var warrantyExpiry: CalendarDate?
    public var tags: [String]
    public var notes: String?
    public var quantity: Int
    public let createdAt: Date
    public var updatedAt: Date

    @inlinable public init(id: ItemID = ItemID(), householdID: HouseholdID, draft: ItemDraft, createdAt: Date, updatedAt: Date? = nil) {
        self.id = id
        self.householdID = householdID
        self.name = draft.name
        self.brand = draft.brand
        self.modelNumber = draft.modelNumber
        self.serialNumber = draft.serialNumber
        self.purchasePrice = draft.purchasePrice
        self.purchaseDate = draft.purchaseDate
        self.currency = draft.currency
        self.categoryID = draft.categoryID
        self.roomID = draft.roomID
        self.condition = draft.condition
        self.conditionNotes = draft.conditionNotes
        self.barcode = draft.barcode
        self.warrantyExpiry = draft.warrantyExpiry
        self.tags = draft.tags
        self.notes = draft.notes
        self.quantity = draft.quantity
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
    }

    /// The editable fields, for an edit form.
    public var draft: ItemDraft {
        ItemDraft(name: name, brand: brand, modelNumber: modelNumber, serialNumber: serialNumber,
                  purchasePrice: purchasePrice, purchaseDate: purchaseDate, currency: currency,
                  categoryID: categoryID, roomID: roomID, condition: condition, conditionNotes: conditionNotes,
                  barcode: barcode, warrantyExpiry: warrantyExpiry, tags: tags, notes: notes, quantity: quantity)
    }

    /// Unit price times quantity: what the item adds to the household's estimated value.
    public var totalValue: Money? {
        guard let purchasePrice else { return nil }
        return try? purchasePrice.multiplied(by: quantity)
    }
}

/// The fields a person fills in to add or edit an item. `validated` normalises and checks them.
public struct ItemDraft: Hashable, Codable, Sendable {
    public var name: String
    public var brand: String?
    public var modelNumber: String?
    public var serialNumber: String?
    public var purchasePrice: Money?
    public var purchaseDate: CalendarDate?
    public var currency: CurrencyCode
    public var categoryID: CategoryID?
    public var roomID: RoomID?
    public var condition: ItemCondition
    public var conditionNotes: String?
    public var barcode: String?
    public var warrantyExpiry: CalendarDate?
    public var tags: [String]
    public var notes: String?
    public var quantity: Int

    @inlinable public init(name: String, brand: String? = nil, modelNumber: String? = nil, serialNumber: String? = nil,
                purchasePrice: Money? = nil, purchaseDate: CalendarDate? = nil, currency: CurrencyCode,
                categoryID: CategoryID? = nil, roomID: RoomID? = nil, condition: ItemCondition = .good,
                conditionNotes: String? = nil, barcode: String? = nil, warrantyExpiry: CalendarDate? = nil,
                tags: [String] = [], notes: String? = nil, quantity: Int = 1) {
        self.name = name
        self.brand = brand
        self.modelNumber = modelNumber
        self.serialNumber = serialNumber
        self.purchasePrice = purchasePrice
        self.purchaseDate = purchaseDate
        self.currency = currency
        self.categoryID = categoryID
        self.roomID = roomID
        self.condition = condition
        self.conditionNotes = conditionNotes
        self.barcode = barcode
        self.warrantyExpiry = warrantyExpiry
        self.tags = tags
        self.notes = notes
        self.quantity = quantity
    }

    public static let maxNameLength = 200
    public static let maxShortFieldLength = 120
    public static let maxNotesLength = 10_000
    public static let maxTags = 30
    public static let maxTagLength = 40
    public static let maxQuantity = 100_000

    /// Trims text, turns empty text into nothing, normalises tags and checks every rule, reporting
    /// all broken rules at once. `today` is the household's calendar day, for "not in the future".
    public func validated(today: CalendarDate) throws(DomainError) -> ItemDraft {
        var errors: [FieldError] = []
        var out = self

        out.name = Text.clean(name) ?? ""
        if out.name.isEmpty {
            errors.append(.init(field: "name", message: "Give the item a name."))
        } else if out.name.count > Self.maxNameLength {
            errors.append(.init(field: "name", message: "Keep the name under \(Self.maxNameLength) characters."))
        }
        for (field, keyPath) in [("brand", \ItemDraft.brand), ("modelNumber", \.modelNumber),
                                 ("serialNumber", \.serialNumber), ("barcode", \.barcode)] {
            out[keyPath: keyPath] = self[keyPath: keyPath].flatMap(Text.clean)
            if let value = out[keyPath: keyPath], value.count > Self.maxShortFieldLength {
                errors.append(.init(field: field, message: "Keep this under \(Self.maxShortFieldLength) characters."))
            }
        }
        for (field, keyPath) in [("notes", \ItemDraft.notes), ("conditionNotes", \.conditionNotes)] {
            out[keyPath: keyPath] = self[keyPath: keyPath].flatMap(Text.cleanMultiline)
            if let value = out[keyPath: keyPath], value.count > Self.maxNotesLength {
                errors.append(.init(field: field, message: "Keep this under \(Self.maxNotesLength) characters."))
            }
        }
        if let price = purchasePrice {
            if price.currency != currency {
                errors.append(.init(field: "purchasePrice", message: "The price must be in the item's currency (\(currency))."))
            } else if price.minorUnits < 0 {
                errors.append(.init(field: "purchasePrice", message: "A price cannot be negative."))
            }
        }
        if !(1...Self.maxQuantity).contains(quantity) {
            errors.append(.init(field: "quantity", message: "Quantity is a whole number from 1 to \(Self.maxQuantity)."))
        } else if let price = purchasePrice, (try? price.multiplied(by: quantity)) == nil {
            errors.append(.init(field: "quantity", message: "Price times quantity is too large."))
        }
        if let date = purchaseDate, let tomorrow = try? today.adding(days: 1), date > tomorrow {
            errors.append(.init(field: "purchaseDate", message: "The purchase date cannot be in the future."))
        }
        out.tags = Tag.normalize(tags)
        if out.tags.count > Self.maxTags {
            errors.append(.init(field: "tags", message: "Use at most \(Self.maxTags) tags."))
        }
        if out.tags.contains(where: { $0.count > Self.maxTagLength }) {
            errors.append(.init(field: "tags", message: "Keep each tag under \(Self.maxTagLength) characters."))
        }
        guard errors.isEmpty else { throw .validation(errors) }
        return out
    }
}

/// Free-form labels on items ("insured", "gift", "kids").
public enum Tag {
    /// What separates tags written as one line of text (the item form, a CSV cell): a tag never holds one, so
    /// tags written out that way read back as the same tags.
    public static func isSeparator(_ character: Character) -> Bool { character == "," || character == ";" || character == "|" }

    /// The tags in one line of text, e.g. "insured, gift; kids"; `normalize` still has to run.
    public static func split(_ text: String) -> [String] {
        text.split(whereSeparator: isSeparator).map(String.init)
    }

    /// Splits at separators, trims, drops empties and a leading `#`, and removes duplicates that differ only in
    /// case, keeping the first spelling and order.
    public static func normalize(_ tags: [String]) -> [String] {
        var seen = Set<String>()
        var out: [String] = []
        for raw in tags.flatMap(split) {
            var tag = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            while tag.hasPrefix("#") { tag.removeFirst() }
            tag = tag.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            guard !tag.isEmpty, seen.insert(Text.foldKey(tag)).inserted else { continue }
            out.append(tag)
        }
        return out
    }
}

/// Text helpers shared by validation and search.
public enum Text {
    /// Trims, collapses runs of white space and removes control characters; nil when nothing is left.
    public static func clean(_ raw: String) -> String? {
        // Most text is printable ASCII with single spaces inside: then there is nothing to clean (an import of a
        // million rows cleans ten million fields).
        isCleanASCII(raw) ? raw : cleanScalars(raw)
    }

    /// `clean` for any text, scalar by scalar. A line break or tab between words is a space between them ("Sony⏎TV" is
    /// "Sony TV", not "SonyTV"); other control characters go.
    static func cleanScalars(_ raw: String) -> String? {
        let cleaned = raw.unicodeScalars.filter { !controlCharacters.contains($0) || $0.properties.isWhitespace }
        let text = String(String.UnicodeScalarView(cleaned)).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return visible(text)
    }

    /// `text` without a joiner at either end (it joins nothing there), or nil when nothing visible is left (a name
    /// of only joiners is no name).
    private static func visible(_ text: String) -> String? {
        guard text.unicodeScalars.contains(where: keptInvisible.contains) else { return text.isEmpty ? nil : text }
        let trimmed = text.trimmingCharacters(in: joiners.union(.whitespacesAndNewlines))
        return trimmed.unicodeScalars.contains(where: { !keptInvisible.contains($0) && !$0.properties.isWhitespace }) ? trimmed : nil
    }

    /// Printable ASCII (no control character), not starting or ending with a space, no two spaces in a row:
    /// what `clean` returns unchanged.
    static func isCleanASCII(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard let first = bytes.first, let last = bytes.last, first != 0x20, last != 0x20 else { return false }
            var previous: UInt8 = 0
            for byte in bytes {
                guard byte >= 0x20, byte < 0x7F, !(byte == 0x20 && previous == 0x20) else { return false }
                previous = byte
            }
            return true
        } ?? false
    }

    /// What cleaning drops: control characters (Unicode's Cc) and the invisible format characters (Cf: bidi overrides
    /// and isolates, which make a name read backwards in a report, zero-width spaces, byte-order marks, soft hyphens),
    /// except `joiners`, which are part of how text is spelt.
    private static let controlCharacters = CharacterSet.controlCharacters.subtracting(keptInvisible)

    /// U+200C zero-width non-joiner and U+200D zero-width joiner: part of how Persian and Indic words are spelt, and of
    /// emoji sequences such as 👨‍👩‍👧 or 🏳️‍🌈, which fall apart into several pictures without them.
    private static let joiners = CharacterSet(charactersIn: "\u{200C}\u{200D}")

    /// The format characters text keeps: `joiners` and the tag characters U+E0020...U+E007F (the flags of Scotland,
    /// England and Wales).
    private static let keptInvisible: CharacterSet = {
        var set = joiners
        set.insert(charactersIn: Unicode.Scalar(0xE0020)!...Unicode.Scalar(0xE007F)!)
        return set
    }()

    /// Like `clean`, but keeps line breaks (for notes).
    public static func cleanMultiline(_ raw: String) -> String? {
        // Windows' CR LF and old Macs' lone CR (still written by some apps and spreadsheets) end lines too.
        let lines = raw.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in
                String(String.UnicodeScalarView(line.unicodeScalars.filter {
                    !controlCharacters.contains($0) || $0 == "\t"
                })).trimmingCharacters(in: .whitespaces)
            }
        return visible(lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The one of `candidates` that `word` most likely misspells (case ignored, within a quarter of its letters or
    /// two), for a "did you mean" hint; nil when none is that close.
    public static func closest(to word: String, among candidates: [String]) -> String? {
        let lowered = word.lowercased()
        guard let best = candidates.map({ (candidate: $0, distance: editDistance(lowered, $0.lowercased())) }).min(by: { $0.distance < $1.distance }),
              best.distance <= max(2, word.count / 4) else { return nil }
        return best.candidate
    }

    /// The Levenshtein distance between two strings (characters inserted, removed or replaced).
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// A key for sorting and comparing names: case and accents folded ("Émile" sorts with "emile").
    public static func foldKey(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    /// Letters Unicode does not decompose into a base letter and an accent, written as people type them
    /// without the key: Søren → Soren, Æsop → AEsop, Straße → Strasse, Łódź → Lodz (accents that do decompose
    /// are folded by the search index itself). Applied the same way to what is indexed and to what is searched.
    public static func searchFold(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { foldedLetters[$0] != nil }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if let replacement = foldedLetters[scalar] { out.append(contentsOf: replacement.unicodeScalars) } else { out.append(scalar) }
        }
        return String(out)
    }

    /// The words of a search as every engine reads them: letters folded (`searchFold`), split at white space and
    /// control characters (NUL, escapes, bidi and zero-width marks separate words like spaces), words without a
    /// letter or digit dropped, at most 16. Nil when none is left (no search filter). Each word is then quoted for
    /// the engine, so `"`, `*`, `-`, `OR` and `NEAR(` are only text.
    public static func searchWords(_ text: String) -> [String]? {
        let words = searchFold(text).split(whereSeparator: { character in
            character.isWhitespace || character.unicodeScalars.contains { CharacterSet.controlCharacters.contains($0) }
        })
            .map(String.init)
            .filter { word in word.unicodeScalars.contains { CharacterSet.alphanumerics.contains($0) } }
            .prefix(16)
        return words.isEmpty ? nil : Array(words)
    }

    /// The tokens of text as SQLite's `unicode61 remove_diacritics 2` tokenizer cuts them, for an engine without
    /// that tokenizer (PostgreSQL): letters folded (`searchFold`), case and accents folded, then runs of
    /// letters and digits; everything else separates. Stemming is the engine's (the same Porter algorithm).
    public static func searchTokens(_ text: String) -> [String] {
        // Width is not folded: unicode61 keeps full-width letters as they are.
        let folded = searchFold(text).folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
        var tokens: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in folded.unicodeScalars {
            if tokenScalars.contains(scalar) {
                current.append(scalar)
            } else if !current.isEmpty {
                tokens.append(String(current))
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { tokens.append(String(current)) }
        return tokens
    }

    /// unicode61's token characters: letters, marks and numbers (categories L*, M*, N*) and private use (Co);
    /// spaces, punctuation and symbols separate.
    static let tokenScalars = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "\u{E000}"..."\u{F8FF}"))

    static let foldedLetters: [Unicode.Scalar: String] = [
        "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ß": "ss", "ẞ": "SS", "ł": "l", "Ł": "L",
        "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "TH", "ı": "i", "ħ": "h", "Ħ": "H", "ŀ": "l", "Ŀ": "L",
        "ŧ": "t", "Ŧ": "T", "ĸ": "k",
    ]
}
