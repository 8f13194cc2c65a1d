import Foundation

/// A field of a CSV row: text written as given (protected against formula injection), or a number
/// or date we produced ourselves (never protected, so `-12.50` stays a number).
public enum CSVField: Hashable, Sendable {
    case text(String?)
    case number(String?)
}

/// Writes RFC 4180 CSV: UTF-8 with a byte-order mark (so spreadsheets detect the encoding), CRLF line
/// ends, fields quoted when they hold a comma, quote or line break.
///
/// Formula injection: a text cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return is run
/// as a formula by Excel, LibreOffice and Google Sheets. Such text gets a leading `'`, which the
/// spreadsheets show as text. Text that is a plain number (`-12.50`, `+44`) cannot be a formula and
/// is left alone, and number fields are never touched.
public struct CSVWriter {
    public private(set) var output = Data()
    private let flush: (Data) throws -> Void
    private let bufferLimit: Int

    /// `flush` receives the bytes in chunks (a file, a response body); nothing is kept after a flush.
    public init(bufferLimit: Int = 64 * 1024, flush: @escaping (Data) throws -> Void) {
        self.flush = flush
        self.bufferLimit = bufferLimit
        output.append(contentsOf: [0xEF, 0xBB, 0xBF])
    }

    public mutating func write(_ fields: [CSVField]) throws {
        var line = ""
        for (index, field) in fields.enumerated() {
            if index > 0 { line += "," }
            switch field {
            case .text(let text): line += Self.quoted(Self.protected(text ?? ""))
            case .number(let text): line += Self.quoted(text ?? "")
            }
        }
        line += "\r\n"
        output.append(contentsOf: line.utf8)
        if output.count >= bufferLimit { try finish() }
    }

    /// Hands over what is buffered.
    public mutating func finish() throws {
        guard !output.isEmpty else { return }
        try flush(output)
        output.removeAll(keepingCapacity: true)
    }

    /// Prefixes `'` where a spreadsheet would start a formula.
    public static func protected(_ text: String) -> String {
        guard let first = text.unicodeScalars.first else { return text }
        guard ["=", "+", "-", "@", "\t", "\r", "\n"].contains(first) else { return text }
        if isPlainNumber(text) { return text }
        return "'" + text
    }

    /// `-12.50`, `+3`, `1234`: digits with an optional sign and one decimal point.
    static func isPlainNumber(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars[...]
        if let first = scalars.first, first == "-" || first == "+" { scalars = scalars.dropFirst() }
        let parts = String(scalars).split(separator: ".", omittingEmptySubsequences: false)
        guard !scalars.isEmpty, parts.count <= 2, !parts[0].isEmpty else { return false }
        return parts.allSatisfy { part in !part.isEmpty && part.unicodeScalars.allSatisfy { $0.value >= 48 && $0.value <= 57 } }
    }

    static func quoted(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
