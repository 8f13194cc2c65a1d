import Foundation
import NestoryDomain

/// An amount of money as printed on one line: value in hundredths plus what surrounds it.
struct PrintedAmount: Hashable, Sendable {
    /// The value times 100 (receipts print at most two decimals for the currencies they use).
    var cents: Int64
    /// Whether decimals were printed (`12.50`, not `12`).
    var hasDecimals: Bool
    /// A currency printed right before or after the number.
    var currency: CurrencyCode?
    /// Character offsets of the whole match (sign and currency included) in the line.
    var start: Int
    var end: Int

    /// The amount as exact money in `currency`, or nil when it does not fit the currency's decimals.
    func money(_ currency: CurrencyCode) -> Money? {
        let digits = currency.minorUnitDigits
        var minor = cents
        switch digits {
        case 0:
            guard cents % 100 == 0 else { return nil }
            minor = cents / 100
        case 1:
            guard cents % 10 == 0 else { return nil }
            minor = cents / 10
        case 2: break
        default:
            for _ in 2..<digits { minor *= 10 }
        }
        return try? Money(minorUnits: minor, currency: currency)
    }
}

/// Finds amounts of money in a line of receipt text.
enum AmountScanner {
    /// Currency markers as printed, longest first, upper-cased.
    static let markers: [(String, String)] = [
        ("MYR", "MYR"), ("USD", "USD"), ("EUR", "EUR"), ("GBP", "GBP"), ("SGD", "SGD"), ("AUD", "AUD"),
        ("CAD", "CAD"), ("CHF", "CHF"), ("JPY", "JPY"), ("NZD", "NZD"), ("INR", "INR"), ("IDR", "IDR"),
        ("THB", "THB"), ("PHP", "PHP"), ("HKD", "HKD"), ("CNY", "CNY"),
        ("US$", "USD"), ("S$", "SGD"), ("A$", "AUD"), ("C$", "CAD"), ("CA$", "CAD"), ("NZ$", "NZD"), ("HK$", "HKD"),
        ("RM", "MYR"), ("RP", "IDR"),
        ("€", "EUR"), ("£", "GBP"), ("¥", "JPY"), ("₹", "INR"), ("₩", "KRW"), ("฿", "THB"), ("$", "USD"),
    ]

    /// Units after a number that make it a quantity, not money.
    static let units: Set<String> = ["KG", "G", "GM", "GR", "L", "ML", "MM", "CM", "M", "LTR", "PCS", "PC", "OZ", "LB", "LBS", "X", "%", "MG", "CL"]

    static func isDigit(_ c: Character) -> Bool { c.isASCII && c.isNumber }

    /// Every amount in `line`, left to right.
    static func scan(_ line: String) -> [PrintedAmount] {
        let chars = Array(line)
        let upper = Array(line.uppercased())
        guard upper.count == chars.count else { return [] }
        var found: [PrintedAmount] = []
        var i = 0
        let n = chars.count
        while i < n {
            guard isDigit(chars[i]) else { i += 1; continue }
            // Numbers glued to letters or digits on the left (codes such as `MO26588`) are not amounts,
            // unless those letters are a currency.
            var j = i
            var separators: [(Character, Int)] = []
            while j < n {
                if isDigit(chars[j]) { j += 1; continue }
                if (chars[j] == "." || chars[j] == ","), j + 1 < n, isDigit(chars[j + 1]) {
                    separators.append((chars[j], j)); j += 1; continue
                }
                break
            }
            let token = String(chars[i..<j])
            defer { i = j }
            // Dates, times, ranges and fractions: `19/10`, `20:49`, `12-01-19`, `1/2`.
            if j < n, "/:".contains(chars[j]), j + 1 < n, isDigit(chars[j + 1]) { skipRun(&j, chars); continue }
            if j < n, chars[j] == "-", j + 1 < n, isDigit(chars[j + 1]) { skipRun(&j, chars); continue }
            if i > 0, "/:".contains(chars[i - 1]) { continue }
            if i > 1, chars[i - 1] == "-", isDigit(chars[i - 2]) { continue }
            guard var (cents, hasDecimals) = parseNumber(token, separators: separators.map { ($0.0, $0.1 - i) }) else { continue }
            // `.01`: cents printed without the leading zero.
            var numberStart = i
            // (Not after a stray mark, `§,50`: that is a digit misread, and the amount is lost.)
            if separators.isEmpty, token.count == 2, i > 0, chars[i - 1] == "." || chars[i - 1] == ",", i < 2 || !isDigit(chars[i - 2]) {
                if i >= 2, !(chars[i - 2].isLetter || chars[i - 2].isWhitespace || "-+($€£:=".contains(chars[i - 2])) { continue }
                cents = Int64(token) ?? 0
                hasDecimals = true
                numberStart = i - 1
            }

            // What follows: a unit or a percent sign makes it a quantity.
            var k = j
            while k < n, chars[k] == " " { k += 1 }
            var suffixWord = ""
            var m = k
            while m < n, !chars[m].isWhitespace, !isDigit(chars[m]), suffixWord.count < 4 { suffixWord.append(upper[m]); m += 1 }
            let trimmedSuffix = suffixWord.trimmingCharacters(in: .punctuationCharacters.subtracting(CharacterSet(charactersIn: "%")))
            if j < n, chars[j] == "%" { continue }
            // `6.00 %`: a rate printed with a space before its sign.
            if suffixWord.hasPrefix("%") { continue }
            if k == j, units.contains(trimmedSuffix) { continue }
            if k == j, trimmedSuffix == "X" || trimmedSuffix.hasPrefix("X") { continue }

            // What precedes: a currency marker, a minus sign, letters glued to the number.
            var start = numberStart
            var currency: CurrencyCode?
            var p = numberStart
            while p > 0, chars[p - 1] == " ", numberStart - p < 2 { p -= 1 }
            for (marker, code) in markers {
                let mc = Array(marker)
                if p >= mc.count, Array(upper[(p - mc.count)..<p]) == mc {
                    let before = p - mc.count
                    // `RM` must not be the end of a longer word (`FORM 12.00`).
                    if mc.allSatisfy(\.isLetter), before > 0, upper[before - 1].isLetter { continue }
                    currency = try? CurrencyCode(code)
                    start = before
                    break
                }
            }
            if currency == nil, numberStart > 0, chars[numberStart - 1].isLetter || isDigit(chars[numberStart - 1]) { continue }
            if currency == nil {
                // A currency printed after: `12,50 €`, `12.50 EUR`.
                for (marker, code) in markers where suffixWord.hasPrefix(marker) {
                    if marker.allSatisfy(\.isLetter), suffixWord.count > marker.count,
                       suffixWord[suffixWord.index(suffixWord.startIndex, offsetBy: marker.count)].isLetter { continue }
                    currency = try? CurrencyCode(code)
                    break
                }
            }
            var negative = false
            var q = start
            while q > 0, chars[q - 1] == " ", start - q < 1 { q -= 1 }
            if q > 0, chars[q - 1] == "-" || chars[q - 1] == "−" { negative = true; start = q - 1 }
            if !negative, j < n, chars[j] == "-" { negative = true }
            if !negative, start > 0, chars[start - 1] == "(", j < n, chars[j] == ")" { negative = true }
            // One decimal (`12.5`) is rare on receipts and common in sizes and codes: only with a currency.
            if hasDecimals, currency == nil, let last = separators.last, token.count - (last.1 - i) - 1 == 1 { continue }
            // Whole numbers count only with a currency beside them (`$12`), never bare (`2`, `050100035279`).
            if !hasDecimals && currency == nil { continue }
            if !hasDecimals && token.count > 9 { continue }
            found.append(PrintedAmount(cents: negative ? -cents : cents, hasDecimals: hasDecimals, currency: currency,
                                       start: start, end: j))
        }
        return found
    }

    private static func skipRun(_ j: inout Int, _ chars: [Character]) {
        while j < chars.count, isDigit(chars[j]) || "/:-.".contains(chars[j]) { j += 1 }
    }

    /// Letters recognisers print for digits, put right only inside something shaped like an amount.
    static let digitLookalikes: [Character: Character] = [
        "O": "0", "o": "0", "D": "0", "Q": "0", "U": "0", "u": "0", "I": "1", "l": "1", "|": "1", "!": "1",
        "S": "5", "s": "5", "§": "5", "B": "8", "Z": "2", "z": "2",
    ]

    static let amountShape = try! NSRegularExpression(
        pattern: #"(?<![A-Za-z0-9])(RM|\$)?([0-9OoDQSsIl|!B§]+)([.,])([0-9OoDQUuSsIl|!B§Zz]{2})(?![A-Za-z0-9])"#)

    /// Undoes the usual recognition errors in amounts, before they are scanned: cents split off by a space
    /// (`14. 65`, `50 .00`, `11, 80`), a space for the decimal point after a currency (`RM30 30`), and
    /// letters for digits (`RMO.00`, `15.u0`, `5O.00`). Letters change only in a token that has the shape of
    /// an amount with two decimals and at least two real digits (or a currency before it), so words and
    /// codes are left alone.
    static func repair(_ line: String) -> String {
        var text = line.replacingOccurrences(of: #"([0-9])(?:\. | \.)([0-9OoSl]{2})(?![0-9A-Za-z])"#, with: "$1.$2", options: .regularExpression)
        // A comma and a space only at the end of the line (`Cash 11, 80`), never in a list (`NO 18, 20, JALAN`).
        // and only on a line that speaks of money (not `LOT 17, 18`).
        if text.range(of: #"(?i)(RM|\$|TOTAL|CASH|CHANGE|AMOUNT|AMT|TENDER|PAID|DUE|GST|TAX|ROUND|BAL)"#, options: .regularExpression) != nil {
            text = text.replacingOccurrences(of: #"(?<![0-9,] )([0-9]{1,5}), ([0-9]{2})\s*$"#, with: "$1.$2", options: .regularExpression)
        }
        text = text.replacingOccurrences(of: #"(?<![A-Za-z])(RM|\$) ?([0-9]{1,5}) ([0-9]{2})(?![0-9.,])"#, with: "$1$2.$3", options: .regularExpression)
        let ns = text as NSString
        var result = ""
        var last = 0
        for match in amountShape.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            let whole = ns.substring(with: match.range(at: 2)) + ns.substring(with: match.range(at: 4))
            let realDigits = whole.filter { $0.isASCII && $0.isNumber }.count
            let hasCurrency = match.range(at: 1).location != NSNotFound
            guard realDigits < whole.count, realDigits >= 2 || (hasCurrency && realDigits >= 1) else { continue }
            // The integer part must begin with a real digit unless a currency stands before it (`RMO.00`).
            if !hasCurrency, let first = ns.substring(with: match.range(at: 2)).first, !(first.isASCII && first.isNumber) { continue }
            result += ns.substring(with: NSRange(location: last, length: match.range(at: 2).location - last))
            result += String(ns.substring(with: match.range(at: 2)).map { digitLookalikes[$0] ?? $0 })
            result += ns.substring(with: match.range(at: 3))
            result += String(ns.substring(with: match.range(at: 4)).map { digitLookalikes[$0] ?? $0 })
            last = match.range.location + match.range.length
        }
        guard last > 0 else { return text }
        result += ns.substring(from: last)
        return result
    }

    /// `1,234.56`, `1.234,56`, `12.5`, `1234`: the value in hundredths and whether decimals were printed.
    /// Separators that cannot be read one way only (`12.01.2019`, `1.23.4`) give nil.
    static func parseNumber(_ token: String, separators: [(Character, Int)]) -> (Int64, Bool)? {
        let digitsOnly = token.filter(isDigit)
        guard !digitsOnly.isEmpty, digitsOnly.count <= 15 else { return nil }
        guard let last = separators.last else {
            return Int64(digitsOnly).map { ($0 * 100, false) }
        }
        let chars = Array(token)
        let fraction = chars.count - last.1 - 1
        let earlier = separators.dropLast()
        // Groups before the decimal separator must be thousands groups with the other character.
        func groupsValid(_ seps: ArraySlice<(Character, Int)>, endingAt end: Int, separator: Character) -> Bool {
            var previous = -1
            for (index, (char, offset)) in seps.enumerated() {
                guard char == separator else { return false }
                let length = offset - previous - 1
                if index == 0 { guard (1...3).contains(length) else { return false } } else { guard length == 3 else { return false } }
                previous = offset
            }
            return seps.isEmpty || end - previous - 1 == 3
        }
        if fraction == 2 || fraction == 1 {
            let other: Character = last.0 == "." ? "," : "."
            guard groupsValid(earlier, endingAt: last.1, separator: other) else { return nil }
            let integerDigits = String(chars[..<last.1]).filter(isDigit)
            let fractionDigits = String(chars[(last.1 + 1)...])
            guard let whole = Int64(integerDigits.isEmpty ? "0" : integerDigits),
                  let part = Int64(fraction == 1 ? fractionDigits + "0" : fractionDigits) else { return nil }
            return (whole * 100 + part, true)
        }
        if fraction == 3 {
            // Only thousands groups: `1,234` or `1.234.567`.
            guard groupsValid(separators[...], endingAt: chars.count, separator: last.0) else { return nil }
            return Int64(digitsOnly).map { ($0 * 100, false) }
        }
        return nil
    }
}
