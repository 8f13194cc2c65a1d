import Foundation
import NestoryDomain

/// Reads vendor, address, purchase date, total, subtotal, tax and currency from a receipt's text.
///
/// Pure and deterministic: the same text and hints always give the same reading. Works on plain text
/// (lines only) and uses the layout (boxes, line heights) when the recogniser provides it.
public struct ReceiptExtractor: Sendable {
    public init() {}

    /// Extracts the fields of one receipt.
    public func extract(_ recognized: RecognizedText, hints: ReceiptHints = ReceiptHints()) -> ReceiptReading {
        var lines = Self.analyse(Self.rows(recognized.lines))
        // On a receipt that prints cents, a whole number beside a currency (`RM 1802034`) is a misread code.
        if lines.flatMap(\.amounts).filter(\.hasDecimals).count >= 2 {
            for index in lines.indices { lines[index].amounts.removeAll { !$0.hasDecimals } }
        }
        let currency = Self.currency(lines, hints: hints)
        let money = currency?.value ?? hints.currency ?? (try! CurrencyCode("XXX"))
        let amounts = Self.labelledAmounts(lines)
        let total = Self.total(amounts, lines: lines, currency: money)
        let vendor = Self.vendor(lines)
        return ReceiptReading(
            vendor: vendor?.field,
            address: Self.address(lines, after: vendor?.lastLine ?? -1),
            purchaseDate: Self.date(lines, hints: hints),
            total: total,
            subtotal: Self.subtotal(amounts, total: total, currency: money),
            tax: Self.tax(amounts, total: total, currency: money),
            currency: currency,
            rawText: recognized.text,
            textConfidence: recognized.confidence
        )
    }

    /// Extracts from plain text (one printed line per line of text).
    public func extract(text: String, hints: ReceiptHints = ReceiptHints()) -> ReceiptReading {
        extract(RecognizedText(plainText: text), hints: hints)
    }

    // MARK: Lines

    struct Line {
        var index: Int
        var text: String
        var upper: String
        var words: [String]
        var letters: String
        var amounts: [PrintedAmount]
        var dates: [PrintedDate]
        /// Line height relative to the receipt's median (1 = ordinary); 1 without layout.
        var prominence: Double
        var amountOnly: Bool
        /// The recogniser's confidence in this line (0–1); nil for plain text.
        var confidence: Double?
        /// The blank space between this line and the one above, in median line heights; nil without layout.
        var gapAbove: Double? = nil
    }

    /// Lines in reading order, with fragments on the same row joined left to right.
    static func rows(_ lines: [RecognizedLine]) -> [RecognizedLine] {
        let cleaned = lines.map { line -> RecognizedLine in
            var copy = line
            copy.text = normalizeForms(line.text).trimmingCharacters(in: .whitespaces)
            return copy
        }
        guard !cleaned.isEmpty, cleaned.allSatisfy({ $0.box != nil }) else { return cleaned }
        let sorted = cleaned.enumerated().sorted { a, b in
            let (ba, bb) = (a.element.box!, b.element.box!)
            return ba.midY == bb.midY ? a.offset < b.offset : ba.midY < bb.midY
        }.map(\.element)
        var rows: [[RecognizedLine]] = []
        for line in sorted {
            let box = line.box!
            if var row = rows.last, let last = row.last?.box {
                let overlap = min(box.maxY, last.maxY) - max(box.y, last.y)
                // (Side by side: boxes a detector drew a little wide may overlap by up to half a line height.)
                let slack = min(box.height, last.height) / 2
                let noHorizontalOverlap = row.allSatisfy { $0.box!.maxX - slack <= box.x || box.maxX - slack <= $0.box!.x }
                if overlap * 2 > min(box.height, last.height), noHorizontalOverlap {
                    row.append(line)
                    rows[rows.count - 1] = row
                    continue
                }
            }
            rows.append([line])
        }
        return rows.map { row in
            guard row.count > 1 else { return row[0] }
            let ordered = row.sorted { $0.box!.x < $1.box!.x }
            let box = ordered.dropFirst().reduce(ordered[0].box!) { $0.union($1.box!) }
            let confidences = ordered.compactMap(\.confidence)
            return RecognizedLine(text: ordered.map(\.text).joined(separator: " "), box: box,
                                  confidence: confidences.isEmpty ? nil : confidences.reduce(0, +) / Double(confidences.count),
                                  words: ordered.flatMap(\.words))
        }
    }

    /// Full-width forms (`（M)`, `：`, as recognisers trained on Chinese print them) as their ASCII letters, digits
    /// and punctuation, and the ideographic space as a space.
    static func normalizeForms(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { (0xFF01...0xFF5E).contains($0.value) || $0.value == 0x3000 }) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if (0xFF01...0xFF5E).contains(scalar.value), let ascii = Unicode.Scalar(scalar.value - 0xFEE0) {
                scalars.append(ascii)
            } else if scalar.value == 0x3000 {
                scalars.append(" ")
            } else {
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    static func analyse(_ lines: [RecognizedLine]) -> [Line] {
        let heights = lines.compactMap { $0.box?.height }.filter { $0 > 0 }.sorted()
        let median = heights.isEmpty ? 0 : Double(heights[heights.count / 2])
        var analysed = lines.enumerated().map { index, original in
            var line = original
            // OCR sometimes splits the cents off as their own word (`161. 84` is `161.84`) or reads digits as letters.
            line.text = AmountScanner.repair(line.text)
            // A recogniser that drops spaces glues the legal form to the name and to itself (`BAKERIES(KL)SDNBHD`).
            // (`SON` and `S0N` are the usual misreadings of `SDN`.)
            if line.text.range(of: #"(?i)S[DO0]N\.?BHD"#, options: .regularExpression) != nil {
                line.text = line.text.replacingOccurrences(of: #"(?i)(?<=[A-Za-z)\]])(S[DO0]N\.? ?BHD)"#, with: " $1", options: .regularExpression)
                    .replacingOccurrences(of: #"(?i)(S[DO0]N\.?)(BHD)"#, with: "$1 $2", options: .regularExpression)
            }
            var amounts = AmountScanner.scan(line.text)
            // `Total After Adj Incl GST 42 50`: after a money label, two digits set apart at the end are the cents.
            if amounts.isEmpty, let match = line.text.range(of: #"(?<=[A-Za-z:.)] )([0-9]{1,5}) ([0-9]{2})$"#, options: .regularExpression) {
                let prefix = String(line.text[..<match.lowerBound])
                if [.total, .cash, .change, .subtotal].contains(classify(prefix).0) {
                    let repaired = prefix + line.text[match].replacingOccurrences(of: " ", with: ".")
                    let rescanned = AmountScanner.scan(repaired)
                    if !rescanned.isEmpty { line.text = repaired; amounts = rescanned }
                }
            }
            let upper = line.text.uppercased()
            var rest = Array(upper)
            for amount in amounts.reversed() { rest.removeSubrange(amount.start..<amount.end) }
            let leftover = String(rest).filter { $0.isLetter || $0.isNumber }
            var prominence = 1.0
            if median > 0, let box = line.box {
                // A line's box height grows with its text size; tall short lines are headings.
                let wordHeights = line.words.compactMap { $0.box?.height }.sorted()
                let height = wordHeights.isEmpty ? Double(box.height) : Double(wordHeights[wordHeights.count / 2])
                prominence = height / median
            }
            let own = words(upper)
            return Line(index: index, text: line.text, upper: upper, words: own + gluedWords(own) + lookalikeWords(own),
                        letters: upper.filter(\.isLetter), amounts: amounts, dates: DateScanner.scan(line.text),
                        prominence: prominence,
                        amountOnly: !amounts.isEmpty && (leftover.count <= 2 || ["RM", "MYR", "SR", "ZR", "TX", "USD", "EUR", "GBP"].contains(leftover)),
                        confidence: line.confidence ?? wordConfidence(line))
        }
        if median > 0 {
            for index in analysed.indices.dropFirst() {
                if let box = lines[index].box, let above = lines[index - 1].box {
                    analysed[index].gapAbove = Double(box.y - above.maxY) / median
                }
            }
        }
        return analysed
    }

    static func wordConfidence(_ line: RecognizedLine) -> Double? {
        let values = line.words.compactMap(\.confidence)
        return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }

    /// Lexicon words hidden in words a recogniser glued together (it drops spaces: `SOONHUATMACHINERYENTERPRISE`,
    /// `JALANPUTRA`, `LOT3`): a legal form, business, address or header word of four letters or more that starts
    /// or ends a long word, or the letters of a word glued to a number. Added after the line's own words.
    static func gluedWords(_ words: [String]) -> [String] {
        var found: [String] = []
        for word in words where word.count >= 3 {
            // The runs of letters between digits (`LOT276JALANBANTING`: `LOT`, `JALANBANTING`), or the whole word.
            let runs = word.allSatisfy(\.isLetter) ? [word] : word.split(whereSeparator: { !$0.isLetter }).map(String.init)
            for run in runs {
                // A whole run of three letters or more beside digits (not `3RD`, `21ST`).
                if run.count >= 3, run != word, Lexicon.gluedVocabulary.contains(run) || Lexicon.addressWords.contains(run) {
                    found.append(run)
                    continue
                }
                guard run.count >= 7 else { continue }
                for candidate in Lexicon.gluedVocabularyInOrder where run.count >= candidate.count + 3 {
                    if run.hasPrefix(candidate) || run.hasSuffix(candidate) { found.append(candidate) }
                }
            }
        }
        return found
    }

    /// Lexicon words a recogniser printed with a digit for a look-alike letter (`LEVE1`, `J1N`, `L0T`, `5DN`, `8HD`): added
    /// after the line's own words, so the line is read for what it says. Only words with two letters or more, whose
    /// digits all turn into the letters of one lexicon word.
    static func lookalikeWords(_ words: [String]) -> [String] {
        words.compactMap { lookalikeReading($0) ?? lookalikeReadingBeforeNumber($0)?.word }
    }

    /// A lexicon word behind look-alike digits with its number glued on after it, the space lost (`LEVE16` is `LEVEL` and
    /// `6`; `LEVE116`, `LEVEL` and `16`): the word's reading and the number, the shortest number that leaves a reading.
    static func lookalikeReadingBeforeNumber(_ word: String) -> (word: String, number: String)? {
        let digits = word.reversed().prefix(while: \.isNumber).count
        guard digits >= 1, digits < word.count else { return nil }
        for length in 1...digits {
            if let reading = lookalikeReading(String(word.dropLast(length))) { return (reading, String(word.suffix(length))) }
        }
        return nil
    }

    /// The lexicon word `word` says with its digits read as the letters they look like (upper case), or nil.
    static func lookalikeReading(_ word: String) -> String? {
        let letters: [Character: [Character]] = ["0": ["O"], "1": ["L", "I"], "5": ["S"], "8": ["B"]]
        guard word.count >= 3, word.count <= 12, word.filter(\.isLetter).count >= 2, word.contains(where: \.isNumber),
              word.allSatisfy({ $0.isLetter || letters[$0] != nil }) else { return nil }
        var readings = [""]
        for character in word.uppercased() {
            readings = readings.flatMap { reading in (letters[character] ?? [character]).map { reading + String($0) } }
        }
        return readings.first { Lexicon.lookalikeVocabulary.contains($0) }
    }

    /// `text` with every word that is a lexicon word behind look-alike digits (`Leve1`, `L0T`) written as that word, in
    /// the case of the letter before each digit.
    static func lookalikesRead(_ text: String) -> String {
        guard text.contains(where: \.isNumber) else { return text }
        var result = ""
        var run = ""
        func flush() {
            if let word = lookalikeReading(run) ?? lookalikeReadingBeforeNumber(run).map({ $0.word + $0.number }) {
                result += written(word, inTheCaseOf: run)
            } else {
                result += run
            }
            run = ""
        }
        for character in text {
            if character.isASCII && (character.isLetter || character.isNumber) { run.append(character) } else {
                flush()
                result.append(character)
            }
        }
        flush()
        return result
    }

    static func words(_ upper: String) -> [String] {
        upper.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "/" || $0 == "'") }).map(String.init)
    }

    // MARK: Currency

    static func currency(_ lines: [Line], hints: ReceiptHints) -> ReadField<CurrencyCode>? {
        var counts: [CurrencyCode: Int] = [:]
        var source: [CurrencyCode: String] = [:]
        for line in lines {
            for amount in line.amounts {
                if let code = amount.currency { counts[code, default: 0] += 2; source[code] = source[code] ?? line.text }
            }
            for word in line.words {
                let code: String? = switch word {
                case "RM", "MYR": "MYR"
                case "USD", "EUR", "GBP", "SGD", "AUD", "CAD", "CHF", "JPY", "NZD", "INR", "HKD": word
                default: nil
                }
                if let code, let currency = try? CurrencyCode(code) { counts[currency, default: 0] += 1; source[currency] = source[currency] ?? line.text }
            }
            for (symbol, code) in [("€", "EUR"), ("£", "GBP"), ("¥", "JPY")] where line.text.contains(symbol) {
                let currency = try! CurrencyCode(code)
                counts[currency, default: 0] += 1
                source[currency] = source[currency] ?? line.text
            }
        }
        // A currency without decimals (`¥`, often a misread `Y`) cannot be right when the amounts print cents.
        let amountsWithCents = lines.flatMap(\.amounts).filter(\.hasDecimals).count
        if amountsWithCents >= 1 {
            for code in counts.keys where code.minorUnitDigits == 0 { counts[code] = nil }
        }
        // `$` alone is the household's dollar when it has one.
        let dollars: Set<String> = ["CAD", "AUD", "NZD", "SGD", "HKD", "MXN", "TWD", "BND", "FJD", "JMD", "TTD", "BSD", "BBD", "LRD", "NAD", "SBD", "XCD"]
        if let usd = counts[.usd], let hinted = hints.currency, dollars.contains(hinted.code) {
            counts[.usd] = nil
            counts[hinted, default: 0] += usd
        }
        guard let best = counts.max(by: { $0.value == $1.value ? $0.key > $1.key : $0.value < $1.value }) else {
            return hints.currency.map { ReadField(value: $0, confidence: 0.4, sourceText: "") }
        }
        let confidence = min(0.6 + 0.1 * Double(best.value), 0.97)
        return ReadField(value: best.key, confidence: confidence, sourceText: source[best.key] ?? "")
    }

    // MARK: Amounts and their labels

    enum Kind: Hashable { case total, subtotal, tax, cash, change, rounding, discount, quantity, other }

    struct Labelled {
        var cents: Int64
        var kind: Kind
        /// How strongly the label says `kind` (for totals: `GRAND TOTAL` beats `AMOUNT`).
        var strength: Double
        var line: Int
        /// The label came from another amount on the same line, not right before this one.
        var secondary: Bool
        /// Below a `GST SUMMARY` heading (tax tables repeat `TOTAL` for the net amount).
        var inSummary: Bool
        var source: String
    }

    /// Classifies a label such as `TOTAL AMT....RM` or `CHANGE DUE`.
    static func classify(_ label: String) -> (Kind, Double) {
        let label = canonicalLabel(label)
        let w = Set(words(label.uppercased()))
        let j = label.uppercased().filter(\.isLetter)
        guard !j.isEmpty else { return (.other, 0) }
        // Letters only, so `TotaAmt`, `Tota! Incl` and `T0TAL` still read as total (`!`, `0` are dropped).
        let hasTotal = j.contains("TOTAL") || j.contains("TTL") || j.hasPrefix("TOTA") || j.contains("OTAL") || w.contains("JUMLAH") || w.contains("SUMME")
            || w.contains("TOTAAL") || w.contains("TOTALE") || w.contains("GESAMT") || w.contains("MONTANT")
        let inclusive = !w.isDisjoint(with: ["INCL", "INCLUSIVE", "INC", "INCLUDING", "INCLUDES", "WITH", "AFTER"]) || j.contains("INCL")
        // Document numbers (`TAX INV NO. 1`, `RECEIPT #`) label no amount.
        if j.contains("INVNO") || j.contains("INVOICENO") || j.contains("RECEIPTNO") || j.hasPrefix("INV") || w.contains("INVOICE") || w.contains("RECEIPT") {
            return (.other, 0)
        }
        // Registration lines (`GST ID NO : 000123456789`, `(GST REG NO. 001234)`) label no amount either.
        if !w.isDisjoint(with: ["ID", "REG", "REGISTRATION", "NO", "NUMBER"]), !w.isDisjoint(with: ["GST", "SST", "VAT", "TAX", "CO", "COMPANY", "ROC", "BRN"]),
           label.range(of: #"[0-9]{6,}"#, options: .regularExpression) != nil || w.contains("ID") || w.contains("REG") {
            return (.other, 0)
        }
        if j.contains("CHANGE") || !w.isDisjoint(with: ["CHG", "BAKI", "KEMBALI", "KEMBALIAN", "RENDU", "WECHSELGELD", "RÜCKGELD"])
            || (w.contains("BALANCE") && !w.contains("DUE")) {
            return (.change, 1)
        }
        let orderedWords = words(label.uppercased())
        if let lastWord = orderedWords.last, ["QTY", "QUANTITY", "ITEMS", "ITEM", "ITEM/S", "PCS", "UNITS", "COUNT", "S"].contains(lastWord),
           !j.hasPrefix("SUBTOTAL") {
            return (.quantity, 1)
        }
        // `TOTAL AFTER ADJ`, `TOTAL AFTER ROUNDING`: the rounded total.
        if hasTotal, w.contains("AFTER"), j.contains("ADJ") || j.contains("ROUND") { return (.total, 13) }
        if j.contains("ROUND") || (w.contains("ADJ") && !hasTotal) || w.contains("ADJUSTMENT") {
            if hasTotal, j.contains("ROUNDED") || w.contains("AFTER") { return (.total, 13) }
            return (.rounding, 1)
        }
        let percent = label.range(of: #"[0-9] ?%"#, options: .regularExpression) != nil
        if hasTotal, percent, !inclusive { return (.subtotal, 1) }
        // Totals per tax class (`TOTAL 0% SUPPLIES`) add up to the total.
        if hasTotal, j.contains("SUPPL") { return (.subtotal, 1) }
        // `AMOUNT TO BE PAID`, `TO PAY`: the total, though it says paid.
        if (w.contains("BE") && (w.contains("PAID") || w.contains("PAY"))) || (w.contains("TO") && w.contains("PAY")) { return (.total, 13) }
        if j.contains("SUBTOTAL") || j.contains("SUBTTL") || w.contains("SUB") || j.hasPrefix("SUBT")
            || (hasTotal && j.contains("EXCL") && !inclusive)
            || (!w.isDisjoint(with: ["EXCL", "EXCLUDING", "EXCLUSIVE", "EXC", "BEFORE", "NET", "NETT"]) && (hasTotal || w.contains("AMOUNT") || w.contains("AMT")) && !inclusive
                && !w.isDisjoint(with: ["GST", "VAT", "TAX", "SST", "EXCL", "EXCLUDING", "EXCLUSIVE", "BEFORE"])) {
            return (.subtotal, 1)
        }
        let taxWords: Set<String> = ["GST", "VAT", "TAX", "SST", "MWST", "TVA", "IVA", "HST", "PST", "QST", "UST", "BTW", "MOMS"]
        // `TotalGST`, `TOTAL TAX`: the tax, however it is spaced.
        if hasTotal, taxWords.contains(j.replacingOccurrences(of: "TOTAL", with: "")) { return (.tax, 1) }
        if !w.isDisjoint(with: taxWords) || j.hasPrefix("GST") || j.hasPrefix("TAX") {
            // `GST @6% INCLUDED IN TOTAL`: the tax inside the total, not the total. (`TOTAL INCLUDES GST 6%` is
            // printed before the total as often as before the tax, so a label that starts with TOTAL stays a total.)
            if !w.isDisjoint(with: ["INCLUDED", "INCLUDES"]), !j.hasPrefix("TOTAL") { return (.tax, 1) }
            if hasTotal && inclusive { return (.total, percent ? 8 : 12) }
            if inclusive, !w.isDisjoint(with: ["AMT", "AMOUNT", "PAID", "PAYABLE"]) { return (.total, 11) }
            // `TOTAL SALES (INCLUSLVE OF GST)`: a total that names the tax, even when a word is misread.
            if hasTotal, !w.isDisjoint(with: ["SALES", "AMOUNT", "AMT", "PAYABLE", "DUE", "NETT", "GRAND", "BILL"]),
               w.isDisjoint(with: ["EXCL", "EXCLUDING", "EXCLUSIVE", "EXC", "BEFORE"]) {
                return (.total, percent ? 8 : 11)
            }
            if hasTotal && !w.isDisjoint(with: ["SALES", "AMOUNT", "AMT", "PAYABLE"]) && inclusive { return (.total, 12) }
            return (.tax, 1)
        }
        if !w.isDisjoint(with: ["CASH", "TUNAI", "TENDER", "TENDERED", "PAID", "PAYMENT", "VISA", "MASTERCARD", "MASTER",
                                "CARD", "CREDIT", "DEBIT", "AMEX", "EFTPOS", "RECEIVED", "NETS", "CHEQUE", "BAYAR",
                                "ESPECES", "BAR", "BARGELD", "EC", "KARTE", "GIVEN", "CC"]) {
            return (.cash, 1)
        }
        if !w.isDisjoint(with: ["DISC", "DISCOUNT", "SAVING", "SAVINGS", "LESS", "PROMO", "COUPON", "VOUCHER", "REBATE"]) || j.hasPrefix("DISC") {
            return (.discount, 1)
        }
        if hasTotal {
            // The words that mean "this is what is owed", above any other total on the receipt.
            if !w.isDisjoint(with: ["GRAND", "DUE", "PAYABLE", "ROUNDED"]) || j.contains("GRANDTOTAL") || j.contains("PAYABLE") {
                return (.total, 14)
            }
            if !w.isDisjoint(with: ["NETT", "NET", "PAY", "AMOUNT", "AMT"]) || inclusive {
                return (.total, 12)
            }
            return (.total, 10)
        }
        if (w.contains("AMOUNT") || w.contains("AMT")) && (w.contains("DUE") || w.contains("PAYABLE")) { return (.total, 11) }
        if w.contains("BALANCE") && w.contains("DUE") { return (.total, 11) }
        if w == ["DUE"] || w == ["TOTAL", "DUE"] { return (.total, 10) }
        if w.contains("PAYABLE") || w.contains("AMOUNT") || w.contains("AMT") { return (.total, 5) }
        return (.other, 0)
    }

    /// Label words as meant when OCR misread one character of them: digits for look-alike letters inside a word
    /// (`Tota1`, `T0TAL`), and one letter wrong, missing or extra in a long label word (`Totsl`, `toal`,
    /// `Inchusive`). Only words that cannot be another common receipt word one letter away are repaired.
    static func canonicalLabel(_ label: String) -> String {
        let targets = ["TOTAL", "SUBTOTAL", "ROUNDING", "INCLUSIVE", "PAYABLE"]
        let lookalikes: [Character: Character] = ["0": "O", "1": "L", "5": "S", "8": "B", "|": "L", "!": "L"]
        var changed = false
        let rewritten = label.split(separator: " ", omittingEmptySubsequences: false).map { token -> String in
            // The word's letters (and look-alike digits) between any punctuation around it.
            let chars = Array(token)
            guard let first = chars.firstIndex(where: { $0.isLetter }), let last = chars.lastIndex(where: { $0.isLetter || lookalikes[$0] != nil }) else { return String(token) }
            var core = Array(chars[first...last])
            let letterCount = core.filter(\.isLetter).count
            guard letterCount >= 3, core.allSatisfy({ $0.isLetter || lookalikes[$0] != nil }) else { return String(token) }
            core = core.map { lookalikes[$0] ?? $0 }
            let upper = String(core).uppercased()
            // The label word one edit away, or the word itself with its look-alike digits read as letters.
            let replacement = targets.contains(upper) ? upper : targets.first { upper.count >= 4 && oneEditApart(upper, $0) } ?? upper
            guard replacement != upper || letterCount < core.count else { return String(token) }
            changed = true
            return String(chars[..<first]) + replacement + String(chars[(last + 1)...])
        }
        return changed ? rewritten.joined(separator: " ") : label
    }

    /// One substitution, deletion or insertion turns `a` into `b` (both upper-case).
    static func oneEditApart(_ a: String, _ b: String) -> Bool {
        let x = Array(a), y = Array(b)
        guard abs(x.count - y.count) <= 1, x != y else { return false }
        var i = 0
        while i < min(x.count, y.count), x[i] == y[i] { i += 1 }
        if x.count == y.count { return x[(i + 1)...] == y[(i + 1)...] }
        if x.count < y.count { return x[i...] == y[(i + 1)...] }
        return x[(i + 1)...] == y[i...]
    }

    /// Every amount on the receipt with the label that names it: the text before it on its line, or for
    /// lines holding only amounts, the label lines just above (paired in order, for column layouts).
    static func labelledAmounts(_ lines: [Line]) -> [Labelled] {
        var result: [Labelled] = []
        var pendingLabels: [Line] = []
        // Amounts, and bare counts (`22`, `1`) that take a label's place in a column without being money.
        var valueRun: [(Line, PrintedAmount?)] = []
        var inSummary = false
        // Keyword labels whose values are printed further down (after a tax summary, say), in order.
        var orphans: [Line] = []

        func flushValues() {
            guard !valueRun.isEmpty else { return }
            let runHasKeyword = pendingLabels.contains { classify($0.text).0 != .other }
            var summary = inSummary
            if !runHasKeyword, !orphans.isEmpty, orphans.count >= valueRun.count {
                pendingLabels = Array(orphans.prefix(valueRun.count))
                orphans = Array(orphans.dropFirst(valueRun.count))
                summary = false
            }
            // Column layouts print labels, then their values in the same order. Equal counts pair one to
            // one; more labels than values pair from the first keyword label; more values than keyword
            // labels pair the keyword labels with the last values (the earlier ones are item prices).
            var pairs: [Int: Line] = [:]
            let keywordStart = pendingLabels.firstIndex { classify($0.text).0 != .other }
            if pendingLabels.count == valueRun.count {
                for (offset, label) in pendingLabels.enumerated() { pairs[offset] = label }
            } else if let keywordStart {
                let keywords = Array(pendingLabels[keywordStart...])
                if keywords.count >= valueRun.count {
                    for offset in valueRun.indices { pairs[offset] = keywords[offset] }
                    orphans += keywords.dropFirst(valueRun.count).filter { classify($0.text).0 != .other }
                } else {
                    let skip = valueRun.count - keywords.count
                    for (offset, label) in keywords.enumerated() { pairs[skip + offset] = label }
                }
            } else {
                let count = min(pendingLabels.count, valueRun.count)
                for (offset, label) in pendingLabels.suffix(count).enumerated() { pairs[offset] = label }
            }
            for (offset, (line, printed)) in valueRun.enumerated() {
                guard let amount = printed else { continue }
                if let label = pairs[offset] {
                    let (kind, strength) = classify(label.text)
                    result.append(Labelled(cents: amount.cents, kind: kind, strength: strength, line: line.index,
                                           secondary: false, inSummary: summary, source: label.text + " " + line.text))
                } else {
                    result.append(Labelled(cents: amount.cents, kind: .other, strength: 0, line: line.index,
                                           secondary: true, inSummary: inSummary, source: line.text))
                }
            }
            valueRun = []
            pendingLabels = []
        }

        for line in lines {
            if line.upper.contains("SUMMARY") || line.upper.contains("ANALYSIS") {
                if !inSummary, valueRun.isEmpty {
                    orphans += pendingLabels.filter { classify($0.text).0 != .other }
                    pendingLabels = []
                }
                inSummary = true
            }
            let bareCount = line.amounts.isEmpty && line.dates.isEmpty && line.letters.isEmpty
                && line.text.range(of: #"^[0-9]{1,4} ?%?$"#, options: .regularExpression) != nil
            if bareCount {
                valueRun.append((line, nil))
                continue
            }
            if line.amounts.isEmpty {
                flushValues()
                let currencyOnly = ["RM", "MYR", "USD", "EUR", "GBP", "SGD", "$", "€", "£"].contains(line.upper.filter { !$0.isWhitespace && !".:()".contains($0) })
                let meaningful = line.letters.count >= 2 || line.text.contains(where: { $0.isNumber })
                if meaningful, !currencyOnly { pendingLabels.append(line) }
                continue
            }
            if line.amountOnly {
                for amount in line.amounts { valueRun.append((line, amount)) }
                continue
            }
            flushValues()
            let chars = Array(line.text)
            var previousEnd = 0
            var previousLabel: (Kind, Double)?
            for amount in line.amounts {
                let label = String(chars[min(previousEnd, amount.start)..<amount.start])
                previousEnd = amount.end
                if label.filter(\.isLetter).count >= 2 {
                    let classified = classify(label)
                    previousLabel = classified
                    result.append(Labelled(cents: amount.cents, kind: classified.0, strength: classified.1, line: line.index,
                                           secondary: false, inSummary: inSummary, source: line.text))
                } else if let previousLabel {
                    result.append(Labelled(cents: amount.cents, kind: previousLabel.0, strength: previousLabel.1, line: line.index,
                                           secondary: true, inSummary: inSummary, source: line.text))
                } else {
                    result.append(Labelled(cents: amount.cents, kind: .other, strength: 0, line: line.index,
                                           secondary: true, inSummary: inSummary, source: line.text))
                }
            }
            pendingLabels = []
        }
        flushValues()
        return result
    }

    // MARK: Total, subtotal, tax

    static func total(_ amounts: [Labelled], lines: [Line], currency: CurrencyCode) -> ReadField<Money>? {
        // A "rounding" figure of ten cents or more is the rounded total, not the adjustment.
        let amounts = amounts.map { a -> Labelled in
            guard a.kind == .rounding, abs(a.cents) >= 10,
                  amounts.contains(where: { $0.line != a.line && $0.cents != a.cents && abs($0.cents - a.cents) <= 5 }) else { return a }
            var copy = a
            copy.kind = .total
            copy.strength = 9
            return copy
        }
        let positive = amounts.filter { $0.cents > 0 }
        guard !positive.isEmpty else { return nil }
        // Tendered amounts are sometimes printed negative (`CASH -10.00`).
        let cash = Set(amounts.filter { $0.kind == .cash && $0.cents != 0 }.map { abs($0.cents) })
        // Column layouts print the closing figures in a run whatever their labels say: `TOTAL, CASH, CHANGE`
        // as `26.60 100.00 73.40` (paid minus change is the total) and `16.31 -0.01 16.30` (a total, its
        // rounding, the rounded total). Three amounts in a row that add up so are the total, label or not.
        let sequence = amounts.enumerated().sorted { $0.element.line == $1.element.line ? $0.offset < $1.offset : $0.element.line < $1.element.line }.map(\.element.cents)
        var sequenceEvidence: [Int64: Double] = [:]
        if sequence.count >= 3 {
            for i in 0..<(sequence.count - 2) {
                let (a, b, c) = (sequence[i], sequence[i + 1], sequence[i + 2])
                // Not a tax beside its gross total and net amount (`0.66 11.60 10.94` is tax, total, net): column labels
                // are paired by guesswork, so the amounts must look like it too (a tax is a small share of the net).
                let taxAndNet = (amounts.contains { $0.cents == a && $0.kind == .tax } || amounts.contains { $0.cents == c && $0.kind == .subtotal })
                    && a * 100 <= c * 30
                if a > 0, c > 0, b > a, b - c == a, !taxAndNet {
                    sequenceEvidence[a, default: 0] = max(sequenceEvidence[a] ?? 0, 7)
                    // What was handed over and what was given back are not the total, whatever their labels say.
                    for paid in [b, c] where paid != a { sequenceEvidence[paid, default: 0] = min(sequenceEvidence[paid] ?? 0, -6) }
                }
                if a > 0, c > 0, b != 0, abs(b) <= 4, a + b == c, c % 5 == 0 { sequenceEvidence[c, default: 0] = max(sequenceEvidence[c] ?? 0, 4) }
            }
        }
        let change = Set(amounts.filter { $0.kind == .change }.map(\.cents))
        let rounding = Set(amounts.filter { $0.kind == .rounding && $0.cents != 0 && abs($0.cents) < 100 }.map(\.cents))
        let subtotals = Set(positive.filter { $0.kind == .subtotal }.map(\.cents))
        let taxes = Set(positive.filter { $0.kind == .tax }.map(\.cents))
        let totalLabelled = positive.filter { $0.kind == .total && !$0.inSummary }
        let totalValues = Set(totalLabelled.map(\.cents))
        let uncommitted = positive.filter { ![.cash, .change, .quantity, .rounding, .discount].contains($0.kind) }.map(\.cents)
        let largest = uncommitted.max()

        var best: (score: Double, cents: Int64, line: Int, source: String)?
        for cents in Set(positive.map(\.cents)) {
            let occurrences = positive.filter { $0.cents == cents }
            var labelScore = 0.0
            var totalCount = 0
            for occurrence in occurrences where occurrence.kind == .total {
                var s = occurrence.strength
                if occurrence.inSummary { s -= 5 }
                if occurrence.secondary { s -= 3 }
                labelScore = max(labelScore, s)
                totalCount += 1
            }
            var score = labelScore + 1.5 * Double(min(max(totalCount - 1, 0), 3))
            let otherKinds = Set(occurrences.map(\.kind)).subtracting([.total, .other, .subtotal])
            if totalCount == 0 { score -= 3 * Double(otherKinds.count) }
            if occurrences.contains(where: { $0.kind == .subtotal }) && totalCount == 0 {
                // With no total printed (or none read), the subtotal is the best evidence there is.
                score += totalLabelled.isEmpty ? 5 : -1
            }
            score += 0.5 * Double(min(occurrences.count - 1, 2))
            if cash.contains(where: { c in change.contains(where: { c - $0 == cents && $0 > 0 }) }) { score += 6 }
            if cash.contains(cents) && (change.isEmpty || change == [0]) { score += 2 }
            if subtotals.contains(where: { s in taxes.contains(where: { s + $0 == cents }) || rounding.contains(where: { r in taxes.contains { s + $0 + r == cents } }) }) { score += 4 }
            if totalValues.contains(where: { t in rounding.contains { t + $0 == cents } }) { score += 5 }
            if totalValues.contains(cents), rounding.contains(where: { r in positive.contains { $0.cents == cents + r && $0.kind != .rounding } }) { score -= 3 }
            if cents == largest { score += 1 }
            score += sequenceEvidence[cents] ?? 0
            let first = occurrences.filter { $0.kind == .total }.max(by: { $0.strength < $1.strength }) ?? occurrences[0]
            if best == nil || score > best!.score || (score == best!.score && first.line > best!.line) {
                best = (score, cents, first.line, first.source)
            }
        }
        guard var best else { return nil }
        // A total whose first digit was lost (`TOTAL =<4.00` under `SUB-TOTAL 24.00`): the longer amount it ends
        // is the total when that amount is labelled a total or subtotal too, and nothing (a discount, paid
        // minus change) explains the shorter one.
        let bestText = String(best.cents)
        let explained = amounts.contains { $0.kind == .discount && $0.cents != 0 }
            || cash.contains { c in change.contains { c - $0 == best.cents } }
        if best.cents >= 100, !explained, let longer = positive.filter({ p in
            p.cents > best.cents && [.total, .subtotal].contains(p.kind) && !p.inSummary
                && String(p.cents).count == bestText.count + 1 && String(p.cents).hasSuffix(bestText)
        }).min(by: { $0.line < $1.line }) {
            best = (best.score, longer.cents, longer.line, longer.source)
        }
        // Cash rounding (to 5 cents: Malaysia, Switzerland, …): when the receipt rounds and the chosen total
        // is not rounded, a printed amount within two cents that is rounded is what was paid.
        let rounds = !rounding.isEmpty || lines.contains { $0.upper.contains("ROUND") || $0.words.contains("ADJ") }
        if rounds, best.cents % 5 != 0,
           let rounded = positive.filter({ p in p.cents % 5 == 0 && abs(p.cents - best.cents) <= 2
               && (rounding.contains(p.cents - best.cents) || p.kind == .cash || p.kind == .total
                   // Printed under the total, whatever its label was read as (`RH 60,30`).
                   || (p.line > best.line && p.kind != .change && p.kind != .rounding)) })
            .max(by: { $0.line < $1.line }) {
            best = (best.score, rounded.cents, rounded.line, rounded.source)
        }
        guard let money = PrintedAmount(cents: best.cents, hasDecimals: true, start: 0, end: 0).money(currency) else { return nil }
        let confidence = best.score >= 3 ? 0.35 + 0.04 * best.score : 0.25
        return ReadField(value: money, confidence: min(confidence, 0.97), sourceText: best.source)
    }

    static func subtotal(_ amounts: [Labelled], total: ReadField<Money>?, currency: CurrencyCode) -> ReadField<Money>? {
        // A subtotal may exceed the total (after a discount), so no bound here.
        guard let found = amounts.first(where: { $0.kind == .subtotal && $0.cents > 0 && !$0.inSummary }),
              let money = PrintedAmount(cents: found.cents, hasDecimals: true, start: 0, end: 0).money(currency) else { return nil }
        return ReadField(value: money, confidence: 0.8, sourceText: found.source)
    }

    static func tax(_ amounts: [Labelled], total: ReadField<Money>?, currency: CurrencyCode) -> ReadField<Money>? {
        let totalCents = total.map { centsOf($0.value.minorUnits, currency) }
        let candidates = amounts.filter { $0.kind == .tax && $0.cents > 0 && !$0.secondary && (totalCents == nil || $0.cents * 2 < totalCents!) }
        guard !candidates.isEmpty else { return nil }
        let values = Set(amounts.map(\.cents))
        // Best: the tax that, added to another printed amount, makes the total.
        let consistent = candidates.first { c in totalCents.map { values.contains($0 - c.cents) } ?? false }
        let chosen = consistent ?? candidates[0]
        guard let money = PrintedAmount(cents: chosen.cents, hasDecimals: true, start: 0, end: 0).money(currency) else { return nil }
        return ReadField(value: money, confidence: consistent != nil ? 0.9 : 0.6, sourceText: chosen.source)
    }

    static func centsOf(_ minorUnits: Int64, _ currency: CurrencyCode) -> Int64 {
        switch currency.minorUnitDigits {
        case 0: return minorUnits * 100
        case 1: return minorUnits * 10
        case 2: return minorUnits
        default: return minorUnits / 10
        }
    }

    // MARK: Date

    static func date(_ lines: [Line], hints: ReceiptHints) -> ReadField<CalendarDate>? {
        var found: [(PrintedDate, Line)] = []
        for line in lines { for date in line.dates { found.append((date, line)) } }
        guard !found.isEmpty else { return nil }
        var dayFirstVotes = 0, monthFirstVotes = 0
        for (date, _) in found {
            switch date.impliedOrder {
            case .dayFirst: dayFirstVotes += 1
            case .monthFirst: monthFirstVotes += 1
            case nil: break
            }
        }
        let decided: DateOrder? = dayFirstVotes > monthFirstVotes ? .dayFirst : monthFirstVotes > dayFirstVotes ? .monthFirst : nil
        let order = decided ?? hints.dateOrder ?? .dayFirst
        var best: (score: Double, date: CalendarDate, printed: PrintedDate, line: Line)?
        for (index, (printed, line)) in found.enumerated() {
            guard var date = printed.date(order) ?? printed.date(order == .dayFirst ? .monthFirst : .dayFirst) else { continue }
            var score = 1.0
            // A date after the receipt was captured is a misread year (`2078`): repair one digit, or pass over it.
            if let captured = hints.capturedOn, date > captured {
                let latest = captured.year
                if let year = DateScanner.repairedNumber(String(date.year), within: (latest - 15)...latest, preferring: latest),
                   let repaired = try? CalendarDate(year: year, month: date.month, day: min(date.day, CalendarDate.daysIn(month: date.month, year: year))),
                   repaired <= captured {
                    date = repaired
                    score -= 0.5
                } else {
                    score -= 5
                }
            }
            let w = Set(line.words)
            let previous = line.index > 0 ? lines[line.index - 1] : nil
            if !w.isDisjoint(with: ["DATE", "TARIKH", "DATUM", "FECHA", "DATA", "DTE", "DATED"]) || line.upper.contains("DATE") { score += 3 }
            else if let previous, previous.upper.contains("DATE") || previous.upper.contains("TARIKH"), previous.dates.isEmpty { score += 2 }
            if line.upper.range(of: #"[0-9]{1,2} ?: ?[0-9]{2}"#, options: .regularExpression) != nil { score += 2 }
            if !w.isDisjoint(with: ["EXP", "EXPIRY", "EXPIRES", "VALID", "UNTIL", "TILL", "BEFORE", "DUE", "BIRTH", "DOB", "WARRANTY", "REFUND", "RETURN", "RETURNS"]) { score -= 4 }
            if !(2000...2099).contains(date.year) { score -= 3 }
            if printed.date(order) == nil { score -= 2 }
            score -= Double(index) * 0.01
            if best == nil || score > best!.score { best = (score, date, printed, line) }
        }
        guard let best else { return nil }
        var confidence = 0.55
        if case .unambiguous = best.printed.form { confidence += 0.2 } else if decided != nil { confidence += 0.15 } else if hints.dateOrder != nil { confidence += 0.1 } else {
            if case let .numeric(first, second, _) = best.printed.form, first == second { confidence += 0.15 } else { confidence -= 0.1 }
        }
        if best.score >= 3 { confidence += 0.1 }
        if best.score >= 5 { confidence += 0.05 }
        if found.filter({ $0.0.date(order) == best.date }).count > 1 { confidence += 0.05 }
        return ReadField(value: best.date, confidence: min(confidence, 0.97), sourceText: best.line.text)
    }

    // MARK: Vendor and address

    static let phonePattern = #"(\+?[0-9]{1,4}[ \-.)]*)?\(?[0-9]{2,4}\)?[ \-.]?[0-9]{3,4}[ \-.]?[0-9]{3,5}"#

    /// Registration numbers, tax ids, phones, mails and web addresses.
    static func isIdentityLine(_ line: Line) -> Bool {
        let w = Set(line.words)
        if !w.isDisjoint(with: Lexicon.idWords) { return true }
        if line.upper.contains("CO.REG") || line.upper.contains("CO. REG") || line.upper.contains("CO NO")
            || line.upper.contains("CO. NO") || line.upper.contains("COMPANY NO") || line.upper.contains("COMPANY REG")
            || line.upper.contains("@") || line.upper.contains(".COM") || line.upper.contains("WWW.")
            || line.upper.range(of: #"\b(BR|ROC|REG|GST|SST)\.? ?NO\b"#, options: .regularExpression) != nil
            // Run together by a recogniser that drops spaces: `(GSTREG.NO000670224384)`.
            || line.upper.range(of: #"(GST|SST|REG|ROC|BRN)[A-Z.:# ]{0,8}[0-9]{6,}"#, options: .regularExpression) != nil
            // The same label glued with its number on the next line, or none printed: `GSTID:`, `GSTREGNO`.
            || line.upper.range(of: #"\b(GST|SST)\.?(ID|REG|NO)"#, options: .regularExpression) != nil
            // A company number after a misread label (`Conpany No:_JM0632980-V`): `NO` and a number with its check letter.
            || line.upper.range(of: #"\bNO\b[.:_ #]*[A-Z]{0,3}[0-9]{5,}-[A-Z]\)?$"#, options: .regularExpression) != nil
            // A phone's label glued to its number or misread (`TELN0:-012-6028832`, `Te1 No.03-6092-1968`).
            || line.upper.range(of: #"^\W*(TE[L1I]|FAX|PHONE|H/?P)\s*(N[O0])?[\s.:\-]*\+?\(?[0-9]{2,}"#, options: .regularExpression) != nil {
            return true
        }
        // `(123456-X)`, `002043319-W`, `(8199K)` alone on the line. (Not a branch's number and name: `1245-DESA JAYA`.)
        let stripped = line.upper.filter { !" ()[]:.#".contains($0) }
        if stripped.range(of: #"^[0-9]{4,}-?[A-Z]?(-[A-Z]?[0-9][A-Z0-9]*)?$"#, options: .regularExpression) != nil { return true }
        if line.letters.count <= 3, line.upper.filter(\.isNumber).count >= 6, !startsWithHouseNumber(line) { return true }
        return false
    }

    /// `NO 43-45-47G,`, `LOT 1851-A`, `NO.3, JALAN …`: the number an address starts with, not an id. (Also glued to
    /// its number by a recogniser that drops spaces: `NO43-45-47G,`.)
    static func startsWithHouseNumber(_ line: Line) -> Bool {
        line.upper.range(of: #"^(NO|LOT|UNIT|BLOCK|BLK|LEVEL|SUITE)((?![A-Z])[.:#]? ?[A-Z]?[/\-]?[A-Z]?[0-9]|[A-Z][/\-]?[A-Z]?[0-9])"#, options: .regularExpression) != nil
    }

    /// Countries: an address ends with its country.
    static let countries: Set<String> = ["MALAYSIA", "SINGAPORE", "INDONESIA", "THAILAND", "USA", "UK", "AUSTRALIA", "GERMANY", "FRANCE", "CANADA"]

    static func isAddressLine(_ line: Line) -> Bool {
        let w = Set(line.words)
        if !w.isDisjoint(with: Lexicon.addressWords) { return true }
        // Street names written as one word: `HAUPTSTRASSE`, `LINDENALLEE`, `KERKSTRAAT`.
        if line.words.contains(where: { word in ["STRASSE", "STRAẞE", "GASSE", "ALLEE", "PLATZ", "STRAAT", "GATAN", "VEJ"].contains { word.count > $0.count && word.hasSuffix($0) } }) {
            return true
        }
        if !w.isDisjoint(with: Lexicon.placeWords), !hasSuffix(line), !hasBusinessWord(line) { return true }
        // A postcode: five digits, not a registration number such as `(81497-P)`.
        if line.upper.range(of: #"(^|[^0-9(\-])[0-9]{5}($|[^0-9)\-])"#, options: .regularExpression) != nil { return true }
        if line.upper.range(of: #"^(NO\.? ?)?[0-9]+[A-Z]?(-[0-9A-Z]+)?,"#, options: .regularExpression) != nil { return true }
        return startsWithHouseNumber(line)
    }

    static func isHeaderNoise(_ line: Line) -> Bool {
        let w = line.words.filter { $0.contains(where: \.isLetter) }
        guard !w.isEmpty else { return true }
        let noise = w.filter { Lexicon.headerNoise.contains($0) }.count
        return noise * 2 >= w.count
    }

    static func hasSuffix(_ line: Line) -> Bool {
        line.words.contains { Lexicon.companySuffixes.contains($0) } || line.upper.contains("S/B") || line.upper.contains("SDN.")
    }

    static func hasBusinessWord(_ line: Line) -> Bool {
        line.words.contains { Lexicon.businessWords.contains($0) }
    }

    /// The vendor: the first prominent line(s) of the header that are not an address, an id, a date
    /// or a person's name, joined when a trading name runs over two or three lines.
    static func vendor(_ lines: [Line]) -> (field: ReadField<String>, lastLine: Int)? {
        var header: [Line] = []
        for line in lines.prefix(14) {
            if !line.dates.isEmpty || (!line.amounts.isEmpty && header.count >= 1) { break }
            header.append(line)
        }
        if header.isEmpty { header = Array(lines.prefix(3)) }
        func eligible(_ line: Line) -> Bool {
            guard line.letters.count >= 3, line.dates.isEmpty, line.amounts.isEmpty, !isHeaderNoise(line),
                  line.words.allSatisfy({ !["THANK", "THANKS", "RETURNABLE", "REFUND", "EXCHANGE", "WELCOME"].contains($0) }),
                  // The same words run together (`GOODSSOLDARENOTRETURNABLE.THAIKYOU`, `WelcometotheFamily`).
                  !["RETURNABLE", "THANKYOU", "WELCOMETO"].contains(where: { line.letters.contains($0) }) else { return false }
            // A legal form (`SDN BHD`, `LTD`) outweighs a street word or a web address in the same line.
            // (A registration number in brackets is no postcode, even with a letter misread in it: `(I39386X)`.)
            if hasSuffix(line), line.words.filter({ Lexicon.companySuffixes.contains($0) }).count >= 1,
               line.upper.replacingOccurrences(of: #"\([^()]*[0-9]{5,}[^()]*\)"#, with: " ", options: .regularExpression)
                   .range(of: #"(^|[^0-9(\-])[0-9]{5}($|[^0-9)\-])"#, options: .regularExpression) == nil,
               !line.words.contains(where: { ["TEL", "FAX", "GST", "REG", "PHONE"].contains($0) }) {
                return true
            }
            return !isIdentityLine(line) && !isAddressLine(line)
        }
        // Lines the recogniser itself barely believes (logos, stamps) are not names.
        let candidates = header.filter { eligible($0) && ($0.confidence ?? 1) >= 0.3 }
        guard !candidates.isEmpty else { return nil }
        // The name comes before the address and the contact lines; what follows them is rarely the vendor.
        // (A bare number above the name, a receipt or terminal number, is not the contact block.)
        // (A web address or phone printed above the name, in a greeting such as `THANK YOU FOR SHOPPING WITH shop.com`,
        // is not the contact block either: an id line counts from the first line that could be the name.)
        let firstCandidate = candidates[0].index
        let firstAddress = header.first(where: { $0.letters.count > 0 && (isAddressLine($0) || ($0.index > firstCandidate && isIdentityLine($0))) })?.index ?? Int.max
        let maxProminence = candidates.map(\.prominence).max() ?? 1
        var best: (score: Double, line: Line)?
        for (rank, line) in candidates.enumerated() {
            var score = 2.0 - Double(rank) * 0.6 - Double(line.index) * 0.15
            if line.index > firstAddress { score -= 4 }
            if hasSuffix(line) { score += 3 }
            if hasBusinessWord(line) { score += 1.5 }
            // Large print marks the name, unless the recogniser could not read it (a logo): weigh size by confidence.
            let legibility = line.confidence.map { min(max(($0 - 0.6) / 0.3, 0), 1) } ?? 1
            if maxProminence > 1.15 { score += 1.5 * legibility * (line.prominence - 1) / (maxProminence - 1) }
            if let confidence = line.confidence, confidence >= 0.9 { score += 0.5 }
            // A short run of plain words with no business word, above a line that has one: a person's name.
            let plainWords = line.words.allSatisfy { $0.allSatisfy(\.isLetter) }
            if plainWords, (2...3).contains(line.words.count), !hasSuffix(line), !hasBusinessWord(line),
               candidates.dropFirst(rank + 1).prefix(2).contains(where: { $0.index < firstAddress && (hasSuffix($0) || hasBusinessWord($0)) }) {
                score -= 3
            }
            // The company's registration number printed after its name (`… SDN BHD (519537-X)`) marks the legal name,
            // even when the legal form was misread; it does not count against the share of letters.
            let registration = #"\(\s*[0-9]{4,}[\-·. ]?[A-Z]\s*\)"#
            let withoutRegistration = line.upper.replacingOccurrences(of: registration, with: "", options: .regularExpression)
            if withoutRegistration.count < line.upper.count, withoutRegistration.filter(\.isLetter).count >= 4 { score += 1.5 }
            let letterShare = Double(line.letters.count) / Double(max(withoutRegistration.filter { !$0.isWhitespace }.count, 1))
            if letterShare < 0.6 { score -= 1.5 }
            // Logos and stamps read as noise (`Noon dig`): the recogniser itself is unsure of them.
            if let confidence = line.confidence {
                if confidence < 0.5 { score -= 4 } else if confidence < 0.7 { score -= 1.5 }
            }
            if best == nil || score > best!.score { best = (score, line) }
        }
        guard let chosen = best?.line else { return nil }

        // Join a name that runs over lines: `AIK HUAT HARDWARE` / `ENTERPRISE (SETIA` / `ALAM) SDN BHD`.
        var first = chosen.index, last = chosen.index
        func joinable(_ index: Int) -> Bool {
            guard index >= 0, index < lines.count else { return false }
            let line = lines[index]
            return eligible(line) && header.contains { $0.index == index }
        }
        func continues(_ text: String) -> Bool {
            let upper = text.uppercased()
            let ws = words(upper)
            guard let head = ws.first else { return false }
            if Lexicon.companySuffixes.contains(head) || upper.hasPrefix("(") || upper.hasPrefix("&") || head == "AND" { return true }
            if let close = upper.firstIndex(of: ")"), upper.firstIndex(of: "(").map({ $0 > close }) ?? true { return true }
            return false
        }
        func dangling(_ text: String) -> Bool {
            let upper = text.uppercased().trimmingCharacters(in: .whitespaces)
            return upper.hasSuffix("&") || upper.hasSuffix(" AND") || upper.filter({ $0 == "(" }).count > upper.filter({ $0 == ")" }).count
        }
        // `POPULAR BOOK` / `CO. (M) SDN BHD`: a legal form with at most one word of name before it.
        func genericName(_ line: Line) -> Bool {
            var name: [String] = []
            for word in line.words {
                if Lexicon.companySuffixes.contains(word) || word == "S/B" { break }
                if word.count >= 2 { name.append(word) }
            }
            // (Or a short word glued to a business word: `JTJFOODS SDN BHD`, not `FARMASIMALURI S/B`.)
            return name.count == 1 && (Lexicon.businessWords.contains(name[0]) || name[0].count <= 3
                || gluedWords([name[0]]).contains { Lexicon.businessWords.contains($0) && name[0].count - $0.count <= 3 })
        }
        while first > 0, joinable(first - 1), first > chosen.index - 2,
              continues(lines[first].text) || dangling(lines[first - 1].text) || saysAgain(lines[first - 1], lines[first])
                || (first == chosen.index && hasSuffix(chosen) && genericName(chosen) && !hasSuffix(lines[first - 1])) {
            first -= 1
        }
        var probe = last
        while probe + 1 < lines.count, probe < chosen.index + 2, joinable(probe + 1) {
            probe += 1
            let joinedSoFar = lines[first...last].map(\.text).joined(separator: " ")
            if continues(lines[probe].text) || dangling(joinedSoFar) || saysAgain(lines[probe - 1], lines[probe])
                || (!hasSuffix(chosen) && hasSuffix(lines[probe]) && lines[probe].words.count <= 3) {
                last = probe
            } else { break }
        }
        let joined = lines[first...last].map(\.text).joined(separator: " ")
        // What the receipt says elsewhere (a footer, an email or web address) puts a misread letter of the name right.
        // (Only from lines the recogniser is at least as sure of as of the name.)
        let nameConfidence = lines[first...last].compactMap(\.confidence).min() ?? 0
        let elsewhere = lines.filter { ($0.index < first || $0.index > last) && ($0.confidence ?? 1) >= nameConfidence }.map(\.upper)
        let name = repairedName(bracketsRead(cleanVendor(joined), elsewhere: elsewhere), elsewhere: elsewhere)
        guard name.filter(\.isLetter).count >= 2 else { return nil }
        var confidence = 0.45
        if hasSuffix(chosen) { confidence += 0.25 }
        if hasBusinessWord(chosen) { confidence += 0.1 }
        if chosen.prominence > 1.2 { confidence += 0.1 }
        if candidates.count == 1 { confidence += 0.1 }
        return (ReadField(value: name, confidence: min(confidence, 0.95), sourceText: joined), last)
    }

    /// A bracket of a name read as a letter that looks like it (`ENTERPRISE ISETIA ALAM)`, `(SETIA ALAMI SDN BHD`): where a
    /// bracket has no partner, an `I`, `l`, `|`, `1`, `J` (or `C` for an opening one) at the near end of a word on the open
    /// side is the partner, when the word without it (four letters or more) is said elsewhere on the receipt, or one
    /// look-alike letter from a word that is.
    static func bracketsRead(_ name: String, elsewhere: [String]) -> String {
        let opens = name.filter { $0 == "(" }.count, closes = name.filter { $0 == ")" }.count
        guard opens != closes else { return name }
        let said = Set(elsewhere.flatMap { $0.split(whereSeparator: { !$0.isLetter }).map(String.init) }.filter { $0.count >= 4 })
        func known(_ word: Substring) -> Bool {
            let upper = word.uppercased()
            guard upper.count >= 4, upper.allSatisfy(\.isLetter) else { return false }
            return said.contains(upper) || said.contains { oneLookalikeApart(upper, $0) }
        }
        var words = name.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        if opens > closes, let open = words.lastIndex(where: { $0.contains("(") }) {
            // The closing bracket after the opening one: `ALAMI` is `ALAM)`.
            for index in open..<words.count {
                let word = words[index].hasPrefix("(") ? String(words[index].dropFirst()) : words[index]
                if let last = word.last, "Il|1J".contains(last), known(word.dropLast()) {
                    words[index] = String(words[index].dropLast()) + ")"
                    break
                }
            }
        } else if closes > opens, let close = words.firstIndex(where: { $0.contains(")") }) {
            // The opening bracket before the closing one: `ISETIA ALAM)` is `(SETIA ALAM)`.
            for index in stride(from: close, through: 0, by: -1) {
                let word = words[index].split(separator: ")", omittingEmptySubsequences: false)[0]
                if let first = word.first, "Il|1JC".contains(first), known(word.dropFirst()) {
                    words[index] = "(" + words[index].dropFirst()
                    break
                }
            }
        }
        return words.joined(separator: " ")
    }

    /// Two lines of a trading name that say one of its own words again (`RESTAURANT SERI` / `SERIHOUSE`): a word of four
    /// letters or more that is no business word or legal form, printed in both (the second may run on into the next
    /// word, glued by the recogniser). Not a legal name under the trading name (`LAVENDER` / `LAVENDER BAKERY S/B`):
    /// the legal name alone is the vendor then.
    static func saysAgain(_ a: Line, _ b: Line) -> Bool {
        guard !hasSuffix(a), !hasSuffix(b) else { return false }
        func own(_ line: Line) -> [String] {
            respaced(line.text).uppercased().split(whereSeparator: { !$0.isLetter }).map(String.init)
                .filter { $0.count >= 4 && !Lexicon.businessWords.contains($0) && !Lexicon.companySuffixes.contains($0) }
        }
        let (first, second) = (own(a), own(b))
        return first.contains { word in second.contains { $0.hasPrefix(word) || word.hasPrefix($0) } }
    }

    /// Letters a recogniser confuses with each other (`NART` for `MART`, `HOIDINGS`, `CONFECTIUNERY`, `SELANGCR`, `SCLANGOR`).
    static let lookalikeLetters: Set<String> = ["MN", "NM", "IL", "LI", "OU", "UO", "OD", "DO", "BH", "HB", "CG", "GC", "EF", "FE",
                                                "PF", "FP", "VY", "YV", "OQ", "QO", "IT", "TI", "HN", "NH", "RN", "NR", "HM", "MH",
                                                "OC", "CO", "EC", "CE"]

    /// `a` and `b` (upper case) differ in one letter, and that pair is one a recogniser confuses (`ALAN`, `ALAM`).
    static func oneLookalikeApart(_ a: String, _ b: String) -> Bool {
        guard a.count == b.count else { return false }
        let pairs = zip(a, b).filter { $0 != $1 }
        return pairs.count == 1 && lookalikeLetters.contains(String([pairs[0].0, pairs[0].1]))
    }

    /// `read` (upper case) written in the case of `printed`, letter by letter; where `printed` has a digit or sign, in the
    /// case of the letter before it (`Rawan9` read `RAWANG` is `Rawang`).
    static func written(_ read: String, inTheCaseOf printed: String) -> String {
        var result = ""
        var previousLower = false
        for (letter, reading) in zip(printed, read) {
            if letter.isLetter { previousLower = letter.isLowercase }
            result.append(previousLower ? Character(reading.lowercased()) : reading)
        }
        return result
    }

    /// A name's words put right where one letter was misread: a word of four letters or more that the receipt prints,
    /// one letter different, on another line (`GOARDIAN` in the name, `GUARDIAN` in the footer or in `www.guardian.com.my`;
    /// a letter more or less only in words of seven letters or more: `GARDEIA`), or one letter from a business word or
    /// legal form (six letters or more: `HEAUTY`, `CONFECTIUNERY`; shorter ones only for letters a recogniser confuses:
    /// `NART`). A word the receipt prints as it is elsewhere is left alone, and so is a final S (`KING'S`, `STATIONERS`).
    static func repairedName(_ name: String, elsewhere: [String], vocabulary words: Set<String> = Lexicon.businessWords.union(Lexicon.companySuffixes),
                             onlyLookalikes: Bool = false, shortWords: Set<String> = []) -> String {
        let vocabulary = words.filter { $0.count >= 4 && $0.allSatisfy(\.isLetter) }
        let otherWords = Set(elsewhere.flatMap { $0.split(whereSeparator: { !$0.isLetter }).map(String.init) }.filter { $0.count >= 4 })
        func replacement(_ word: String) -> String? {
            if word.count == 3, !shortWords.isEmpty, !shortWords.contains(word) {
                let known = shortWords.filter { oneLookalikeApart(word, $0) }
                return known.count == 1 ? known.first : nil
            }
            guard word.count >= 4, !vocabulary.contains(word), !otherWords.contains(word) else { return nil }
            // Said again on the receipt: a word of another line, or of an address (`WWW.GUARDIAN.COM.MY`).
            func plural(_ other: String) -> Bool {
                (word.hasSuffix("S") || other.hasSuffix("S")) && (word.dropLast() == other.dropLast() || word.dropLast() == other || other.dropLast() == word)
            }
            // A letter more or less inside the word, not at its ends (`SEKSYENU3`, `SELANGORD.E`: a neighbour glued on).
            func inside(_ other: String) -> Bool { word.count == other.count || (word.first == other.first && word.last == other.last) }
            func close(_ other: String) -> Bool {
                guard oneEditApart(word, other), !plural(other), inside(other) else { return false }
                return word.count == other.count ? word.count >= 5 || oneLookalikeApart(word, other) : min(word.count, other.count) >= 7
            }
            // (A long word that lost a letter, also inside a line the recogniser glued together: `GARDEIA` and
            // `TherecipientofGardenia'sproducts`. Not a letter changed: `BHPETROL` is not the `BHPETROM` of `BHPETROMART`.)
            let glued = word.count >= 7 ? otherWords.filter { $0.count >= word.count + 3 } : []
            guard !glued.contains(where: { $0.contains(word) }) else { return nil }
            let pieces = glued.flatMap { other -> [String] in
                let letters = Array(other)
                return (0...(letters.count - word.count - 1)).map { String(letters[$0..<($0 + word.count + 1)]) }
            }
            let again = otherWords.union(pieces).filter(close)
            if again.count == 1, let found = again.first { return found }
            let known = vocabulary.filter {
                ((!onlyLookalikes && word.count >= 6 && $0.count >= 6 && oneEditApart(word, $0)) || oneLookalikeApart(word, $0)) && !plural($0) && inside($0)
            }
            return known.count == 1 ? known.first : nil
        }
        var result = ""
        var token = ""
        func flush() {
            if !token.isEmpty {
                if let fixed = replacement(token.uppercased()) {
                    let capitalised = token.first?.isUppercase == true && token.dropFirst().contains(where: \.isLowercase)
                    result += capitalised ? fixed.prefix(1) + fixed.dropFirst().lowercased() : (token == token.uppercased() ? fixed : fixed.lowercased())
                } else {
                    result += token
                }
            }
            token = ""
        }
        for character in name {
            // A capital after a small letter starts a new word: the recogniser dropped the space (`JInPJU`, `JalarPelabur`).
            if character.isUppercase, token.last?.isLowercase == true { flush() }
            if character.isLetter { token.append(character) } else { flush(); result.append(character) }
        }
        flush()
        return result
    }

    /// Drops registration numbers and what follows the legal form: `99 SPEED MART S/B (519537-X)` → `99 SPEED MART S/B`.
    static func cleanVendor(_ text: String) -> String {
        var value = text.trimmingCharacters(in: .whitespaces)
        // Recognisers print `¥` for a `Y` and mangle the legal form (`SON BHD`, `$/8`): legal forms are a
        // small closed vocabulary, so a near miss at the end of the name is put right.
        value = value.replacingOccurrences(of: "¥", with: "Y")
        value = lettersForZeros(value).replacingOccurrences(of: #"(?<=[A-Za-z]-)0(?![0-9])"#, with: "O", options: .regularExpression)
        value = value.replacingOccurrences(of: #"(?i)\b(S[AO0DU]N|SDN)\.? ?(BHD|B[HN][DO0]|[8EH]HD|BAD|iti|BH)\b\.?"#, with: "SDN BHD", options: .regularExpression)
        value = placeInBrackets(value)
        value = value.replacingOccurrences(of: #"(?i)(?<=\s)[S$5][/|][B8DR](?=\s|$|\()"#, with: "S/B", options: .regularExpression)
        // Stray marks before the name: `~ AEON`, `| SHOP`.
        value = value.replacingOccurrences(of: #"^[^A-Za-z0-9(]+"#, with: "", options: .regularExpression)
        // A registration or contact line read onto the same row: `HASHA PETROKIOSK Company No: …`.
        value = value.replacingOccurrences(of: #"(?i)\s+(Company\s*(No|Reg)|Co\.?\s?No|Co\.?\s?Reg|GST|Tel|Fax|ROC)\b.*$"#, with: "", options: .regularExpression)
        // An id whose closing bracket was lost: `99 SPEED MART S/B (SI9537-x3`.
        value = value.replacingOccurrences(of: #"\s*\([^()]*[0-9]{3,}[^()]*$"#, with: "", options: .regularExpression)
        // A leading number (a branch or document code): `000002 BAIFU (M) SDN BHD`.
        value = value.replacingOccurrences(of: #"^[0-9\-]{4,}\s+"#, with: "", options: .regularExpression)
        // Parenthesised ids: `(519537-X)`, `(CO. NO. 113825-W)`.
        value = value.replacingOccurrences(of: #"\s*\([^()]*[0-9]{3,}[^()]*\)"#, with: "", options: .regularExpression)
        // Bare ids after the name: `273500-U (KSB)`, `822737-X`.
        value = value.replacingOccurrences(of: #"\s+[0-9]{4,}-?[A-Z]?\b.*$"#, with: "", options: .regularExpression)
        let upper = value.uppercased()
        for suffix in [" SDN BHD", " SDN. BHD.", " SDN. BHD", " SDN BHD.", " BHD.", " BHD", " S/B", " LTD.", " LTD", " LIMITED", " INC.", " INC", " LLC", " GMBH", " PLC"] {
            if let range = upper.range(of: suffix, options: .backwards) {
                let end = upper.distance(from: upper.startIndex, to: range.upperBound)
                value = String(value.prefix(end))
                break
            }
        }
        return respaced(value.trimmingCharacters(in: CharacterSet.whitespaces.union(CharacterSet(charactersIn: ",:-*#"))))
    }

    /// A word of two to eight letters in brackets, a full stop allowed before the closing one: `(KL)`, `(KI.)`.
    private static let bracketedWord = try! NSRegularExpression(pattern: #"\(([A-Za-z]{2,8})\.?\)"#)

    /// A region in brackets after a company's name (`(KL)`, `(JOHOR)`, `(M)` for Malaysia) with one letter misread as
    /// its look-alike is that region: `GARDENIA BAKERIES (KI.) SDN BHD` → `(KL)`.
    static func placeInBrackets(_ name: String) -> String {
        guard name.contains("(") else { return name }
        var result = name
        for match in bracketedWord.matches(in: name, range: NSRange(name.startIndex..., in: name)).reversed() {
            guard let range = Range(match.range(at: 1), in: name) else { continue }
            let word = name[range].uppercased()
            guard !Lexicon.placeWords.contains(word) else { continue }
            let places = Lexicon.placeWords.filter { place in
                guard place.count == word.count else { return false }
                let differing = zip(place, word).filter { $0 != $1 }
                return differing.count == 1 && lookalikeLetters.contains(String([differing[0].1, differing[0].0]))
            }
            if places.count == 1, let place = places.first, let whole = Range(match.range, in: result) {
                result.replaceSubrange(whole, with: "(\(place))")
            }
        }
        return result
    }

    /// Words of a store name a recogniser glued together, set apart where a legal form or business word ends
    /// the glued word (`FAMILYMART` → `FAMILY MART`, `GIFTHOMEDECO` → `GIFT HOME DECO`) or a long one begins it
    /// (`HARDWAREHAVEN` → `HARDWARE HAVEN`). A shorter word at the start is left alone (`MARTINEZ`), and so is a
    /// word that is in the lexicon itself (`BOOKSTORE`). Only the spacing changes.
    static func respaced(_ name: String) -> String {
        let vocabulary = Lexicon.nameWordsLongestFirst
        func split(_ word: String) -> String {
            let upper = word.uppercased()
            guard word.count >= 7, word.allSatisfy({ $0.isASCII && $0.isLetter }), !vocabulary.contains(upper) else { return word }
            if let suffix = vocabulary.first(where: { upper.hasSuffix($0) && upper.count - $0.count >= 3 }) {
                return split(String(word.dropLast(suffix.count))) + " " + word.suffix(suffix.count)
            }
            if let prefix = vocabulary.first(where: { $0.count >= 6 && upper.hasPrefix($0) && upper.count - $0.count >= 4 }) {
                return word.prefix(prefix.count) + " " + split(String(word.dropFirst(prefix.count)))
            }
            // A long business word misread by one letter at the end (`SANYUSTATONERY`): set apart as it is (the name's
            // repair puts the letter right), when exactly one way fits.
            let near = (7...10).compactMap { length -> Int? in
                guard upper.count - length >= 3 else { return nil }
                let tail = String(upper.suffix(length))
                return vocabulary.contains { $0.count >= 8 && oneEditApart(tail, $0) && tail.first == $0.first && tail.last == $0.last } ? length : nil
            }
            if near.count == 1, let length = near.first {
                return split(String(word.dropLast(length))) + " " + word.suffix(length)
            }
            return word
        }
        return name.split(separator: " ", omittingEmptySubsequences: false).map { split(String($0)) }.joined(separator: " ")
    }

    /// An address with the look-alikes a recogniser prints put right: letters among the digits of a number (`28I1`,
    /// `2B11`) and a postcode's five characters (`411SO`, `5600o`) as digits, a `1` between letters as an `l` (`Ja1an`),
    /// and a street word, place or state one look-alike letter off (`TANAN`, `SELAMGOR`) as the word (only look-alikes:
    /// streets are named after places, `JALAN PINANG` is not `PENANG`).
    /// A run of digits and the letters that look like a 1, standing apart from letters (a house number's one letter may follow).
    private static let onesInNumber = try! NSRegularExpression(pattern: #"(?<![A-Za-z])[Il|i]*[0-9][0-9Il|i]*(?=[A-Za-z]?(?![A-Za-z]))"#)

    static func repairedAddress(_ text: String) -> String {
        let digitFor: [Character: Character] = ["O": "0", "o": "0", "D": "0", "I": "1", "l": "1", "i": "1", "|": "1", "S": "5", "s": "5", "B": "8", "Z": "2"]
        var value = text.split(separator: " ", omittingEmptySubsequences: false).map { token -> String in
            var chars = Array(token)
            // A postcode: five characters standing alone (or before a comma), three of them digits, the rest look-alikes.
            let core = chars.prefix { $0.isNumber || digitFor[$0] != nil }
            if core.count == 5, core.filter(\.isNumber).count >= 3, chars.count == 5 || [",", "."].contains(chars[5]) {
                for index in 0..<5 { chars[index] = chars[index].isNumber ? chars[index] : digitFor[chars[index]]! }
            } else if chars.count > 5, chars[5].isLetter, chars.prefix(3).allSatisfy(\.isNumber),
                      chars[3...4].allSatisfy({ $0.isNumber || $0 == "O" || $0 == "o" }), chars[3...4].contains(where: { !$0.isNumber }) {
                // The same glued to the town (`5510OKUALA`, `4030oShah`): only zeros misread as O, the town's letters untouched.
                for index in 3...4 where !chars[index].isNumber { chars[index] = "0" }
            }
            // One or two look-alike letters with digits on both sides (`28I1`, `1SS8`).
            var index = 1
            while index < chars.count - 1 {
                var end = index
                while end < chars.count, end - index < 3, digitFor[chars[end]] != nil { end += 1 }
                if chars[index - 1].isNumber, end > index, end - index <= 2, end < chars.count, chars[end].isNumber {
                    for letter in index..<end { chars[letter] = digitFor[chars[letter]]! }
                }
                index = max(end, index + 1)
            }
            return String(chars)
        }.joined(separator: " ")
        // `I`, `l`, `i` or `|` in a number, beside its digits (`NO.I5`, `7/ll8B`, `7/i18B`): the digit 1. (Not in a word:
        // `Level1`, `BIk2`.)
        for match in onesInNumber.matches(in: value, range: NSRange(value.startIndex..., in: value)).reversed() {
            guard let range = Range(match.range, in: value), value[range].contains(where: { !$0.isNumber }) else { continue }
            value.replaceSubrange(range, with: String(value[range].map { $0.isNumber ? $0 : "1" }))
        }
        // `&` between two shop lots, each a number and a letter, is read as `8` or `S` (`NO.31G833G`, `31GS33G`); and a
        // house number after `NO` that is one `I`, `l` or `|` is a 1 (`NO.I,`); `10T` before a number is `LOT`.
        value = value.replacingOccurrences(of: #"(?<=\b[0-9]{1,4}[A-Z])[8S](?=[0-9]{1,4}[A-Z]\b)"#, with: "&", options: .regularExpression)
            .replacingOccurrences(of: #"(?i)(?<=\bNO\.? ?)[Il|](?=[,\s]|$)"#, with: "1", options: .regularExpression)
            .replacingOccurrences(of: #"\b[1Il|]0T(?= ?[0-9])"#, with: "LOT", options: .regularExpression)
        // `5`, `8` or `0` inside a word of letters, three of them on one side (`ANG5A`, `JALAN8ESAR`): the letter it looks
        // like. (Not in codes such as `SS5A` or `U13A`, nor `1`: `PJU1A` is a code.)
        value = value.replacingOccurrences(of: #"(?<=[A-Z]{3})5(?=[A-Z])|(?<=[A-Z])5(?=[A-Z]{3})"#, with: "S", options: .regularExpression)
            .replacingOccurrences(of: #"(?<=[A-Z]{3})8(?=[A-Z])|(?<=[A-Z])8(?=[A-Z]{3})"#, with: "B", options: .regularExpression)
            .replacingOccurrences(of: #"(?<=[A-Z]{3})0(?=[A-Z])|(?<=[A-Z])0(?=[A-Z]{3})"#, with: "O", options: .regularExpression)
        value = value.replacingOccurrences(of: #"(?<=[a-z])1(?=[a-z])"#, with: "l", options: .regularExpression)
            .replacingOccurrences(of: #"(?<=[A-Z])1(?=[A-Z]{2})"#, with: "L", options: .regularExpression)
        return repairedName(value, elsewhere: [], vocabulary: Lexicon.addressWords.union(Lexicon.placeWords).union(["SELANGOR", "KUALA", "LUMPUR"]),
                            onlyLookalikes: true, shortWords: Lexicon.shortAddressWords)
    }

    /// An address's words put right by what the receipt's header (the name and address lines) says elsewhere: a word with a
    /// digit for a look-alike letter that is then a word printed elsewhere (`Rawan9` under `BANDAR BARU RAWANG`, `SET1A`
    /// beside `SETIA ALAM`), and a word one look-alike letter from a word printed more often than it (`SHAH ALAN` with
    /// `SETIA ALAM` and `ALAM` in the name). Words of four letters or more that are no street word or place; a word glued
    /// to its neighbours (`ALAMSDNBHD`) counts as said when it starts or ends a longer word.
    static func saidAgainInHeader(_ text: String, header: [String]) -> String {
        let letterFor: [Character: [Character]] = ["0": ["O"], "1": ["I", "L"], "5": ["S"], "6": ["G"], "8": ["B"], "9": ["G"], "2": ["Z"]]
        let pool = header.flatMap { $0.split(whereSeparator: { !$0.isLetter }).map(String.init) }
        var exact: [String: Int] = [:]
        for word in pool { exact[word, default: 0] += 1 }
        func count(_ word: String) -> Int {
            exact[word, default: 0] + pool.filter { $0.count >= word.count + 3 && ($0.hasPrefix(word) || $0.hasSuffix(word)) }.count
        }
        let known = Lexicon.addressWords.union(Lexicon.placeWords)
        func replacement(_ run: String) -> String? {
            let upper = run.uppercased()
            guard upper.count >= 4, !known.contains(upper) else { return nil }
            if upper.contains(where: \.isNumber) {
                guard upper.filter(\.isLetter).count >= 3, upper.allSatisfy({ $0.isLetter || letterFor[$0] != nil }) else { return nil }
                var readings = [""]
                for character in upper { readings = readings.flatMap { r in (letterFor[character] ?? [character]).map { r + String($0) } } }
                let said = readings.filter { exact[$0] != nil }
                return said.count == 1 ? said[0] : nil
            }
            let own = count(upper)
            // (Or a letter printed twice: `PERRMAS`.)
            let once = Set(upper.indices.dropFirst().filter { upper[$0] == upper[upper.index(before: $0)] }.map { index in
                var single = upper
                single.remove(at: index)
                return single
            })
            let others = Set(exact.keys).union(once).filter { other in
                (once.contains(other) || oneLookalikeApart(upper, other)) && count(other) > own
            }
            return others.count == 1 ? others.first : nil
        }
        var result = ""
        var run = ""
        func flush() {
            if let fixed = replacement(run) {
                result += written(fixed, inTheCaseOf: run)
            } else {
                result += run
            }
            run = ""
        }
        for character in text {
            if character.isUppercase, run.last?.isLowercase == true { flush() }
            if character.isASCII && (character.isLetter || character.isNumber) { run.append(character) } else { flush(); result.append(character) }
        }
        flush()
        return result
    }

    /// A zero inside a word of letters is the letter O (`AEON C0.`, `S0ON`, `L0T`); zeros among digits stay.
    static func lettersForZeros(_ text: String) -> String {
        guard text.contains("0") else { return text }
        return text.replacingOccurrences(of: #"(?<=[A-Za-z])0(?![0-9])|(?<![0-9A-Za-z])0(?=[A-Za-z]{2})"#, with: "O", options: .regularExpression)
    }

    /// The lines right above the first address line that belong to it though no street word, postcode or house number was
    /// read in them (`LOTR1,KWSREHAT&RAWAT,`, `LotNO:20,LevelUG1,Publika` / `Dutamas.`): an address is a list of parts
    /// separated by commas, so a line that ends with a comma, or holds two, continues onto the next line. From the
    /// highest such line among the passed-over lines that run, with no blank between, down to the address.
    static func addressLinesAbove(_ first: Line, passed: [Line]) -> [Line] {
        var run: [Line] = []
        var below = first
        for line in passed.reversed() {
            guard line.index == below.index - 1, (below.gapAbove ?? 0) < 1.0 else { break }
            run.insert(line, at: 0)
            below = line
        }
        let trimmed = { (line: Line) in line.text.trimmingCharacters(in: .whitespaces) }
        guard let start = run.firstIndex(where: { trimmed($0).hasSuffix(",") || trimmed($0).filter({ $0 == "," }).count >= 2 }) else { return [] }
        return Array(run[start...])
    }

    /// The address: header lines after the vendor (from the top when no name was read: a logo), up to the first
    /// contact, id, date or amount line.
    static func address(_ lines: [Line], after vendorLine: Int) -> ReadField<String>? {
        var collected: [Line] = []
        var index = vendorLine + 1
        var skipped = 0
        /// The lines passed over before the address, as not address lines.
        var passed: [Line] = []
        while index < lines.count, collected.count < 6 {
            let line = lines[index]
            index += 1
            if isIdentityLine(line) {
                if collected.isEmpty { continue }
                // `TEL: ...` ends the address; an id printed inside it (rare) is skipped.
                break
            }
            // (A house number such as `NO 43-45-47G` may scan as a date.)
            if (!line.dates.isEmpty && !startsWithHouseNumber(line)) || !line.amounts.isEmpty { break }
            // A title (`TAX INVOICE`) ends the address; printed between the name and the address, it is passed over.
            if isHeaderNoise(line) {
                if collected.isEmpty, line.letters.count >= 3, skipped < 3 { skipped += 1; continue }
                break
            }
            // A phone or a long number (`GSTReg.1o.:000155453440`) ends the address, or is passed over before it (as ids are).
            if line.upper.range(of: phonePattern, options: .regularExpression) != nil, !isAddressLine(line) {
                if collected.isEmpty { continue }
                break
            }
            if !collected.isEmpty {
                // The address is one block of print: a blank line below it (a line's height or more) ends it.
                if let gap = line.gapAbove, gap >= 1.0 { break }
                // The country (even with a letter misread or lost: `MALAYSI.`) is an address's last line: what follows
                // (`SUNWAY VELOCITY`, the outlet) is not in it.
                if let last = collected.last?.words.last(where: { $0.contains(where: \.isLetter) }), countries.contains(where: { $0 == last || ($0.count >= 6 && oneEditApart($0, last)) }) { break }
                // A labelled code (`SITE : 2591`, `INV NO # : BWMC0200`) is not part of an address.
                if line.upper.range(of: #"^[A-Z][A-Z .#]{1,15}:\s*[A-Z0-9\-/]*[0-9][A-Z0-9\-/]*$"#, options: .regularExpression) != nil,
                   !startsWithHouseNumber(line) { break }
            }
            // Lines between the name and the address (a branch name, `FORMERLY KNOWN AS …`) are skipped.
            if collected.isEmpty, !isAddressLine(line) {
                // At most three (`formerly known as` / `GOLDEN ARCHES RESTAURANTS SDN BHD` / `Licensee of McDonald's`).
                skipped += 1
                if skipped > 3 { break }
                passed.append(line)
                continue
            }
            if collected.isEmpty { collected = addressLinesAbove(line, passed: passed) }
            collected.append(line)
        }
        guard !collected.isEmpty, collected.contains(where: isAddressLine) else { return nil }
        // The branch's name above its address (`BANDAR BARU RAWANG` / `NO 15 JALAN BANDAR RAWANG 10` / `BANDAR BARU
        // RAWANG`, `SUSHI MENTAI PLAZA DANAU` / `NO.37-1, PLAZA DANAU DESA 2`): a first line without a number, half of
        // whose words (two at least) come again in the lines below it, which start with the house number.
        // (A line with a street word is the address itself: `JALAN LOKE YEW BENTONG` / `90 GROUND FLOOR JALAN BENTONG`.)
        let streetWords: Set<String> = ["JALAN", "JLN", "JL", "LORONG", "LRG", "PERSIARAN", "STREET", "ST", "ROAD", "RD", "AVENUE", "AVE", "LANE", "DRIVE", "WAY"]
        if collected.count >= 2, let first = collected.first, !first.upper.contains(where: \.isNumber), first.words.allSatisfy({ !streetWords.contains($0) }),
           startsWithHouseNumber(collected[1]) || collected[1].upper.first?.isNumber == true {
            let own = Set(first.words.filter { $0.count >= 2 })
            let again = own.intersection(collected.dropFirst().flatMap(\.words))
            if again.count >= 2, again.count * 2 >= own.count { collected.removeFirst() }
        }
        let text = saidAgainInHeader(repairedAddress(lookalikesRead(lettersForZeros(collected.map(\.text).joined(separator: " ")))),
                                     header: lines.prefix(collected[collected.count - 1].index + 1).map(\.upper))
        return ReadField(value: text, confidence: collected.count >= 2 ? 0.7 : 0.5, sourceText: collected.map(\.text).joined(separator: "\n"))
    }
}
