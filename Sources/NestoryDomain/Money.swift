import Foundation

/// An ISO 4217 currency code with the number of minor-unit digits the currency uses.
public struct CurrencyCode: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public let code: String

    /// Accepts three ASCII letters, in any case.
    public init(_ text: String) throws(DomainError) {
        // Already three capital letters (the stored form): kept as it is; every row read has one.
        if text.utf8.count == 3, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) {
            code = text
            return
        }
        let upper = text.trimmingCharacters(in: .whitespaces).uppercased()
        guard upper.count == 3, upper.unicodeScalars.allSatisfy({ $0.value >= 65 && $0.value <= 90 }) else {
            throw .invalid(field: "currency", message: "A currency is a three-letter ISO code such as USD or EUR.")
        }
        code = upper
    }

    private init(unchecked code: String) { self.code = code }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(code)
    }

    public var description: String { code }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.code < rhs.code }

    /// A currency a person chose or typed: one of ISO 4217's codes (current or historic), in any case;
    /// three letters that name no currency ("XYZ") are refused. Stored rows keep whatever they hold.
    public static func iso(_ text: String) throws(DomainError) -> CurrencyCode {
        let code = try CurrencyCode(text)
        guard isoCodes.contains(code.code) else {
            throw .invalid(field: "currency", message: "\(code.code) is not an ISO currency. Choose one from the list, such as USD or EUR.")
        }
        return code
    }

    /// Every ISO 4217 code Foundation knows, historic ones included (for checking input).
    static let isoCodes: Set<String> = Set(Locale.Currency.isoCurrencies.map(\.identifier))

    /// The currencies in use today, A to Z (for choices).
    public static let common: [CurrencyCode] = Locale.commonISOCurrencyCodes.sorted().map { CurrencyCode(unchecked: $0) }

    /// The currency's name in a language ("Euro"), or the code where there is none.
    public func name(in locale: Locale) -> String {
        locale.localizedString(forCurrencyCode: code) ?? code
    }

    public static let usd = CurrencyCode(unchecked: "USD")
    public static let eur = CurrencyCode(unchecked: "EUR")
    public static let gbp = CurrencyCode(unchecked: "GBP")
    public static let jpy = CurrencyCode(unchecked: "JPY")

    /// Digits after the decimal point (ISO 4217). Unlisted currencies use two.
    public var minorUnitDigits: Int {
        switch code {
        case "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND",
             "VUV", "XAF", "XOF", "XPF":
            return 0
        case "BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND":
            return 3
        case "CLF", "UYW":
            return 4
        default:
            return 2
        }
    }

    /// The symbol used when formatting amounts; the code itself where no symbol is unambiguous.
    public var symbol: String {
        switch code {
        case "USD": return "$"
        case "EUR": return "€"
        case "GBP": return "£"
        case "JPY": return "¥"
        case "INR": return "₹"
        case "KRW": return "₩"
        case "CHF": return "CHF "
        case "CAD": return "CA$"
        case "AUD": return "A$"
        case "NZD": return "NZ$"
        case "MYR": return "RM"
        default: return code + " "
        }
    }
}

/// An exact amount of money: integer minor units (cents) and a currency. Never floating point.
public struct Money: Hashable, Codable, Sendable, CustomStringConvertible {
    public let minorUnits: Int64
    public let currency: CurrencyCode

    /// The largest magnitude accepted, in minor units (10^15: ten trillion dollars). Larger numbers
    /// are absurd for a household and would overflow when summed.
    public static let maxMagnitude: Int64 = 1_000_000_000_000_000

    public init(minorUnits: Int64, currency: CurrencyCode) throws(DomainError) {
        guard minorUnits.magnitude <= Self.maxMagnitude.magnitude else {
            throw .invalid(field: "price", message: "That amount is too large.")
        }
        self.minorUnits = minorUnits
        self.currency = currency
    }

    public static func zero(_ currency: CurrencyCode) -> Money {
        // Zero is always within range.
        try! Money(minorUnits: 0, currency: currency)
    }

    /// Parses a plain decimal amount such as `1234.5`, `-12.50` or `1,234.56` (comma as a thousands
    /// separator). More fraction digits than the currency has are rejected, not silently rounded.
    public static func parse(_ text: String, currency: CurrencyCode) throws(DomainError) -> Money {
        var s = Substring(text.trimmingCharacters(in: .whitespaces))
        var negative = false
        if s.first == "-" { negative = true; s = s.dropFirst() } else if s.first == "+" { s = s.dropFirst() }
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard !s.isEmpty, parts.count <= 2 else {
            throw .invalid(field: "price", message: "Enter an amount such as 1234.56.")
        }
        let integerText = parts[0].replacingOccurrences(of: ",", with: "")
        let fractionText = parts.count == 2 ? String(parts[1]) : ""
        let digitsOnly = { (t: String) in t.unicodeScalars.allSatisfy { $0.value >= 48 && $0.value <= 57 } }
        guard digitsOnly(integerText), digitsOnly(fractionText), !(integerText.isEmpty && fractionText.isEmpty) else {
            throw .invalid(field: "price", message: "Enter an amount such as 1234.56.")
        }
        if parts[0].contains(",") {
            // Thousands separators must group by three: "1,234" yes, "12,34" no.
            let groups = parts[0].split(separator: ",", omittingEmptySubsequences: false)
            guard groups.first.map({ (1...3).contains($0.count) }) == true,
                  groups.dropFirst().allSatisfy({ $0.count == 3 }) else {
                throw .invalid(field: "price", message: "Enter an amount such as 1234.56.")
            }
        }
        let digits = currency.minorUnitDigits
        guard fractionText.count <= digits else {
            throw .invalid(
                field: "price",
                message: digits == 0
                    ? "\(currency.code) amounts have no decimal places."
                    : "\(currency.code) amounts have at most \(digits) decimal places."
            )
        }
        let paddedFraction = fractionText + String(repeating: "0", count: digits - fractionText.count)
        let all = (integerText + paddedFraction).drop(while: { $0 == "0" })
        guard all.count <= 16, let magnitude = Int64(all.isEmpty ? "0" : String(all)) else {
            throw .invalid(field: "price", message: "That amount is too large.")
        }
        return try Money(minorUnits: negative ? -magnitude : magnitude, currency: currency)
    }

    /// An amount as people type it, in the common spellings (`1,234.56`, `1.234,56`, `12,50`, `1 299,00`, `1'250.50`),
    /// with the currency's own symbol or code beside it if at all (`€12`, `12.50 EUR`; another currency's is refused,
    /// never taken for this one), read with `parse`'s rules once its separators are known. The one reading of typed
    /// amounts: the forms and the API.
    public static func parse(typed text: String, currency: CurrencyCode) throws(DomainError) -> Money {
        var body = text.trimmingCharacters(in: .whitespaces)
        var sign = ""
        if let first = body.first, first == "-" || first == "−" { sign = "-"; body = String(body.dropFirst()) }
        for mark in [currency.code, currency.symbol.trimmingCharacters(in: .whitespaces)] where !mark.isEmpty {
            if body.uppercased().hasPrefix(mark.uppercased()) { body = String(body.dropFirst(mark.count)) }
            if body.uppercased().hasSuffix(mark.uppercased()) { body = String(body.dropLast(mark.count)) }
            body = body.trimmingCharacters(in: .whitespaces)
        }
        // The sign may follow the mark too ("€-12").
        if sign.isEmpty, let first = body.first, first == "-" || first == "−" { sign = "-"; body = String(body.dropFirst()) }
        guard let plain = plainDigits(body) else {
            // Another currency's mark beside digits: say so, rather than only that it is not an amount.
            if plainText(typed: body) != nil, let other = otherCurrency(in: body), other != currency.code {
                throw .invalid(field: "price", message: "Amounts here are in \(currency.code), and this one is in \(other).")
            }
            // Not a spelling this knows (letters, two decimal marks): `parse` says what is wrong with it as typed.
            return try parse(text, currency: currency)
        }
        return try parse(sign + plain, currency: currency)
    }

    /// The currency a mark typed beside an amount names: an ISO code ("USD") or a symbol only one currency uses
    /// (not `$` or `¥`, which several do).
    private static func otherCurrency(in text: String) -> String? {
        let symbols: [Character: String] = ["€": "EUR", "£": "GBP", "₹": "INR", "₩": "KRW"]
        if let symbol = text.first(where: { symbols[$0] != nil }) { return symbols[symbol] }
        let letters = text.filter(\.isLetter)
        guard letters.count == 3, let code = try? CurrencyCode.iso(letters) else { return nil }
        return code.code
    }

    /// The plain decimal (`1234.56`) of an amount as a spreadsheet holds it, without a sign; nil when it is not one.
    /// A currency symbol or a three-letter code before or after is dropped (an import's currency is its own column).
    public static func plainText(typed raw: String) -> String? {
        var text = raw.trimmingCharacters(in: .whitespaces)
        text = String(text.unicodeScalars.filter { !"$€£¥₹₩".unicodeScalars.contains($0) }.map(Character.init))
        text = text.trimmingCharacters(in: .whitespaces)
        func isCode<S: StringProtocol>(_ part: S) -> Bool { part.allSatisfy { $0.isASCII && $0.isUppercase } }
        if text.count > 3, isCode(text.prefix(3)), !Array(text)[3].isLetter { text = String(text.dropFirst(3)) }
        if text.count > 3, isCode(text.suffix(3)), !Array(text)[text.count - 4].isLetter { text = String(text.dropLast(3)) }
        return plainDigits(text.trimmingCharacters(in: .whitespaces))
    }

    /// Digits with their separators as plain decimal text: spaces and `'` group digits; with both `.` and `,`, the
    /// last is the decimal mark; a lone `,` is one unless three digits follow it (`1,234` is a thousand); whatever
    /// groups the digits groups them by three (or by two before the last three, as in India). Nil for anything else.
    static func plainDigits(_ text: String) -> String? {
        let digitsOnly = text.filter { $0 != " " && $0 != "\u{00A0}" && $0 != "\u{202F}" && $0 != "'" }
        guard !digitsOnly.isEmpty, digitsOnly.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == ",") }),
              digitsOnly.contains(where: \.isNumber) else { return nil }
        let dots = digitsOnly.filter { $0 == "." }.count, commas = digitsOnly.filter { $0 == "," }.count
        var decimal: Character?
        if dots > 0 && commas > 0 {
            decimal = digitsOnly.lastIndex(of: ".")! > digitsOnly.lastIndex(of: ",")! ? "." : ","
        } else if dots == 1 {
            decimal = "."
        } else if commas == 1 {
            let after = digitsOnly.distance(from: digitsOnly.lastIndex(of: ",")!, to: digitsOnly.endIndex) - 1
            decimal = after == 3 ? nil : ","
        }
        if let decimal, digitsOnly.filter({ $0 == decimal }).count > 1 { return nil }
        // Whatever groups the digits groups them by three ("1 234,56", "1.234.567"), or as in India by two before the
        // last three ("1,23,456.00"); not "12,34.5" or "1.2".
        let whole = decimal.map { mark in String(text[..<text.lastIndex(of: mark)!]) } ?? text
        let groups = whole.split(omittingEmptySubsequences: false) { " \u{00A0}\u{202F}'.,".contains($0) }.map(\.count)
        if groups.count > 1 {
            let rest = groups.dropFirst()
            let thousands = (1...3).contains(groups[0]) && rest.allSatisfy { $0 == 3 }
            let lakhs = (1...2).contains(groups[0]) && rest.last == 3 && rest.dropLast().allSatisfy { $0 == 2 }
            guard thousands || lakhs else { return nil }
        }
        var out = ""
        for ch in digitsOnly {
            if ch == decimal { out.append(".") } else if ch.isNumber { out.append(ch) }
        }
        return out
    }

    /// The amount as an exact `Decimal` in major units.
    public var decimalAmount: Decimal {
        Decimal(sign: minorUnits < 0 ? .minus : .plus, exponent: -currency.minorUnitDigits,
                significand: Decimal(minorUnits.magnitude))
    }

    /// Plain text without symbol or grouping, e.g. `-12.50`: the form for CSV and JSON.
    public var plainAmount: String {
        let digits = currency.minorUnitDigits
        let magnitude = minorUnits.magnitude
        guard digits > 0 else { return (minorUnits < 0 ? "-" : "") + String(magnitude) }
        var divisor: UInt64 = 1
        for _ in 0..<digits { divisor *= 10 }
        let fraction = String(magnitude % divisor)
        return (minorUnits < 0 ? "-" : "") + String(magnitude / divisor) + "."
            + String(repeating: "0", count: digits - fraction.count) + fraction
    }

    /// Display text with symbol and thousands grouping, e.g. `$1,234.56`, `¥5,000`.
    public var formatted: String {
        let plain = plainAmount.hasPrefix("-") ? String(plainAmount.dropFirst()) : plainAmount
        let parts = plain.split(separator: ".", maxSplits: 1)
        var grouped = ""
        for (index, char) in parts[0].reversed().enumerated() {
            if index > 0, index % 3 == 0 { grouped.append(",") }
            grouped.append(char)
        }
        let integer = String(grouped.reversed())
        let body = parts.count == 2 ? integer + "." + parts[1] : integer
        return (minorUnits < 0 ? "-" : "") + currency.symbol + body
    }

    public var description: String { formatted }

    public func adding(_ other: Money) throws(DomainError) -> Money {
        guard other.currency == currency else { throw .currencyMismatch(currency, other.currency) }
        let (sum, overflow) = minorUnits.addingReportingOverflow(other.minorUnits)
        guard !overflow else { throw .invalid(field: "price", message: "That amount is too large.") }
        return try Money(minorUnits: sum, currency: currency)
    }

    public func multiplied(by quantity: Int) throws(DomainError) -> Money {
        let (product, overflow) = minorUnits.multipliedReportingOverflow(by: Int64(quantity))
        guard !overflow else { throw .invalid(field: "quantity", message: "That total is too large.") }
        return try Money(minorUnits: product, currency: currency)
    }

    /// Scales by `numerator / denominator` with the given rounding (e.g. a 15% depreciation is
    /// `scaled(by: 85, over: 100)`). Exact: computed in 128-bit integers.
    public func scaled(by numerator: Int64, over denominator: Int64, rounding: RoundingRule = .halfEven) throws(DomainError) -> Money {
        precondition(denominator != 0, "denominator must not be zero")
        let product = minorUnits.multipliedFullWidth(by: numerator)
        let wide = (Int128(product.high) << 64) | Int128(product.low)
        var quotient = wide / Int128(denominator)
        let remainder = wide % Int128(denominator)
        if remainder != 0 {
            let negative = (wide < 0) != (denominator < 0)
            let twiceRemainder = (remainder.magnitude) * 2
            let denominatorMagnitude = UInt128(denominator.magnitude)
            let roundAway: Bool
            switch rounding {
            case .towardZero: roundAway = false
            case .halfUp: roundAway = twiceRemainder >= denominatorMagnitude
            case .halfEven:
                roundAway = twiceRemainder > denominatorMagnitude
                    || (twiceRemainder == denominatorMagnitude && quotient % 2 != 0)
            }
            if roundAway { quotient += negative ? -1 : 1 }
        }
        guard quotient.magnitude <= UInt128(Self.maxMagnitude.magnitude) else {
            throw .invalid(field: "price", message: "That amount is too large.")
        }
        return try Money(minorUnits: Int64(quotient), currency: currency)
    }

    /// Splits into `parts` amounts that differ by at most one minor unit and add up exactly.
    public func split(into parts: Int) -> [Money] {
        precondition(parts > 0, "parts must be positive")
        let base = minorUnits / Int64(parts)
        let remainder = Int(minorUnits % Int64(parts))
        return (0..<parts).map { index in
            let extra: Int64 = index < abs(remainder) ? (remainder < 0 ? -1 : 1) : 0
            return try! Money(minorUnits: base + extra, currency: currency)
        }
    }

    /// How a fractional minor unit is resolved.
    public enum RoundingRule: Sendable {
        case halfEven, halfUp, towardZero
    }
}

/// Sums of money kept per currency: a household may own things bought in several currencies,
/// and they are never added together without an exchange rate.
public struct MoneyTotals: Hashable, Sendable, Codable {
    public private(set) var minorUnitsByCurrency: [CurrencyCode: Int64] = [:]

    public init() {}

    public init(_ amounts: [Money]) throws(DomainError) {
        for amount in amounts { try add(amount) }
    }

    public mutating func add(_ money: Money) throws(DomainError) {
        let current = minorUnitsByCurrency[money.currency] ?? 0
        let (sum, overflow) = current.addingReportingOverflow(money.minorUnits)
        guard !overflow else { throw .invalid(field: "price", message: "The total is too large.") }
        minorUnitsByCurrency[money.currency] = sum
    }

    /// The totals, largest currency group first is not meaningful across currencies, so they are
    /// ordered by currency code, with `preferred` first.
    public func amounts(preferred: CurrencyCode? = nil) -> [Money] {
        minorUnitsByCurrency.keys.sorted { a, b in
            if a == preferred { return true }
            if b == preferred { return false }
            return a < b
        }.map { Money(uncheckedMinorUnits: minorUnitsByCurrency[$0]!, currency: $0) }
    }

    public subscript(currency: CurrencyCode) -> Money {
        Money(uncheckedMinorUnits: minorUnitsByCurrency[currency] ?? 0, currency: currency)
    }

    public var isEmpty: Bool { minorUnitsByCurrency.isEmpty }
}

extension Money {
    /// For sums, which may exceed the per-item bound and are still exact. Not for user input.
    public init(uncheckedMinorUnits: Int64, currency: CurrencyCode) {
        self.minorUnits = uncheckedMinorUnits
        self.currency = currency
    }
}
