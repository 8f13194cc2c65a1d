@testable import NestoryDomain
import Testing

/// Cleaning text: the fast path for plain ASCII answers exactly as the scalar-by-scalar rule does.
@Suite struct TextTests {
    @Test func cleanTrimsCollapsesAndDropsControlCharacters() {
        #expect(Text.clean("  Sofa \t  bed\u{0007}\n") == "Sofa bed")
        // A line break or a tab between words (a pasted or imported name) separates them.
        #expect(Text.clean("Sony\nBravia\tTV\r\nstand\u{0085}set\u{000B}x") == "Sony Bravia TV stand set x")
        #expect(Text.clean("Walnut desk") == "Walnut desk")
        #expect(Text.clean(" \u{00A0}Café\u{2003}au lait ") == "Café au lait")
        #expect(Text.clean("\u{0000}\u{001F} ") == nil)
        #expect(Text.clean("") == nil)
    }

    @Test func invisibleFormatCharactersGoButTheJoinersThatSpellTextStay() {
        // Bidi overrides and isolates, a zero-width space, a byte-order mark, a soft hyphen: dropped.
        #expect(Text.clean("\u{202E}stsil\u{202C} Lamp\u{2066}x\u{2069}") == "stsil Lampx")
        #expect(Text.clean("\u{FEFF}Sofa\u{200B}bed\u{00AD}") == "Sofabed")
        // Emoji sequences keep their joiners (a family is one picture, not four), Persian its non-joiner, and
        // Scotland's flag its tag characters.
        let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467} photos"
        #expect(Text.clean(family) == family)
        #expect(Text.clean("\u{1F3F3}\u{FE0F}\u{200D}\u{1F308} flag") == "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308} flag")
        #expect(Text.clean("می\u{200C}خواهم") == "می\u{200C}خواهم")
        let scotland = "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}"
        #expect(Text.clean("Kilt " + scotland) == "Kilt " + scotland)
        #expect(Text.cleanMultiline("Tartan\n" + scotland) == "Tartan\n" + scotland)
        // A joiner joins nothing at either end, and text of only joiners and tags is empty.
        #expect(Text.clean("\u{200D} Lamp \u{200C}") == "Lamp")
        #expect(Text.clean(" \u{200D}\u{200C} \u{E0067}") == nil)
        #expect(Text.cleanMultiline("\u{200D}\n\u{200C}") == nil)
    }

    @Test func everyLineEndingEndsALine() {
        // A note from a CSV written on an old Mac (or by an app that still ends lines with CR alone) keeps its lines,
        // rather than running them together.
        #expect(Text.cleanMultiline("Bought in Leeds\rReceipt in the drawer") == "Bought in Leeds\nReceipt in the drawer")
        #expect(Text.cleanMultiline("one\r\ntwo\nthree\rfour") == "one\ntwo\nthree\nfour")
        #expect(Text.cleanMultiline("  \r\r  ") == nil)
    }

    @Test func theFastPathAgreesWithTheFullRuleOnRandomText() {
        // Printable ASCII, spaces, tabs, control characters, DEL, a no-break space and letters beyond ASCII.
        let alphabet: [Unicode.Scalar] = ["a", "Z", "0", " ", " ", "\t", "\n", "\r", "\u{0000}", "\u{0007}", "\u{007F}", "~", "\"",
                                          "\u{00A0}", "é", "ß", "\u{2028}", "🎲", "\u{200D}", "\u{200B}", "\u{202E}"]
        var generator = SystemRandomNumberGenerator()
        var plain = 0
        for _ in 0..<20_000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...8, using: &generator) { scalars.append(alphabet.randomElement(using: &generator)!) }
            let text = String(scalars)
            if Text.isCleanASCII(text) { plain += 1 }
            #expect(Text.clean(text) == Text.cleanScalars(text), "\(text.unicodeScalars.map { $0.value })")
        }
        // The random texts did take the fast path often enough to mean something.
        #expect(plain > 500)
    }

    @Test func closestNamesTheCandidateAWordMostLikelyMisspells() {
        #expect(Text.editDistance("", "abc") == 3 && Text.editDistance("kitten", "sitting") == 3)
        let fields = ["name", "price", "purchaseDate", "warrantyExpiry", "serialNumber"]
        #expect(Text.closest(to: "purchasePrice", among: fields) == nil, "five letters from purchaseDate: too far to guess")
        #expect(Text.closest(to: "Price", among: fields) == "price")
        #expect(Text.closest(to: "warrantyExpires", among: fields) == "warrantyExpiry")
        #expect(Text.closest(to: "serial_number", among: fields) == "serialNumber")
        #expect(Text.closest(to: "colour", among: fields) == nil)
    }
}
