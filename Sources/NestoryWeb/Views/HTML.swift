import Foundation

/// A piece of HTML. Building one by interpolation escapes every interpolated `String` (and number,
/// date, anything `CustomStringConvertible`); only other `HTML` values go in as markup. So user text
/// can never become markup by accident.
public struct HTML: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    public let rendered: String

    public init(raw: String) { rendered = raw }
    public init(stringLiteral value: String) { rendered = value }
    public init(stringInterpolation: Interpolation) { rendered = stringInterpolation.output }

    public var description: String { rendered }

    public static let empty = HTML(raw: "")

    public struct Interpolation: StringInterpolationProtocol {
        var output = ""
        public init(literalCapacity: Int, interpolationCount: Int) { output.reserveCapacity(literalCapacity * 2) }
        public mutating func appendLiteral(_ literal: String) { output += literal }
        public mutating func appendInterpolation(_ html: HTML) { output += html.rendered }
        public mutating func appendInterpolation(_ html: HTML?) { output += html?.rendered ?? "" }
        public mutating func appendInterpolation(_ list: [HTML]) { for html in list { output += html.rendered } }
        public mutating func appendInterpolation(_ text: String) { output += HTML.escape(text) }
        public mutating func appendInterpolation(_ text: String?) { output += HTML.escape(text ?? "") }
        public mutating func appendInterpolation<T: CustomStringConvertible>(_ value: T) { output += HTML.escape(value.description) }
    }

    /// Escapes the five characters that matter in text and attribute values.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension Array where Element == HTML {
    func joined() -> HTML { HTML(raw: map(\.rendered).joined()) }
}

/// Builds query strings for links that keep the list's state.
func queryString(_ pairs: [(String, String?)]) -> String {
    var allowed = CharacterSet.urlQueryAllowed
    allowed.remove(charactersIn: "&=+?#")
    let parts = pairs.compactMap { key, value -> String? in
        guard let value, !value.isEmpty else { return nil }
        return key + "=" + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
    }
    return parts.isEmpty ? "" : "?" + parts.joined(separator: "&")
}
