@testable import NestoryDomain
import Testing

/// Cleaning text: the fast path for plain ASCII answers exactly as the scalar-by-scalar rule does.
@Suite struct TextTests {
    @Test func cleanTrimsCollapsesAndDropsControlCharacters() {
        #expect(Text.clean("  Sofa \t  bed\u{0007}\n") == "Sofa bed")
        #expect(Text.clean("Walnut desk") == "Walnut desk")
        #expect(Text.clean(" \u{00A0}Café\u{2003}au lait ") == "Café au lait")
        #expect(Text.clean("\u{0000}\u{001F} ") == nil)
        #expect(Text.clean("") == nil)
    }

    @Test func theFastPathAgreesWithTheFullRuleOnRandomText() {
        // Printable ASCII, spaces, tabs, control characters, DEL, a no-break space and letters beyond ASCII.
        let alphabet: [Unicode.Scalar] = ["a", "Z", "0", " ", " ", "\t", "\n", "\r", "\u{0000}", "\u{0007}", "\u{007F}", "~", "\"",
                                          "\u{00A0}", "é", "ß", "\u{2028}", "🎲"]
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
}
