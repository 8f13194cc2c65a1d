import Foundation
import NestoryDomain

// Prices read from market search results (issue 17): every amount written with a currency, in the separators
// it was written with, judged by the words around it. Only a result's title and content are read: a search's
// own prose answer is never taken as a number.

/// Whether a price is for a used or a new item, as the words around it (or its result) say.
public enum ListingState: String, Hashable, Sendable, Codable {
    case used, new, unknown
}

/// Why an amount written in a result is not a price of the item.
public enum DroppedReason: String, Hashable, Sendable, Codable {
    /// Shipping, postage or delivery.
    case shipping
    /// A saving or discount ("save $50", "$50 off").
    case saving
    /// A monthly price or an instalment ("$25/mo", "4 payments of $24.99").
    case instalment
    /// A lot, bundle or set ("lot of 3", "2 for $10").
    case bundle
    /// The price before a reduction ("was $150", "list price", "RRP").
    case wasPrice
    /// A bound, not a price ("orders over $35", "under $200").
    case bound
    /// A tax, fee or deposit.
    case fee
    /// A gift card, credit, trade-in or opening bid.
    case promotion
    /// For parts or not working.
    case forParts
}

/// One amount of money as a result wrote it.
public struct FoundAmount: Hashable, Sendable {
    /// In the currency it was written in; for a range ("$100–$150"), its midpoint.
    public let amount: Money
    /// The text as written, currency and separators included.
    public let written: String
    public let isRange: Bool
    public let state: ListingState
    /// Why it is not a price of the item; nil when it is.
    public let dropped: DroppedReason?

    public init(amount: Money, written: String, isRange: Bool, state: ListingState, dropped: DroppedReason?) {
        self.amount = amount
        self.written = written
        self.isRange = isRange
        self.state = state
        self.dropped = dropped
    }
}

/// Which currency the ambiguous symbols mean where a result is read: `$` (USD, CAD, AUD, …), `kr` (SEK, NOK,
/// DKK, ISK) and `¥` (JPY or CNY). Made from the result's address (its country domain) or the search's country.
public struct PriceContext: Hashable, Sendable {
    public var dollar: CurrencyCode
    /// nil: `kr` alone names no currency here, and its amounts are not read.
    public var krone: CurrencyCode?
    public var yen: CurrencyCode

    public init(dollar: CurrencyCode = .usd, krone: CurrencyCode? = nil, yen: CurrencyCode = .jpy) {
        self.dollar = dollar
        self.krone = krone
        self.yen = yen
    }

    /// The context for a result: its address's country domain first (`.ca`, `.com.au`, `.se`, …), else the
    /// country searched (ISO 3166 alpha-2), else `$` is USD, `¥` JPY and `kr` unread.
    public static func forResult(url: String, country: String?) -> PriceContext {
        let host = URLComponents(string: url)?.host?.lowercased() ?? ""
        let tld = host.split(separator: ".").last.map(String.init) ?? ""
        return forCountry(tld.count == 2 ? tld : nil) ?? forCountry(country?.lowercased()) ?? PriceContext()
    }

    static func forCountry(_ country: String?) -> PriceContext? {
        func code(_ text: String) -> CurrencyCode { try! CurrencyCode(text) }
        switch country {
        case "ca": return PriceContext(dollar: code("CAD"))
        case "au": return PriceContext(dollar: code("AUD"))
        case "nz": return PriceContext(dollar: code("NZD"))
        case "sg": return PriceContext(dollar: code("SGD"))
        case "hk": return PriceContext(dollar: code("HKD"))
        case "mx": return PriceContext(dollar: code("MXN"))
        case "se": return PriceContext(krone: code("SEK"))
        case "no": return PriceContext(krone: code("NOK"))
        case "dk": return PriceContext(krone: code("DKK"))
        case "is": return PriceContext(krone: code("ISK"))
        case "cn": return PriceContext(yen: code("CNY"))
        case "us": return PriceContext()
        default: return nil
        }
    }
}

/// Reads the amounts of money in a text.
public enum PriceExtractor {
    /// Every amount written with a currency in `text`, with the reason it is dropped where one applies.
    /// `resultState` is the state the whole result's words give (used for amounts whose own words say none);
    /// `resultDropped`: the result as a whole is a lot or bundle, or for parts; `itemWords`: the item's own name,
    /// whose words are not taken as marks ("set of" in "knife set of 6").
    public static func amounts(in text: String, context: PriceContext = PriceContext(), resultState: ListingState = .unknown,
                               resultDropped: DroppedReason? = nil, itemWords: String = "") -> [FoundAmount] {
        let chars = normalized(text)
        let tokens = moneyTokens(chars, context: context)
        let item = itemWords.lowercased()
        var found: [(token: MoneyToken, dropped: DroppedReason?, state: ListingState)] = []
        for (index, token) in tokens.enumerated() {
            let previousEnd = index > 0 ? tokens[index - 1].end : 0
            let nextStart = index + 1 < tokens.count ? tokens[index + 1].start : chars.count
            let before = window(chars, from: max(previousEnd, clauseStart(chars, before: token.start)), to: token.start, keepLast: 48)
            let after = window(chars, from: token.end, to: min(nextStart, clauseEnd(chars, after: token.end)), keepFirst: 32)
            let sentence = String(chars[sentenceStart(chars, before: token.start)..<sentenceEnd(chars, after: token.end)]).lowercased()
            var dropped = reason(before: before, after: after, negative: token.negative)
            if dropped == nil, !Words.any(Words.each, in: after) {
                if Words.any(Words.parts, in: sentence) { dropped = .forParts }
                else if Words.any(Words.bundleMarks(besides: item), in: sentence) { dropped = .bundle }
                else { dropped = resultDropped }
            }
            let local = Words.state(of: String(before.suffix(32)) + " | " + String(after.prefix(16)))
            found.append((token, dropped, local == .unknown ? resultState : local))
        }
        return mergeRanges(found, chars: chars)
    }

    /// The amounts of one search result (its title, then its content), its state judged from both. A title that
    /// says the listing is a lot or bundle, or for parts, drops every amount of the result.
    public static func amounts(in result: SearchResult, context: PriceContext, itemWords: String = "") -> [FoundAmount] {
        let state = resultState(title: result.title, content: result.content)
        let title = result.title.lowercased()
        let dropped: DroppedReason? = Words.any(Words.parts, in: title) ? .forParts
            : Words.any(Words.bundleMarks(besides: itemWords.lowercased()), in: title) ? .bundle : nil
        return amounts(in: result.title, context: context, resultState: state, resultDropped: dropped, itemWords: itemWords)
            + amounts(in: result.content, context: context, resultState: state, resultDropped: dropped, itemWords: itemWords)
    }

    /// Used or new from a result's words: one kind only in title and content, or, when both speak, the title's.
    public static func resultState(title: String, content: String) -> ListingState {
        let all = Words.state(of: title + " | " + content)
        return all != .unknown ? all : Words.state(of: title)
    }

    // MARK: - Numbers and currencies

    struct MoneyToken {
        var start: Int  // the first character, currency marker included
        var end: Int
        var amount: Money
        var negative: Bool
    }

    enum Marker {
        case code(String)
        case dollar, krone, yen
    }

    /// Non-breaking, thin and figure spaces become spaces; typographic apostrophes become `'`.
    static func normalized(_ text: String) -> [Character] {
        text.map { char -> Character in
            switch char {
            case "\u{00A0}", "\u{2009}", "\u{202F}", "\u{2007}", "\u{2008}", "\u{200A}", "\t": return " "
            case "\u{2019}", "\u{02BC}", "\u{2032}": return "'"
            default: return char
            }
        }
    }

    static let isoCodes: Set<String> = ["USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "NZD", "SEK", "NOK", "DKK", "ISK", "PLN", "CZK", "HUF",
                                        "RON", "BGN", "TRY", "INR", "CNY", "HKD", "SGD", "KRW", "MXN", "BRL", "ZAR", "ILS", "AED", "THB", "TWD", "MYR"]

    /// Written before an amount (longest first where one ends another).
    static let prefixes: [(String, Marker)] = [
        ("US$", .code("USD")), ("U$S", .code("USD")), ("CA$", .code("CAD")), ("C$", .code("CAD")), ("AU$", .code("AUD")), ("A$", .code("AUD")),
        ("NZ$", .code("NZD")), ("HK$", .code("HKD")), ("S$", .code("SGD")), ("R$", .code("BRL")), ("MX$", .code("MXN")),
        ("CN¥", .code("CNY")), ("JP¥", .code("JPY")), ("RMB", .code("CNY")), ("SFr.", .code("CHF")), ("Fr.", .code("CHF")),
        ("Rs.", .code("INR")), ("Rs", .code("INR")), ("RM", .code("MYR")), ("$", .dollar), ("€", .code("EUR")), ("£", .code("GBP")), ("¥", .yen), ("₹", .code("INR")),
        ("₩", .code("KRW")), ("₺", .code("TRY")), ("₪", .code("ILS")), ("₱", .code("PHP")), ("zł", .code("PLN")), ("kr.", .krone), ("kr", .krone), ("Kr", .krone),
    ]

    /// Written after an amount.
    static let suffixes: [(String, Marker)] = [
        ("€", .code("EUR")), ("$", .dollar), ("£", .code("GBP")), ("zł", .code("PLN")), ("zl", .code("PLN")), ("kr.", .krone), ("kr", .krone),
        (":-", .krone), ("Kč", .code("CZK")), ("Ft", .code("HUF")), ("lei", .code("RON")), ("TL", .code("TRY")), ("₺", .code("TRY")),
        ("₽", .code("RUB")), ("руб", .code("RUB")), ("円", .code("JPY")), ("元", .code("CNY")), ("₹", .code("INR")), ("euros", .code("EUR")),
        ("euro", .code("EUR")), ("Euro", .code("EUR")), ("dollars", .dollar), ("yen", .code("JPY")), ("Fr.", .code("CHF")),
    ]

    static func moneyTokens(_ c: [Character], context: PriceContext) -> [MoneyToken] {
        var tokens: [MoneyToken] = []
        var i = 0
        while i < c.count {
            guard c[i].isASCII, c[i].isNumber, i == 0 || !(c[i - 1].isASCII && c[i - 1].isNumber) else { i += 1; continue }
            guard let number = scanNumber(c, from: i) else {
                while i < c.count, c[i].isNumber { i += 1 }
                continue
            }
            defer { i = max(i + 1, number.end) }
            let left = prefix(c, before: i, previousEnd: tokens.last?.end ?? 0)
            let right = suffix(c, after: number.end)
            // A number glued to letters that are no currency is part of a word or model ("X80K", "55in").
            if left == nil, i > 0, c[i - 1].isLetter { continue }
            if right == nil, number.end < c.count, c[number.end].isLetter { continue }
            // nil: no marker; .some(nil): a marker naming no currency here (kr without a country), not read.
            let written = pick(left?.marker, right?.marker).map { currency(of: $0, context: context) }
            // A bare number may be one end of a range with the currency at the other ("$100-150", "100–150 €").
            guard let currency = written ?? rangePartnerCurrency(c, number: (i, number.end), previous: tokens.last, context: context),
                  let currency else { continue }
            let text = number.integer + (number.fraction.isEmpty ? "" : "." + number.fraction)
            guard var money = try? Money.parse(text, currency: currency) else { continue }
            if number.thousandFold { guard let scaled = try? money.multiplied(by: 1000) else { continue }; money = scaled }
            let start = left?.start ?? i
            let negative = start > 0 && (c[start - 1] == "-" || c[start - 1] == "−") && (start < 2 || !(c[start - 2].isNumber || c[start - 2].isLetter))
            tokens.append(MoneyToken(start: start, end: right?.end ?? number.end, amount: money, negative: negative))
        }
        return tokens
    }

    static func rangeSeparator(_ c: [Character], from: Int, to: Int) -> Bool {
        guard from < to else { return false }
        return ["-", "–", "—", "~", "to", "bis", "à"].contains(String(c[from..<to]).trimmingCharacters(in: .whitespaces).lowercased())
    }

    /// The currency of the other end of a range this bare number is one end of, if it is.
    static func rangePartnerCurrency(_ c: [Character], number: (start: Int, end: Int), previous: MoneyToken?,
                                     context: PriceContext) -> CurrencyCode?? {
        if let previous, rangeSeparator(c, from: previous.end, to: number.start) { return previous.amount.currency }
        var j = number.end
        while j < c.count, j - number.end < 6, !(c[j].isASCII && c[j].isNumber) { j += 1 }
        guard j < c.count, c[j].isNumber, rangeSeparator(c, from: number.end, to: j), let next = scanNumber(c, from: j),
              let marker = suffix(c, after: next.end)?.marker else { return nil }
        return currency(of: marker, context: context)
    }

    /// The written code wins over a symbol ("$99 USD", "USD $99").
    static func pick(_ left: Marker?, _ right: Marker?) -> Marker? {
        if case .code = right { return right }
        if case .code = left { return left }
        return left ?? right
    }

    static func currency(of marker: Marker, context: PriceContext) -> CurrencyCode? {
        switch marker {
        case .code(let code): return try? CurrencyCode(code)
        case .dollar: return context.dollar
        case .krone: return context.krone
        case .yen: return context.yen
        }
    }

    static func matches(_ c: [Character], _ word: String, at position: Int) -> Bool {
        let w = Array(word)
        guard position >= 0, position + w.count <= c.count else { return false }
        return Array(c[position..<position + w.count]) == w
    }

    static func isCodeLetter(_ char: Character) -> Bool { char.isASCII && char.isUppercase }

    /// A currency marker just before `position` (one space allowed between), and where it starts.
    static func prefix(_ c: [Character], before position: Int, previousEnd: Int) -> (marker: Marker, start: Int)? {
        for gap in [0, 1] {
            let end = position - gap
            if gap == 1, !(end >= 0 && end < c.count && c[end] == " ") { continue }
            // A three-letter code.
            if end - 3 >= previousEnd, isoCodes.contains(String(c[end - 3..<end])), end - 4 < 0 || !c[end - 4].isLetter {
                return (.code(String(c[end - 3..<end])), end - 3)
            }
            for (word, marker) in prefixes {
                let start = end - word.count
                guard start >= previousEnd, matches(c, word, at: start) else { continue }
                if word.first!.isLetter, start > 0, c[start - 1].isLetter { continue }
                // "USD $99", "US $99", "AU $ 99": a code or a country before the symbol.
                if word == "$" || word == "¥" {
                    for lead in ["USD", "CAD", "AUD", "NZD", "HKD", "SGD", "MXN", "JPY", "CNY", "US", "CA", "AU", "NZ", "HK"] {
                        for space in [0, 1] {
                            let s = start - space - lead.count
                            guard s >= previousEnd, space == 0 || c[start - 1] == " ", matches(c, lead, at: s), s == 0 || !c[s - 1].isLetter else { continue }
                            let code = lead.count == 3 ? lead : ["US": "USD", "CA": "CAD", "AU": "AUD", "NZ": "NZD", "HK": "HKD"][lead]!
                            return (.code(code), s)
                        }
                    }
                }
                return (marker, start)
            }
        }
        return nil
    }

    /// A currency marker just after `position` (one space allowed between), and where it ends. A marker that a
    /// number follows belongs to that number ("2022 $45").
    static func suffix(_ c: [Character], after position: Int) -> (marker: Marker, end: Int)? {
        for gap in [0, 1] {
            let start = position + gap
            if gap == 1, !(position < c.count && c[position] == " ") { continue }
            var found: (Marker, Int)?
            if start + 3 <= c.count, isoCodes.contains(String(c[start..<start + 3])), start + 3 == c.count || !c[start + 3].isLetter {
                found = (.code(String(c[start..<start + 3])), start + 3)
            } else {
                for (word, marker) in suffixes where matches(c, word, at: start) {
                    let end = start + word.count
                    if word.last!.isLetter, end < c.count, c[end].isLetter { continue }
                    found = (marker, end)
                    break
                }
            }
            guard let (marker, end) = found else { continue }
            var next = end
            if next < c.count, c[next] == " " { next += 1 }
            if next < c.count, c[next].isASCII, c[next].isNumber { return nil }
            return (marker, end)
        }
        return nil
    }

    struct ScannedNumber {
        var end: Int
        var integer: String
        var fraction: String
        var thousandFold: Bool
    }

    /// Digits with the separators they were written with: `1,234.56`, `1.234,56`, `1 234,56`, `1'250`, `12,50`,
    /// `1,29,999` (Indian grouping), `45,-` (no cents), `$1.2k`. A lone separator before three digits groups
    /// thousands (`12.800`, `1,299`); before one or two it is the decimal point.
    static func scanNumber(_ c: [Character], from start: Int) -> ScannedNumber? {
        func digits(from i: Int) -> Int { var j = i; while j < c.count, c[j].isASCII, c[j].isNumber { j += 1 }; return j }
        var groups: [String] = []
        var separators: [Character] = []
        var j = digits(from: start)
        groups.append(String(c[start..<j]))
        while j + 1 < c.count, [",", ".", "'", " "].contains(c[j]), c[j + 1].isASCII, c[j + 1].isNumber {
            let end = digits(from: j + 1)
            let group = String(c[j + 1..<end])
            if c[j] == " " && (group.count != 3 || separators.contains(where: { $0 != " " })) { break }
            separators.append(c[j])
            groups.append(group)
            j = end
        }
        var noCents = false
        if j + 1 < c.count, c[j] == "," || c[j] == ".", ["-", "–", "—"].contains(c[j + 1]) {
            noCents = true
            j += 2
            if j < c.count, c[j] == "-" { j += 1 }
        }
        var fold = false
        if j < c.count, c[j] == "k" || c[j] == "K", j + 1 == c.count || !c[j + 1].isLetter { fold = true; j += 1 }
        var integerGroups = groups
        var thousandSeparators = separators
        var fraction = ""
        if let last = separators.last, last == "," || last == ".", groups.last!.count <= 2,
           !separators.dropLast().contains(last), !noCents {
            fraction = integerGroups.removeLast()
            thousandSeparators.removeLast()
        } else if let last = groups.last, !separators.isEmpty, last.count != 3 {
            return nil
        }
        if let first = thousandSeparators.first {
            guard thousandSeparators.allSatisfy({ $0 == first }) else { return nil }
            let rest = integerGroups.dropFirst()
            let western = (1...3).contains(integerGroups[0].count) && rest.allSatisfy { $0.count == 3 }
            let indian = (1...2).contains(integerGroups[0].count) && rest.dropLast().allSatisfy { $0.count == 2 } && rest.last?.count == 3
            guard western || indian else { return nil }
        }
        if fold && !fraction.isEmpty && fraction.count > 1 { return nil }
        return ScannedNumber(end: j, integer: integerGroups.joined(), fraction: fraction, thousandFold: fold)
    }

    // MARK: - Context

    /// Where the clause holding `position` starts: after a comma, semicolon, sentence end, bar, bullet or
    /// a spaced dash.
    static func clauseStart(_ c: [Character], before position: Int) -> Int {
        var i = position - 1
        while i >= 0 {
            if isClauseBreak(c, i) || isSentenceBreak(c, i) { return i + 1 }
            i -= 1
        }
        return 0
    }

    static func clauseEnd(_ c: [Character], after position: Int) -> Int {
        var i = position
        while i < c.count {
            if isClauseBreak(c, i) || isSentenceBreak(c, i) { return i }
            i += 1
        }
        return c.count
    }

    static func sentenceStart(_ c: [Character], before position: Int) -> Int {
        var i = position - 1
        while i >= 0 { if isSentenceBreak(c, i) { return i + 1 }; i -= 1 }
        return 0
    }

    static func sentenceEnd(_ c: [Character], after position: Int) -> Int {
        var i = position
        while i < c.count { if isSentenceBreak(c, i) { return i }; i += 1 }
        return c.count
    }

    static let abbreviations: Set<String> = ["reg", "orig", "approx", "incl", "inkl", "excl", "exkl", "min", "max", "ca", "est", "rs", "fr",
                                             "sfr", "kr", "no", "nr", "vs", "avg", "mo", "mth", "mtl", "p", "st", "ea", "pcs", "inc", "w"]

    static func isSentenceBreak(_ c: [Character], _ i: Int) -> Bool {
        switch c[i] {
        case "!", "?", "\n", "|", "•", "·", "…": return true
        case ".":
            guard i + 1 == c.count || c[i + 1] == " " else { return false }
            var s = i
            while s > 0, c[s - 1].isLetter { s -= 1 }
            return !abbreviations.contains(String(c[s..<i]).lowercased())
        default: return false
        }
    }

    static func isClauseBreak(_ c: [Character], _ i: Int) -> Bool {
        switch c[i] {
        case ",", ";": return !(i + 1 < c.count && c[i + 1].isNumber)
        case "-", "–", "—": return i > 0 && c[i - 1] == " " && i + 1 < c.count && c[i + 1] == " "
        default: return false
        }
    }

    static func window(_ c: [Character], from: Int, to: Int, keepLast: Int) -> String {
        guard from < to else { return "" }
        return String(String(c[from..<to]).lowercased().suffix(keepLast))
    }

    static func window(_ c: [Character], from: Int, to: Int, keepFirst: Int) -> String {
        guard from < to else { return "" }
        return String(String(c[from..<to]).lowercased().prefix(keepFirst))
    }

    /// The reason the words around an amount give for not taking it, in order of precedence.
    static func reason(before: String, after: String, negative: Bool) -> DroppedReason? {
        let head = after.drop { $0 == " " || $0 == "+" || $0 == ")" || $0 == "*" }
        func starts(_ words: [String]) -> Bool { words.contains { Words.startsWithWord(head, $0) } }
        if starts(Words.instalmentAfter) || Words.any(Words.instalmentBefore, in: before) || Words.monthsAfter(String(head))
            || Words.timesBefore(before) { return .instalment }
        if negative || starts(Words.savingAfter) || Words.any(Words.savingBefore, in: before) { return .saving }
        if starts(Words.promotionAfter) || Words.any(Words.promotionBefore, in: before) { return .promotion }
        let included = Words.any(["incl", "inkl", "including", "inc.", "with"], in: before + " " + head.prefix(12))
        if !included, starts(Words.feeAfter) || Words.any(Words.feeBefore, in: before) { return .fee }
        if starts(Words.shippingAfter) || Words.any(Words.shippingBefore, in: Words.removingFreeShipping(before)) { return .shipping }
        if Words.endsWith(before, Words.boundBefore) { return .bound }
        if Words.any(Words.wasBefore, in: before) && !Words.any(["now", "sale", "price now", "jetzt", "nu", "only", "today"], in: Words.after(before, last: Words.wasBefore)) {
            return .wasPrice
        }
        if Words.any(Words.bundleBefore, in: before) || Words.bundleCount(before) || starts(Words.bundleAfter) { return .bundle }
        return nil
    }

    // MARK: - Ranges

    /// "$100–$150", "100-150 €", "$100 to $150", "between $100 and $150": one price, the midpoint (rounded
    /// half to even), written as the whole range. Both ends must be kept prices in one currency.
    static func mergeRanges(_ found: [(token: MoneyToken, dropped: DroppedReason?, state: ListingState)], chars c: [Character]) -> [FoundAmount] {
        var result: [FoundAmount] = []
        var i = 0
        while i < found.count {
            let a = found[i]
            if i + 1 < found.count {
                let b = found[i + 1]
                let between = String(c[a.token.end..<b.token.start]).lowercased().trimmingCharacters(in: .whitespaces)
                let opening = Words.endsWith(String(c[max(0, a.token.start - 12)..<a.token.start]).lowercased(), ["between", "zwischen", "entre"])
                if a.dropped == nil, b.dropped == nil, a.token.amount.currency == b.token.amount.currency,
                   ["-", "–", "—", "~", "to", "bis", "à", "a"].contains(between) || (opening && ["and", "und", "et", "y"].contains(between)),
                   let sum = try? a.token.amount.adding(b.token.amount), let mid = try? sum.scaled(by: 1, over: 2) {
                    let state = a.state == b.state ? a.state : .unknown
                    result.append(FoundAmount(amount: mid, written: String(c[a.token.start..<b.token.end]), isRange: true, state: state, dropped: nil))
                    i += 2
                    continue
                }
            }
            result.append(FoundAmount(amount: a.token.amount, written: String(c[a.token.start..<a.token.end]), isRange: false, state: a.state,
                                      dropped: a.dropped))
            i += 1
        }
        return result
    }
}

extension PriceExtractor {
    /// The words that mark what an amount is, lower case. Matched as whole words.
    enum Words {
        static let instalmentAfter = ["/mo", "/ mo", "/month", "/mth", "/mes", "/monat", "/mois", "/wk", "/week", "/yr", "/year", "/day",
                                      "a month", "per month", "a week", "per week", "per day", "a day", "per year", "monthly", "mo.",
                                      "p/m", "pm", "mtl", "monatlich", "par mois", "al mese", "al mes", "x 12", "x12", "x 24", "x24", "/ month"]
        static let instalmentBefore = ["payments of", "payment of", "instalments of", "installments of", "installment", "instalment",
                                       "per month", "monthly", "emi", "financing", "finance from", "finance", "klarna", "afterpay", "affirm",
                                       "pay in 4", "pay in 3", "rent", "rental", "lease", "leasing", "raten", "ratenzahlung", "subscription"]
        static let savingAfter = ["off", "less", "discount", "savings", "cheaper", "below", "rabatt", "de réduction", "reduction", "saved"]
        static let savingBefore = ["save", "you save", "saving", "savings", "discount", "coupon", "rebate", "cashback", "cash back", "price drop",
                                   "reduced by", "spare", "sparen", "sie sparen", "économisez", "ahorra", "risparmi", "extra"]
        static let promotionAfter = ["gift card", "giftcard", "credit", "store credit", "reward", "rewards", "in rewards", "bonus", "voucher",
                                     "back", "cashback", "promo"]
        static let promotionBefore = ["gift card", "voucher", "trade-in", "trade in", "trade-in value", "we pay", "we'll pay", "get up to", "earn",
                                      "bonus", "reward", "starting bid", "opening bid", "start bid", "bid from", "credit of", "sell yours for",
                                      "sell it for", "cash for"]
        static let feeAfter = ["tax", "taxes", "vat", "fee", "fees", "deposit", "duty", "duties", "import", "customs", "handling", "restocking"]
        static let feeBefore = ["tax", "vat", "fee", "deposit", "import charges", "import fees", "duties", "customs", "handling", "restocking",
                                "core charge", "environmental", "warranty", "protection plan", "care plan", "applecare", "insurance"]
        static let shippingAfter = ["shipping", "postage", "delivery", "p&p", "s&h", "freight", "ship", "versand", "livraison", "porto", "envío",
                                    "spedizione", "frakt", "fragt", "wysyłka", "postal"]
        static let shippingBefore = ["shipping", "postage", "delivery", "p&p", "s&h", "freight", "versand", "versandkosten", "livraison", "porto",
                                     "envío", "envio", "spedizione", "frakt", "fragt", "wysyłka", "dostawa", "post:"]
        static let boundBefore = ["over", "above", "under", "below", "up to", "less than", "more than", "at least", "spend", "min", "min.",
                                  "minimum", "max", "max.", "maximum", "budget", "orders of", "order of", "threshold", "within", "cap of",
                                  "über", "unter", "bis zu", "ab einem", "dès", "moins de", "plus de", "jusqu'à"]
        static let wasBefore = ["was", "previously", "list price", "list", "rrp", "msrp", "reg.", "reg", "regular price", "regularly",
                                "orig.", "original price", "originally", "compare at", "compare to", "typical price", "statt", "uvp",
                                "avant", "old price", "was:", "before", "prix barré", "vorher", "ehemals", "srp", "list:"]
        static let bundleBefore = ["lot of", "job lot", "bundle", "set of", "pack of", "case of", "box of", "all for", "for all", "lots",
                                   "bulk", "wholesale", "combo"]
        static let bundleAfter = ["for all", "for both", "for the lot", "for the set", "for 2", "for 3", "for 4", "for 5",
                                  "for two", "for three", "the lot", "per lot", "per set", "per pack", "for everything"]
        static let bundle = ["lot of", "job lot", "bundle", "set of", "pack of", "case of", "bulk lot", "wholesale", "joblot", "konvolut",
                             "lot de", "lotto di", "multipack", "x2 ", "x3 ", "x4 ", "2x ", "3x ", "4x ", "2 x ", "3 x ", "2-pack", "3-pack",
                             "4-pack", "twin pack"]
        /// The marks of a lot or bundle, less those the item's own name holds.
        static func bundleMarks(besides item: String) -> [String] { bundle.filter { !item.contains($0) } }

        static let parts = ["for parts", "parts only", "not working", "spares or repair", "spares/repair", "for repair", "defekt", "defective",
                            "broken", "as-is", "as is", "faulty", "pour pièces", "per ricambi", "para piezas", "cracked screen"]
        static let each = ["each", "ea", "ea.", "per item", "per unit", "apiece", "/ea", "/each", "pro stück", "stück", "l'unité", "la pièce"]

        static let usedWords = ["used", "pre-owned", "preowned", "pre owned", "second-hand", "second hand", "secondhand", "refurbished",
                                "refurb", "renewed", "reconditioned", "open box", "open-box", "like new", "like-new", "gebraucht",
                                "d'occasion", "usato", "usado", "usada", "begagnad", "begagnat", "brugt", "brukt", "używany", "używana",
                                "pre-loved", "preloved", "ex-display", "ex display", "generalüberholt", "reconditionné", "ricondizionato",
                                "seminuevo"]
        static let newWords = ["new", "brand new", "brand-new", "sealed", "factory sealed", "new in box", "nib", "bnib", "bnwt", "nwt",
                               "new with tags", "unopened", "neu", "neuf", "neuve", "nuovo", "nuova", "nuevo", "nueva", "nowy", "nowa",
                               "brandneu", "originalverpackt", "ovp", "unused", "unworn", "mint sealed", "brand-neu"]
        /// "new" that says nothing about the item's state.
        static let notState = ["new york", "new zealand", "new jersey", "new delhi", "new balance", "new listing", "new arrivals", "new arrival",
                               "new customers", "new customer", "what's new", "new mexico", "new hampshire", "new orleans", "new england",
                               "new south wales", "new releases", "new release", "newsletter", "new & used", "new and used", "new or used",
                               "new/used", "used & new", "used and new", "used or new", "used/new", "like new", "like-new", "in new condition",
                               "new battery", "new tab", "new window", "new post", "new look", "new model", "new price"]
        static let notStateUsed = ["like new", "like-new"]

        /// Used, new or unknown (neither, or both) from a text's words.
        static func state(of text: String) -> ListingState {
            var lower = text.lowercased()
            let bothWays = ["new & used", "new and used", "new or used", "new/used", "used & new", "used and new", "used or new", "used/new"]
            if any(bothWays, in: lower) { return .unknown }
            // "like new" is a used item; the other phrases say nothing about the item.
            for phrase in notState where !notStateUsed.contains(phrase) { lower = lower.replacingOccurrences(of: phrase, with: " ") }
            let used = any(usedWords, in: lower)
            for phrase in notStateUsed { lower = lower.replacingOccurrences(of: phrase, with: " ") }
            let new = any(newWords, in: lower)
            switch (used, new) {
            case (true, false): return .used
            case (false, true): return .new
            default: return .unknown
            }
        }

        static func isWordChar(_ c: Character) -> Bool { c.isLetter || c.isNumber }

        /// Whether `phrase` occurs in `text` as whole words.
        static func contains(_ text: String, _ phrase: String) -> Bool {
            var search = text.startIndex..<text.endIndex
            while let range = text.range(of: phrase, range: search) {
                let beforeOK = range.lowerBound == text.startIndex || !isWordChar(text[text.index(before: range.lowerBound)]) || !isWordChar(phrase.first!)
                let afterOK = range.upperBound == text.endIndex || !isWordChar(text[range.upperBound]) || !isWordChar(phrase.last!)
                if beforeOK && afterOK { return true }
                search = text.index(after: range.lowerBound)..<text.endIndex
            }
            return false
        }

        static func any(_ phrases: [String], in text: String) -> Bool { phrases.contains { contains(text, $0) } }

        static func startsWithWord<S: StringProtocol>(_ text: S, _ word: String) -> Bool {
            guard text.hasPrefix(word) else { return false }
            let rest = text.dropFirst(word.count)
            return rest.isEmpty || !isWordChar(rest.first!) || !isWordChar(word.last!)
        }

        /// Whether `text`, trimmed, ends with one of `words` as whole words.
        static func endsWith(_ text: String, _ words: [String]) -> Bool {
            let trimmed = text.trimmingCharacters(in: CharacterSet(charactersIn: " :=~≈(").union(.whitespaces))
            return words.contains { word in
                guard trimmed.hasSuffix(word) else { return false }
                let rest = trimmed.dropLast(word.count)
                return rest.isEmpty || !isWordChar(rest.last!) || !isWordChar(word.first!)
            }
        }

        /// The text after the last of `words` in it (to see "was $150, now" style corrections).
        static func after(_ text: String, last words: [String]) -> String {
            var best: String.Index?
            for word in words { if let r = text.range(of: word, options: .backwards), best == nil || r.upperBound > best! { best = r.upperBound } }
            return best.map { String(text[$0...]) } ?? ""
        }

        /// "free shipping" and "free delivery" mark no shipping cost.
        static func removingFreeShipping(_ text: String) -> String {
            var t = text
            for phrase in ["free shipping", "free delivery", "free postage", "free p&p", "kostenloser versand", "livraison gratuite", "envío gratis",
                           "free 2-day shipping", "free next-day delivery", "fast shipping", "fast delivery", "ships free", "delivered"] {
                t = t.replacingOccurrences(of: phrase, with: " ")
            }
            return t
        }

        /// "2 for $10", "3 for": a count then "for" just before the amount.
        static func bundleCount(_ before: String) -> Bool {
            let words = before.split(whereSeparator: { $0 == " " }).suffix(2)
            guard words.count == 2, words.last == "for" else { return false }
            return Int(words.first!).map { $0 > 1 } ?? ["two", "three", "four", "both"].contains(String(words.first!))
        }

        /// "12 x 55,00 €", "24x R$ 99,90", "10 × de": a count of payments just before the amount.
        static func timesBefore(_ before: String) -> Bool {
            var words = before.split(whereSeparator: { $0 == " " }).map(String.init)
            if words.last == "de" { words.removeLast() }
            guard let last = words.last else { return false }
            if last == "x" || last == "×" { return words.count >= 2 && Int(words[words.count - 2]).map { $0 > 1 } == true }
            guard last.hasSuffix("x") || last.hasSuffix("×") else { return false }
            return Int(last.dropLast()).map { $0 > 1 } == true
        }

        /// "$41.58 for 24 months", "€20 x 12 months".
        static func monthsAfter(_ head: String) -> Bool {
            let words = head.split(whereSeparator: { $0 == " " }).prefix(3).map(String.init)
            guard words.count >= 2 else { return false }
            let unit = words.count >= 3 ? words[2] : words[1]
            return ["for", "x", "×", "over"].contains(words[0]) && ["months", "month", "mo", "mos", "monate", "mois", "meses", "weeks"].contains {
                unit.hasPrefix($0)
            }
        }
    }
}
