import Foundation
import GRDB
import NestoryDomain
import Testing

/// `Text.searchTokens` (how PostgreSQL's search cuts text) against SQLite's own `unicode61 remove_diacritics 2`
/// tokenizer over the same folded text (what the SQLite index holds before stemming): the two engines must see the
/// same words, or one finds what the other does not.
@Suite struct SearchTokensTests {
    static let samples = [
        "Émile's lamp", "Straße sign – Søren made it", "SM-G991B", "a+b 5€ x©y", "Ⅻ ½ ²x", "café naïve e\u{301}t",
        "Ａｂｃ ｶﾀ", "中文字 日本語", "x_y a·b 3.5 1,000", "\"quoted\" *star* -minus (NEAR) OR:AND", "tab\tnew\nline",
        "ÆSOP Œuvre Łódź ĦĐÞ", "naïveté 2×4 #hashtag @at", "Ｈａｌｌｏ Wörld", "emoji 😀 here", "İstanbul ıi",
    ]

    @Test func searchTokensCutTextAsSQLitesTokenizerDoes() throws {
        let queue = try DatabaseQueue()
        try queue.inDatabase { db in
            let tokenizer = try db.makeTokenizer(FTS5TokenizerDescriptor(components: ["unicode61", "remove_diacritics", "2"]))
            for sample in Self.samples {
                let sqlite = try tokenizer.tokenize(document: Text.searchFold(sample)).map(\.token)
                #expect(Text.searchTokens(sample) == sqlite, "\(sample.debugDescription)")
            }
        }
    }
}
