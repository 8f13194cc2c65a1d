import Foundation
import NestoryDomain

/// Turns what a person typed into an FTS5 query that means "all these words", never FTS syntax.
///
/// Each word becomes a quoted string (`"` doubled inside), so `"`, `*`, `-`, `NEAR(`, `OR`, `AND`,
/// `NOT` and column filters are just words. The last word also matches as a prefix, so results
/// appear while typing ("sams" finds Samsung).
enum SearchText {
    /// Nil when the text has no searchable word (empty, or only punctuation): no search filter.
    static func ftsQuery(_ text: String) -> String? {
        guard let words = words(text) else { return nil }
        let quoted = words.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        return quoted.dropLast().joined(separator: " ") + (quoted.count > 1 ? " " : "") + quoted.last! + "*"
    }

    /// The words searched for (letters folded as the index folds them), at most 16; nil when there are none.
    static func words(_ text: String) -> [String]? { Text.searchWords(text) }
}
