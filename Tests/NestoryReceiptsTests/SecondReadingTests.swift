import Foundation
import NestoryReceipts
import Synchronization
import Testing

/// A second engine's reading of the doubtful header lines, and which of the two readings of a word is kept.
@Suite struct SecondReadingTests {
    @Test func lettersWhereTheFirstReadDigitsInsideAWord() {
        // The number stays as first read (the second engine misread it); the word takes the second's letter.
        #expect(SecondReading.chosen("1313-SUBAN6 BESTARI", "4313-SUBANG BESTART", elsewhere: []) == "1313-SUBANG BESTARI")
        #expect(SecondReading.chosen("Bandar Baru Rawan9", "bandar Baru Rawang", elsewhere: []) == "Bandar Baru Rawang")
    }

    @Test func aKnownWordWhereTheFirstReadNone() {
        // TAMAN is a street word; SERKELEY is no known word, so BERKELEY stays as first read.
        #expect(SecondReading.chosen("TANAN BERKELEY", "TAMAN SERKELEY", elsewhere: []) == "TAMAN BERKELEY")
        // A word the first reading glued to a number is compared on its own.
        #expect(SecondReading.chosen("40300SELANGCR", "40300 SELANGOR", elsewhere: []) == "40300SELANGOR")
    }

    @Test func aWordSaidElsewhereOnTheReceipt() {
        let line = "SEKSYEN U13, 40170 SHAH ALAN,", second = "SEKSYEN U13, 40170 SHAH ALAM,"
        #expect(SecondReading.chosen(line, second, elsewhere: ["SETIA", "ALAM"]) == "SEKSYEN U13, 40170 SHAH ALAM,")
        // With no evidence either way, the first reading stays.
        #expect(SecondReading.chosen(line, second, elsewhere: ["SETIA"]) == line)
    }

    @Test func wordsTheSecondOnlySetsApartNeedNoEvidence() {
        // AIK and HUAT are read alike (only set apart); HARDWARE, the one changed, is a business word.
        #expect(SecondReading.chosen("AIKHUATHARDHARE", "AIK HUAT HARDWARE", elsewhere: []) == "AIK HUAT HARDWARE")
        #expect(SecondReading.chosen("ALAHSDNHHD", "ALAM) SDN BHD", elsewhere: ["SETIA", "ALAM"]) == "ALAM) SDN BHD")
        // Word by word: the known word is taken, the unknown one keeps the first reading's letters.
        #expect(SecondReading.chosen("TANANBERKELEY", "TAMAN SERKELEY", elsewhere: []) == "TAMAN BERKELEY")
        // A letter the second read as a sign between two words is dropped only when both words are known: the
        // letter may end the word before (BHPetrol).
        #expect(SecondReading.chosen("ENTERPRISETSETIA", "ENTERPRISE (SETIA", elsewhere: ["SETIA"]) == "ENTERPRISE (SETIA")
        #expect(SecondReading.chosen("BHPetrolPalekbang", "BHPetro] Palekbang", elsewhere: ["PALEKBANG"]) == "BHPetrolPalekbang")
        // The changed word is no known word: the first reading stays.
        #expect(SecondReading.chosen("TAMANSEJATI", "TAMAN SBYJATI", elsewhere: []) == "TAMANSEJATI")
    }

    @Test func aKnownWordIsNotReplacedNorIsAFarReading() {
        // The first reading is a known word (here said on another line): kept even where the second reads another.
        #expect(SecondReading.chosen("JALAN BESAR", "JALAN BESAT", elsewhere: ["BESAR", "BESAT"]) == "JALAN BESAR")
        // Two letters changed in a five-letter word is another word, not a misread one.
        #expect(SecondReading.chosen("TOMON BERKELEY", "TAMAN BERKELEY", elsewhere: []) == "TOMON BERKELEY")
        // A letter at a word's end that the second engine read as a sign stays (`BAKERYS/B`, not `BAKERY/B`).
        #expect(SecondReading.chosen("CONFECTIONERY&BAKERYS/B", "CONFECTIONERY & BAKERY $/B", elsewhere: []) == "CONFECTIONERY&BAKERYS/B")
    }

    @Test func aSmallLWhereTheFirstReadACapitalIAfterASmallLetter() {
        // Only the case rule changes WorId (World is no known word); the words the second misread stay as first read.
        #expect(SecondReading.chosen("TasteOfTheWorIdSdnBhd", "laste Ot The World Sdn Bhd", elsewhere: []) == "Taste Of The World Sdn Bhd")
        #expect(SecondReading.chosen("Kopitiam MalI", "Kopitiam Mall", elsewhere: []) == "Kopitiam Mall")
        // A capital I that starts a glued word stays: the second reads it as a capital, or after a space.
        #expect(SecondReading.chosen("TheIsland Cafe", "The Island Cafe", elsewhere: []) == "TheIsland Cafe")
        #expect(SecondReading.chosen("TheIsland", "ThelsIand", elsewhere: []) == "TheIsland")
        // Other letters changed besides: no evidence for those, so the first reading stays.
        #expect(SecondReading.chosen("WorIdz", "Worlds", elsewhere: []) == "WorIdz")
    }

    static func line(_ text: String, _ y: Int) -> RecognizedLine {
        RecognizedLine(text: text, box: TextBox(x: 10, y: y, width: 300, height: 20), confidence: 0.95)
    }

    @Test func onlyTheHeaderLinesWithADoubtfulWordAreReadAgain() {
        var lines = [Self.line("JALAN TAMAN", 0), Self.line("Bandar Baru Rawan9", 30), Self.line("TEL 03-1234567", 60),
                     Self.line("Taman Bukit Kuching", 90), Self.line("Kuching", 120)]
        // Words said nowhere else (each line its own).
        lines += (0..<SecondReading.headerLines).map { Self.line("Lorem" + String(UnicodeScalar(UInt8(65 + $0))), 150 + 30 * $0) }
        let doubtful = SecondReading.doubtfulLines(RecognizedText(lines: lines))
        // Known words only, a phone line, and a place said again on the next line are not doubtful; lines past the
        // header are not read again.
        #expect(doubtful.prefix(3) == [1, 3, 5])
        #expect(doubtful.allSatisfy { $0 < SecondReading.headerLines })
    }

    /// A first engine with one answer, and a second that reads every box as the same line (or fails).
    struct First: TextRecognizer {
        let text: RecognizedText
        func recognize(imageData: Data) async throws(RecognitionError) -> RecognizedText { text }
    }
    final class Second: LineRereader, Sendable {
        let answer: String?
        let asked = Mutex<[TextBox]>([])
        init(_ answer: String?) { self.answer = answer }
        func reread(imageData: Data, boxes: [TextBox]) async throws(RecognitionError) -> [RecognizedLine] {
            asked.withLock { $0 += boxes }
            guard let answer else { throw .recognitionFailed("no") }
            return boxes.map { RecognizedLine(text: answer, box: $0) }
        }
    }

    @Test func theRecogniserMergesTheSecondReadingAndKeepsTheFirstWhenItFails() async throws {
        let text = RecognizedText(lines: [Self.line("MINI MARKET", 0), Self.line("1313-SUBAN6 BESTARI", 30)])
        let second = Second("1313-SUBANG BESTARI")
        let read = try await RereadingRecognizer(primary: First(text: text), rereader: second).recognize(imageData: Data([1]))
        #expect(read.lines.map(\.text) == ["MINI MARKET", "1313-SUBANG BESTARI"])
        #expect(second.asked.withLock { $0 } == [text.lines[1].box!], "only the doubtful line is read again")
        let failed = try await RereadingRecognizer(primary: First(text: text), rereader: Second(nil)).recognize(imageData: Data([1]))
        #expect(failed == text)
    }
}
