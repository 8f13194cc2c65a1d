/// A Global Trade Item Number read from a retail barcode (EAN-13, EAN-8, UPC-A, UPC-E) or typed by hand.
///
/// The same product printed as UPC-A `036000291452`, as EAN-13 `0036000291452` or as GTIN-14
/// `00036000291452` is one GTIN; a UPC-E code such as `04252614` is a zero-suppressed UPC-A
/// (`042100005264`). ``key`` is the one form to store and compare: **the GTIN-14 form**, every kind of code
/// zero-padded on the left to 14 digits (GS1's recommendation for databases; GTIN-14s with a non-zero
/// indicator digit would not fit a 13-digit key). ``lookupKeys`` lists the spellings a catalogue that
/// stores codes in mixed forms should be asked for.
public struct GTIN: Hashable, Sendable, CustomStringConvertible {
    /// How the number was printed or typed.
    public enum Format: String, Hashable, Sendable, Codable, CaseIterable {
        /// EAN-8 (GTIN-8).
        case ean8
        /// UPC-E: 8 digits, number system 0 or 1, a zero-suppressed UPC-A.
        case upcE
        /// UPC-A (GTIN-12).
        case upcA
        /// EAN-13 (GTIN-13), including ISBN-13 and ISSN bar codes.
        case ean13
        /// GTIN-14 (ITF-14 or GS1-128 cartons).
        case gtin14
    }

    /// How the number was printed or typed.
    public let format: Format
    /// The digits as read, without separators or add-on (8 digits for EAN-8 and UPC-E, 12 for UPC-A, ...).
    public let digits: String
    /// A 2- or 5-digit EAN/UPC add-on (periodicals, books), kept apart from the GTIN.
    public let addOn: String?
    /// The canonical key: the GTIN-14 form (zero-padded on the left). Equal for every form of one product.
    public let key: String

    /// Parses `text` as a GTIN, validating its check digit.
    ///
    /// Leading and trailing whitespace and separators between digit groups (spaces, hyphens, as printed
    /// under a bar code) are ignored. A 2- or 5-digit add-on after the main code is split off into
    /// ``addOn``: with a separator (`"9771234567003 05"`) or, when the length leaves no doubt (15, 17 or 18
    /// digits), without one. Eight digits are ambiguous between EAN-8 and UPC-E: pass the `format` the
    /// scanner reported when you know it; otherwise a code whose check digit is valid as EAN-8 is read as
    /// EAN-8, else as UPC-E.
    public init(parsing text: String, format hint: Format? = nil) throws(GTINError) {
        let trimmed = text.trimmingWhitespace
        guard !trimmed.isEmpty else { throw .empty }
        var groups: [String] = []
        var current = ""
        for character in trimmed {
            if character.isASCIIDigit {
                current.append(character)
            } else if character == " " || character == "-" || character == "\t" {
                if !current.isEmpty { groups.append(current); current = "" }
            } else {
                throw .notDigits(text)
            }
        }
        if !current.isEmpty { groups.append(current) }
        let all = groups.joined()

        // Readings to try, most likely first: the whole string; a separated trailing add-on; an unseparated add-on.
        var readings: [(main: String, addOn: String?)] = [(all, nil)]
        if groups.count > 1, let last = groups.last, last.count == 2 || last.count == 5 {
            readings.append((groups.dropLast().joined(), last))
        }
        switch all.count {
        case 15, 18: readings.append((String(all.prefix(13)), String(all.dropFirst(13))))
        case 17: readings.append((String(all.prefix(12)), String(all.dropFirst(12))))
        default: break
        }

        var firstError: GTINError?
        for reading in readings {
            do {
                let (format, key) = try Self.validate(reading.main, hint: hint)
                self.format = format
                self.digits = reading.main
                self.addOn = reading.addOn
                self.key = key
                return
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        throw firstError ?? .wrongLength(all.count)
    }

    /// Parses `text`, or returns nil when it is not a valid GTIN. See ``init(parsing:format:)``.
    public init?(_ text: String, format: Format? = nil) {
        guard let value = try? GTIN(parsing: text, format: format) else { return nil }
        self = value
    }

    /// The GTIN-13 form (EAN-13; UPC-A with a leading zero; EAN-8 with five), or nil for a GTIN-14 whose
    /// indicator digit is not zero.
    public var gtin13: String? { key.hasPrefix("0") ? String(key.dropFirst()) : nil }

    /// The 12-digit UPC-A form, when this GTIN is a UPC number (its GTIN-13 form starts with 0).
    public var upcA: String? {
        guard let gtin13, gtin13.hasPrefix("0") else { return nil }
        return String(gtin13.dropFirst())
    }

    /// The 8-digit UPC-E form, when this GTIN is a UPC-A that zero suppression can shorten.
    public var upcE: String? {
        if format == .upcE { return digits }
        guard let upcA else { return nil }
        return Self.compressUPCA(upcA)
    }

    /// The spellings a catalogue lookup should try, in order, without repeats: as scanned, the GTIN-13
    /// form, the 12-digit UPC-A (expanded UPC-E) form, the 8-digit UPC-E form, the GTIN-14 key.
    public var lookupKeys: [String] {
        var keys: [String] = []
        for candidate in [digits, gtin13, upcA, upcE, key] {
            if let candidate, !keys.contains(candidate) { keys.append(candidate) }
        }
        return keys
    }

    /// The GTIN-14 key.
    public var description: String { key }

    /// Two GTINs are equal when they name the same product, whatever form each was read in.
    public static func == (lhs: GTIN, rhs: GTIN) -> Bool { lhs.key == rhs.key }
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }

    // MARK: Rules

    /// The GS1 check digit for `body` (the digits before the check digit): weights 3, 1, 3, ... from the right.
    public static func checkDigit(for body: some StringProtocol) -> Int? {
        var sum = 0
        for (index, character) in body.reversed().enumerated() {
            guard let value = character.wholeNumberValue, character.isASCIIDigit else { return nil }
            sum += value * (index % 2 == 0 ? 3 : 1)
        }
        return (10 - sum % 10) % 10
    }

    /// Whether the last digit of `digits` is the GS1 check digit of the others.
    public static func hasValidCheckDigit(_ digits: some StringProtocol) -> Bool {
        guard digits.count >= 2, let last = digits.last, last.isASCIIDigit, let expected = checkDigit(for: digits.dropLast()) else {
            return false
        }
        return last.wholeNumberValue == expected
    }

    /// Expands an 8-digit UPC-E code (number system 0 or 1) to its 12-digit UPC-A, by the zero-suppression
    /// rules keyed on the sixth data digit. Returns nil for another length or number system. The check
    /// digit is carried over unchanged, not validated.
    public static func expandUPCE(_ upcE: some StringProtocol) -> String? {
        let d = Array(upcE)
        guard d.count == 8, d.allSatisfy(\.isASCIIDigit), d[0] == "0" || d[0] == "1" else { return nil }
        let ns = d[0], check = d[7]
        let (d1, d2, d3, d4, d5, d6) = (d[1], d[2], d[3], d[4], d[5], d[6])
        let manufacturer: [Character], product: [Character]
        switch d6 {
        case "0", "1", "2":
            manufacturer = [d1, d2, d6, "0", "0"]; product = ["0", "0", d3, d4, d5]
        case "3":
            manufacturer = [d1, d2, d3, "0", "0"]; product = ["0", "0", "0", d4, d5]
        case "4":
            manufacturer = [d1, d2, d3, d4, "0"]; product = ["0", "0", "0", "0", d5]
        default:
            manufacturer = [d1, d2, d3, d4, d5]; product = ["0", "0", "0", "0", d6]
        }
        return String([ns] + manufacturer + product + [check])
    }

    /// The standard UPC-E form of a 12-digit UPC-A, or nil when it has none (number system other than 0/1,
    /// or a manufacturer/product split that zero suppression cannot shorten).
    public static func compressUPCA(_ upcA: some StringProtocol) -> String? {
        let a = Array(upcA)
        guard a.count == 12, a.allSatisfy(\.isASCIIDigit), a[0] == "0" || a[0] == "1" else { return nil }
        let m = Array(a[1...5]), p = Array(a[6...10])
        let body: [Character]?
        if m[3] == "0", m[4] == "0", "012".contains(m[2]), p[0] == "0", p[1] == "0" {
            body = [m[0], m[1], p[2], p[3], p[4], m[2]]
        } else if m[3] == "0", m[4] == "0", p[0...2].allSatisfy({ $0 == "0" }) {
            body = [m[0], m[1], m[2], p[3], p[4], "3"]
        } else if m[4] == "0", p[0...3].allSatisfy({ $0 == "0" }) {
            body = [m[0], m[1], m[2], m[3], p[4], "4"]
        } else if p[0...3].allSatisfy({ $0 == "0" }), "56789".contains(p[4]) {
            body = [m[0], m[1], m[2], m[3], m[4], p[4]]
        } else {
            body = nil
        }
        guard let body else { return nil }
        let upcE = String([a[0]] + body + [a[11]])
        return expandUPCE(upcE) == String(upcA) ? upcE : nil
    }

    private static func validate(_ main: String, hint: Format?) throws(GTINError) -> (Format, String) {
        guard !main.isEmpty else { throw .empty }
        let format: Format
        switch (main.count, hint) {
        case (8, .upcE?): format = .upcE
        case (8, .ean8?): format = .ean8
        case (8, _):
            format = hasValidCheckDigit(main) || expandUPCE(main) == nil ? .ean8 : .upcE
        case (12, _): format = .upcA
        case (13, _): format = .ean13
        case (14, _): format = .gtin14
        default: throw .wrongLength(main.count)
        }
        let full: String
        if format == .upcE {
            guard let expanded = expandUPCE(main) else { throw .badNumberSystem(main) }
            full = expanded
        } else {
            full = main
        }
        guard hasValidCheckDigit(full) else { throw .badCheckDigit(main) }
        return (format, String(repeating: "0", count: 14 - full.count) + full)
    }
}

/// Why a text is not a GTIN. `message` is safe to show to people.
public enum GTINError: Error, Hashable, Sendable, CustomStringConvertible {
    case empty
    case notDigits(String)
    case wrongLength(Int)
    case badCheckDigit(String)
    /// An 8-digit UPC-E whose number system is not 0 or 1.
    case badNumberSystem(String)

    public var message: String {
        switch self {
        case .empty: return "The barcode number is empty."
        case .notDigits: return "A barcode number has only digits."
        case .wrongLength(let count): return "A barcode number has 8, 12, 13 or 14 digits, not \(count)."
        case .badCheckDigit(let digits): return "\(digits) is not a valid barcode number: its check digit is wrong (a digit may be misread or mistyped)."
        case .badNumberSystem(let digits): return "\(digits) is not a valid UPC-E code: it must start with 0 or 1."
        }
    }

    public var description: String { message }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { asciiValue.map { (48...57).contains($0) } ?? false }
}

extension String {
    fileprivate var trimmingWhitespace: Substring {
        let isSpace: (Character) -> Bool = { $0.isWhitespace }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[start...end]
    }
}
