import Foundation

/// Reads chosen lines of an image again, with a second engine (the live one is tesseract, in NestoryOCR).
public protocol LineRereader: Sendable {
    /// One reading per box, in the boxes' order (an empty line where nothing was read).
    func reread(imageData: Data, boxes: [TextBox]) async throws(RecognitionError) -> [RecognizedLine]
}

/// Reads with `primary`, then reads again with `rereader` the lines at the top of the receipt (the store's name
/// and address) that hold a doubtful word, and keeps per word the reading that the evidence favours
/// (`SecondReading`). When the second reading fails, the first is the answer.
public struct RereadingRecognizer: TextRecognizer {
    public let primary: any TextRecognizer
    public let rereader: any LineRereader

    public init(primary: any TextRecognizer, rereader: any LineRereader) {
        self.primary = primary
        self.rereader = rereader
    }

    public func recognize(imageData: Data) async throws(RecognitionError) -> RecognizedText {
        let text = try await primary.recognize(imageData: imageData)
        let doubtful = SecondReading.doubtfulLines(text)
        guard !doubtful.isEmpty else { return text }
        let boxes = doubtful.compactMap { text.lines[$0].box }
        guard let readings = try? await rereader.reread(imageData: imageData, boxes: boxes), readings.count == boxes.count else {
            return text
        }
        return SecondReading.merged(text, readings: Dictionary(zip(doubtful, readings), uniquingKeysWith: { a, _ in a }))
    }
}

/// Where a second reading of a line is asked for, and which of two readings of a word is kept.
public enum SecondReading {
    /// The store's name and address are printed within the receipt's first lines.
    public static let headerLines = 8

    /// The indices of the header lines (with a box) that hold a doubtful word: one with a digit inside its letters
    /// (`SUBAN6`, `SE7IA`), or a word of three letters or more that is no known word and is not said elsewhere on
    /// the receipt.
    public static func doubtfulLines(_ text: RecognizedText) -> [Int] {
        return text.lines.indices.prefix(headerLines).filter { index in
            guard text.lines[index].box != nil else { return false }
            let elsewhere = saidWords(text.lines.indices.filter { $0 != index }.map { text.lines[$0] })
            return tokens(text.lines[index].text).contains { token in
                digitInLetters(token) || (token.filter(\.isLetter).count >= 3 && token.allSatisfy(\.isLetter)
                    && !known(token, elsewhere: elsewhere))
            }
        }
    }

    /// The text with each reread line's words chosen between its two readings (`chosen`).
    public static func merged(_ text: RecognizedText, readings: [Int: RecognizedLine]) -> RecognizedText {
        var result = text
        for (index, second) in readings where text.lines.indices.contains(index) {
            let others = text.lines.indices.filter { $0 != index }.map { text.lines[$0] }
            let line = chosen(text.lines[index].text, second.text, elsewhere: saidWords(others))
            guard line != text.lines[index].text else { continue }
            result.lines[index].text = line
            result.lines[index].words = []
        }
        return result
    }

    /// The first reading of a line, with each of its words replaced by the second reading's words printed at the same
    /// place where the evidence favours them: letters where the first read digits inside a word (`Rawan9` → `Rawang`),
    /// or known words (a street or place word, or a word said elsewhere on the receipt) where the first read none
    /// (`TAMAN` for `TANON`). A word both readings agree on, or with no evidence either way, stays as first read.
    public static func chosen(_ first: String, _ second: String, elsewhere: Set<String>) -> String {
        let a = Array(first), b = Array(second)
        let aKeep = a.indices.filter { isAlnum(a[$0]) }, bKeep = b.indices.filter { isAlnum(b[$0]) }
        let x = aKeep.map { Character(a[$0].uppercased()) }, y = bKeep.map { Character(b[$0].uppercased()) }
        guard !x.isEmpty, !y.isEmpty else { return first }
        let match = alignment(x, y)
        var result = ""
        var position = 0
        var cursor = 0 // index into aKeep
        while position < a.count {
            guard isAlnum(a[position]) else { result.append(a[position]); position += 1; continue }
            var end = position + 1
            while end < a.count, isAlnum(a[end]), !numberMeetsWord(a, at: end) { end += 1 }
            let token = String(a[position..<end])
            let span = cursor..<(cursor + token.count)
            cursor += token.count
            if let replacement = replacement(token, span: span, match: match, second: b, secondKept: bKeep, elsewhere: elsewhere) {
                result += replacement
            } else {
                result += token
            }
            position = end
        }
        return result
    }

    /// The second reading's text printed where `token` (the letters and digits `span` of the first reading) is,
    /// when the evidence favours it.
    static func replacement(_ token: String, span: Range<Int>, match: [Int?], second: [Character], secondKept: [Int],
                            elsewhere: Set<String>) -> String? {
        // Both ends of the word are read by the second engine too: a letter it read as a sign (`S/B` as `$/B`) is not
        // dropped from the word.
        let matched = span.compactMap { match[$0] }
        guard let first = span.first, let last = span.last, match[first] != nil, match[last] != nil,
              let low = matched.min(), let high = matched.max(), matched.count * 2 >= span.count else { return nil }
        // The second reading's letters at that place, with its spaces (it may split a glued word).
        let text = String(second[secondKept[low]...secondKept[high]])
        let candidate = String(text.filter(isAlnum)).uppercased()
        let upper = token.uppercased()
        guard candidate != upper, distance(Array(upper), Array(candidate)) <= max(1, upper.count / 4) else { return nil }
        if digitInLetters(token), candidate.count == upper.count, candidate.allSatisfy(\.isLetter) {
            return text
        }
        // The second engine's own confidence is no evidence: taking its confident words where neither reading is
        // a known word lost more than it gained (BENCHMARKS.md, Receipts, 2026-11-27).
        // A word with digits is changed only by the rule above (`N0` stays: `NO` would make an id line an address).
        guard upper.allSatisfy(\.isLetter), !known(upper, elsewhere: elsewhere) else { return nil }
        // Each word of the second reading against the first reading's letters at its place: a word it changes is taken
        // when it is a known word made of letters, else the first reading's letters stay there; the words it only sets
        // apart (`AIKHUATHARDHARE` → `AIK HUAT HARDWARE`) need no evidence.
        let words = secondWords(first: Array(token), span: span, match: match, kept: low...high, second: second, secondKept: secondKept)
        let taken = words.indices.map { index in
            let word = words[index]
            guard word.first.uppercased() != word.second else { return true }
            if smallLForCapitalI(word.first, String(second[word.range])) { return true }
            guard word.second.allSatisfy(\.isLetter), known(word.second, elsewhere: elsewhere) else { return false }
            // A letter of the first reading that the second read as a sign between two words is dropped only when
            // the word before is a known word too (`ENTERPRISETSETIA` → `ENTERPRISE (SETIA`); else it may be that
            // word's last letter (`BHPetrolPalekbang` is not `BHPetro] Palekbang`).
            return !word.leadingDropped || (index > 0 && known(words[index - 1].second, elsewhere: elsewhere))
        }
        guard zip(words, taken).contains(where: { $0.first.uppercased() != $0.second && $1 }) else { return nil }
        var result = ""
        var position = secondKept[low]
        for (word, take) in zip(words, taken) {
            result += String(second[position..<word.range.lowerBound])
            result += take ? String(second[word.range]) : word.first
            position = word.range.upperBound + 1
        }
        return result
    }

    /// The second reading differs from the first only where the first read a capital `I` after a small letter and the
    /// second a small `l` (`WorId`, `World`): the two are one shape in many typefaces, and a capital inside a word of
    /// small letters is rarely printed, so the second engine's reading is the likelier one with no other evidence.
    /// (A glued word's capital `I` starts a word, after which the second engine reads a space or a capital: `TheIsland`.)
    static func smallLForCapitalI(_ first: String, _ second: String) -> Bool {
        let a = Array(first), b = Array(second)
        guard a.count == b.count, a != b else { return false }
        return a.indices.allSatisfy { index in
            a[index] == b[index] || (a[index] == "I" && b[index] == "l" && index > 0 && a[index - 1].isLowercase && b[index - 1].isLowercase)
        }
    }

    /// The words of the second reading over `kept` (upper case, with their places in `second`), each with the first
    /// reading's characters printed at its place (a letter the second did not read goes with the word after it, which is
    /// then `leadingDropped` when that letter comes first).
    static func secondWords(first: [Character], span: Range<Int>, match: [Int?], kept: ClosedRange<Int>, second: [Character],
                            secondKept: [Int]) -> [(first: String, second: String, range: ClosedRange<Int>, leadingDropped: Bool)] {
        // The second reading's words: runs of letters and digits with nothing between them in its text.
        var wordOf: [Int: Int] = [:]
        var words: [(text: String, range: ClosedRange<Int>)] = []
        for k in kept {
            if k == kept.lowerBound || secondKept[k] != secondKept[k - 1] + 1 {
                words.append(("", secondKept[k]...secondKept[k]))
            }
            words[words.count - 1].text.append(Character(second[secondKept[k]].uppercased()))
            words[words.count - 1].range = words[words.count - 1].range.lowerBound...secondKept[k]
            wordOf[k] = words.count - 1
        }
        var firsts = [String](repeating: "", count: words.count)
        var leadingDropped = [Bool](repeating: false, count: words.count)
        var pending = ""
        for index in span {
            // `match` holds the index into the second's letters each of the first's is aligned with.
            pending.append(first[index - span.lowerBound])
            if let k = match[index], let word = wordOf[k] {
                if firsts[word].isEmpty, pending.count > 1 { leadingDropped[word] = true }
                firsts[word] += pending
                pending = ""
            }
        }
        if !pending.isEmpty, !firsts.isEmpty { firsts[firsts.count - 1] += pending }
        return words.indices.map { (firsts[$0], words[$0].text, words[$0].range, leadingDropped[$0]) }
    }

    /// A word of the lexicon (street, place, business, legal-form, contact or title word), or a word of four letters
    /// or more said on another line.
    static func known(_ word: String, elsewhere: Set<String>) -> Bool {
        let upper = word.uppercased()
        return Lexicon.lookalikeVocabulary.contains(upper) || (upper.count >= 4 && elsewhere.contains(upper))
    }

    /// The words of four letters or more on these lines (upper case), split at anything not a letter.
    static func saidWords(_ lines: [RecognizedLine]) -> Set<String> {
        Set(lines.flatMap { $0.text.uppercased().split(whereSeparator: { !$0.isLetter }).map(String.init) }.filter { $0.count >= 4 })
    }

    /// Runs of letters and digits, a number glued to a word set apart from it (`40300ShahAlam`: `40300`, `ShahAlam`).
    static func tokens(_ text: String) -> [String] {
        let characters = Array(text)
        var result: [String] = [], current = ""
        for index in characters.indices {
            if !isAlnum(characters[index]) || numberMeetsWord(characters, at: index) {
                if !current.isEmpty { result.append(current) }
                current = ""
            }
            if isAlnum(characters[index]) { current.append(characters[index]) }
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    /// A digit inside a word's letters, or ending a word of three letters or more (`SE7IA`, `Rawan9`).
    static func digitInLetters(_ token: String) -> Bool {
        let characters = Array(token)
        guard characters.filter(\.isLetter).count >= 3 else { return false }
        for (index, character) in characters.enumerated() where character.isNumber {
            let before = index > 0 && characters[index - 1].isLetter
            let after = index + 1 < characters.count && characters[index + 1].isLetter
            if (before && after) || (before && index + 1 == characters.count && index >= 3 && characters[..<index].allSatisfy(\.isLetter)) {
                return true
            }
        }
        return false
    }

    /// A number of two digits or more glued to a word of two letters or more meets it at `index` (`40300ShahAlam`).
    static func numberMeetsWord(_ characters: [Character], at index: Int) -> Bool {
        guard index >= 2, index + 1 < characters.count else { return false }
        let before = characters[(index - 2)..<index], after = characters[index...(index + 1)]
        return (before.allSatisfy(\.isNumber) && after.allSatisfy(\.isLetter)) || (before.allSatisfy(\.isLetter) && after.allSatisfy(\.isNumber))
    }

    static func isAlnum(_ character: Character) -> Bool { (character.isLetter || character.isNumber) && character.isASCII }

    /// For each character of `x`, the character of `y` it is aligned with (same or substituted), or nil (dropped),
    /// by least edits.
    static func alignment(_ x: [Character], _ y: [Character]) -> [Int?] {
        let n = x.count, m = y.count
        var cost = Array(repeating: Array(repeating: 0, count: m + 1), count: n + 1)
        for i in 0...n { cost[i][0] = i }
        for j in 0...m { cost[0][j] = j }
        for i in stride(from: 1, through: n, by: 1) {
            for j in stride(from: 1, through: m, by: 1) {
                cost[i][j] = min(cost[i - 1][j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1), cost[i - 1][j] + 1, cost[i][j - 1] + 1)
            }
        }
        var match = [Int?](repeating: nil, count: n)
        var i = n, j = m
        while i > 0, j > 0 {
            if cost[i][j] == cost[i - 1][j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1) {
                match[i - 1] = j - 1
                i -= 1; j -= 1
            } else if cost[i][j] == cost[i - 1][j] + 1 {
                i -= 1
            } else {
                j -= 1
            }
        }
        return match
    }

    /// The least number of letters changed, dropped or added to make `x` into `y`.
    static func distance(_ x: [Character], _ y: [Character]) -> Int {
        var previous = Array(0...y.count)
        for i in stride(from: 1, through: x.count, by: 1) {
            var current = [i] + Array(repeating: 0, count: y.count)
            for j in stride(from: 1, through: y.count, by: 1) {
                current[j] = min(previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1), previous[j] + 1, current[j - 1] + 1)
            }
            previous = current
        }
        return previous[y.count]
    }
}
