import Foundation
internal import GRDB

/// Whether one item's indexed text matches a search, decided the way the full-text index decides it, for a
/// plan that walks the inventory in the asked order and keeps the items that match.
///
/// Asking the index about one row at a time costs about 26 µs a row at a million items (it parses the query and
/// opens its iterators again each time). Here the item's own indexed text (the search index keeps a copy of it)
/// is cut into tokens by the same tokenizer the index uses (SQLite's porter over unicode61, through its FTS5
/// API), and each word of the search must occur as the index would find it: its tokens one after the other in
/// one column, the last word's last token as a prefix. Tokens are compared as they come, with no copies, and
/// reading stops once every word was found. The test `bothSearchPlansGiveTheSamePages` holds the plans to the
/// same answers.
final class SearchMatcher: @unchecked Sendable {
    // One per connection, and a connection is used by one thread at a time (GRDB serializes each): the
    // tokenizer and the state of the search being tested are never touched by two threads at once.
    private let tokenizer: any FTS5Tokenizer
    private var lastSearch: String?
    private var state: MatchState?

    /// The tokenizer the index was created with (Migrations: `porter unicode61 remove_diacritics 2`).
    static let descriptor = FTS5TokenizerDescriptor(components: ["porter", "unicode61", "remove_diacritics", "2"])

    init(_ db: Database) throws {
        tokenizer = try db.makeTokenizer(Self.descriptor)
    }

    /// `nestory_matches(search, name, brand, model, serial, notes, tags, receipts)`: 1 when every word of
    /// `search` is found as the index would find it, else 0; NULL for a search this cannot decide the same way
    /// (no word, or a word the tokenizer makes nothing of), for which the plan asks the index instead.
    func function() -> DatabaseFunction {
        DatabaseFunction("nestory_matches", argumentCount: 8, pure: true) { [self] values in
            guard let search = String.fromDatabaseValue(values[0]), let state = try state(for: search) else { return nil }
            return try matches(state, Array(values.dropFirst()))
        }
    }

    private func state(for search: String) throws -> MatchState? {
        if search == lastSearch { return state }
        lastSearch = search
        state = nil
        guard let words = SearchText.words(search) else { return nil }
        var phrases: [MatchState.Phrase] = []
        for (index, word) in words.enumerated() {
            let tokens = try tokenizer.tokenize(query: word).map { Array($0.token.utf8) }
            if tokens.isEmpty { return nil }
            phrases.append(MatchState.Phrase(tokens: tokens, prefix: index == words.count - 1))
        }
        state = MatchState(phrases)
        return state
    }

    private func matches(_ state: MatchState, _ columns: [DatabaseValue]) throws -> Bool {
        state.reset()
        let context = Unmanaged.passUnretained(state).toOpaque()
        for column in columns {
            guard var text = String.fromDatabaseValue(column), !text.isEmpty else { continue }
            state.startColumn()
            let code = text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    tokenizer.tokenize(context: context, tokenization: .document, pText: chars.baseAddress, nText: CInt(chars.count),
                                       tokenCallback: { context, _, token, length, _, _ in
                                           let state = Unmanaged<MatchState>.fromOpaque(context!).takeUnretainedValue()
                                           return state.take(UnsafeRawBufferPointer(start: token, count: Int(length))) ? MatchState.stop : 0
                                       })
                }
            }
            if state.remaining == 0 { return true }
            guard code == 0 else { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "tokenizing an item's text failed") }
        }
        return false
    }
}

/// The words of one search and how far each has been found in the column being read.
final class MatchState {
    struct Phrase {
        var tokens: [[UInt8]]
        var prefix: Bool
    }

    /// What the token callback returns to end tokenizing early (any code but SQLITE_OK stops it).
    static let stop: CInt = 101  // SQLITE_DONE

    let phrases: [Phrase]
    private var found: [Bool]
    /// For each phrase of several tokens, how many of its tokens the last tokens read matched (each a start).
    private var progress: [[Int]]
    private(set) var remaining: Int

    init(_ phrases: [Phrase]) {
        self.phrases = phrases
        found = Array(repeating: false, count: phrases.count)
        progress = Array(repeating: [], count: phrases.count)
        remaining = phrases.count
    }

    func reset() {
        for index in found.indices { found[index] = false }
        remaining = phrases.count
        startColumn()
    }

    /// A phrase's tokens must be consecutive within one column.
    func startColumn() {
        for index in progress.indices where !progress[index].isEmpty { progress[index].removeAll(keepingCapacity: true) }
    }

    /// Reads one token; true once every phrase has been found.
    func take(_ token: UnsafeRawBufferPointer) -> Bool {
        for index in phrases.indices where !found[index] {
            let phrase = phrases[index]
            let last = phrase.tokens.count - 1
            if last == 0 {
                if Self.equal(token, phrase.tokens[0], prefix: phrase.prefix) { markFound(index) }
                continue
            }
            var next: [Int] = []
            for matched in progress[index] where Self.equal(token, phrase.tokens[matched], prefix: phrase.prefix && matched == last) {
                next.append(matched + 1)
            }
            if Self.equal(token, phrase.tokens[0], prefix: false) { next.append(1) }
            if next.contains(last + 1) { markFound(index) } else { progress[index] = next }
        }
        return remaining == 0
    }

    private func markFound(_ index: Int) {
        found[index] = true
        remaining -= 1
    }

    /// Bytes compared, as the index compares terms; a prefix matches any token that starts with it.
    static func equal(_ token: UnsafeRawBufferPointer, _ wanted: [UInt8], prefix: Bool) -> Bool {
        if prefix ? token.count < wanted.count : token.count != wanted.count { return false }
        if wanted.isEmpty { return true }
        return wanted.withUnsafeBytes { memcmp($0.baseAddress!, token.baseAddress!, wanted.count) == 0 }
    }
}
