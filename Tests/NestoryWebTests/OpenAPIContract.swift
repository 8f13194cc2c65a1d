import Foundation
import Testing
@testable import NestoryWeb

/// The served OpenAPI document as the tests read it: its operations, and a checker for answers.
///
/// The checker is a small subset of JSON Schema (2020-12, as OpenAPI 3.1 uses it), enough for this document and
/// honest about the rest: it follows `$ref` (within the document), and checks `type` (one or a list, with "null"),
/// `enum`, `required`, `properties`, `additionalProperties: false`, `items`, `oneOf`/`anyOf`/`allOf`, `minimum`,
/// and the formats `uuid`, `date` and `date-time`. Anything else in a schema (patterns, lengths, `not`, …) is not
/// checked. An answer whose status the operation does not list is checked against `default` (the Error shape).
struct OpenAPIContract: @unchecked Sendable {
    let root: [String: Any]
    /// "METHOD /path/{}" for every documented operation (parameter names dropped).
    let operations: Set<String>
    private let templates: [(regex: NSRegularExpression, path: String, literals: Int)]

    static let shared = OpenAPIContract()

    init() {
        root = (try? JSONSerialization.jsonObject(with: Data(OpenAPI.document.utf8))) as? [String: Any] ?? [:]
        let paths = root["paths"] as? [String: [String: Any]] ?? [:]
        var operations = Set<String>()
        var templates: [(NSRegularExpression, String, Int)] = []
        for (path, item) in paths {
            for method in item.keys where method != "parameters" { operations.insert("\(method.uppercased()) \(Self.normalized(path))") }
            let pattern = "^" + path.split(separator: "/", omittingEmptySubsequences: false).map { part in
                part.hasPrefix("{") ? "[^/]+" : NSRegularExpression.escapedPattern(for: String(part))
            }.joined(separator: "/") + "$"
            templates.append((try! NSRegularExpression(pattern: pattern), path, path.split(separator: "/").filter { !$0.hasPrefix("{") }.count))
        }
        self.operations = operations
        // Literal segments first: /items/{id}/photos/order before /items/{id}/photos/{photoID}.
        self.templates = templates.sorted { $0.2 > $1.2 }.map { (regex: $0.0, path: $0.1, literals: $0.2) }
    }

    static func normalized(_ path: String) -> String {
        path.replacingOccurrences(of: #"\{[^}]*\}"#, with: "{}", options: .regularExpression)
    }

    /// The problems of one answer (empty when it fits): `path` is below /api/v1, without the query.
    func problems(method: String, path: String, status: Int, contentType: String?, body: Data) -> [String] {
        guard let paths = root["paths"] as? [String: [String: Any]] else { return ["the document has no paths"] }
        let range = NSRange(path.startIndex..., in: path)
        guard let template = templates.first(where: { $0.regex.firstMatch(in: path, range: range) != nil
                                                      && (paths[$0.path]?[method.lowercased()] != nil) })?.path,
              let operation = paths[template]?[method.lowercased()] as? [String: Any] else {
            // An address that is not the API's: a 404 (or 405) in the Error shape, like every error.
            guard status == 404 || status == 405, let error = resolve("#/components/schemas/Error") else {
                return ["\(method) \(path) is not in the document"]
            }
            guard let value = try? JSONSerialization.jsonObject(with: body) else { return ["\(method) \(path) \(status): the body is not JSON"] }
            var found: [String] = []
            check(value, against: error, at: "$", into: &found)
            return found.map { "\(method) \(path) \(status): \($0)" }
        }
        let responses = operation["responses"] as? [String: Any] ?? [:]
        guard var response = (responses[String(status)] ?? responses["\(status / 100)XX"] ?? responses["default"]) as? [String: Any] else {
            return ["\(method) \(template) answered \(status), which the document does not list"]
        }
        if let ref = response["$ref"] as? String { response = resolve(ref) as? [String: Any] ?? [:] }
        guard let content = response["content"] as? [String: Any] else {
            return body.isEmpty || status == 204 ? [] : ["\(method) \(template) \(status): a body the document does not describe"]
        }
        guard let media = contentType?.split(separator: ";").first.map({ String($0).trimmingCharacters(in: .whitespaces) }),
              let entry = content[media] as? [String: Any] else {
            return ["\(method) \(template) \(status): content type \(contentType ?? "none") is not one of \(content.keys.sorted())"]
        }
        guard media.hasSuffix("json"), let schema = entry["schema"] else { return [] }
        guard let value = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else {
            return ["\(method) \(template) \(status): the body is not JSON"]
        }
        var found: [String] = []
        check(value, against: schema, at: "$", into: &found)
        return found.map { "\(method) \(template) \(status): \($0)" }
    }

    func resolve(_ ref: String) -> Any? {
        guard ref.hasPrefix("#/") else { return nil }
        var node: Any? = root
        for part in ref.dropFirst(2).split(separator: "/") { node = (node as? [String: Any])?[String(part)] }
        return node
    }

    private func check(_ value: Any, against schema: Any, at path: String, into found: inout [String]) {
        guard var schema = schema as? [String: Any] else { return }
        if let ref = schema["$ref"] as? String {
            guard let target = resolve(ref) as? [String: Any] else { found.append("\(path): unresolvable \(ref)"); return }
            schema = target.merging(schema.filter { $0.key != "$ref" }) { a, _ in a }
        }
        for all in schema["allOf"] as? [Any] ?? [] { check(value, against: all, at: path, into: &found) }
        for key in ["oneOf", "anyOf"] {
            guard let options = schema[key] as? [Any] else { continue }
            let fits = options.filter { option in var sub: [String] = []; check(value, against: option, at: path, into: &sub); return sub.isEmpty }
            if fits.isEmpty || (key == "oneOf" && fits.count > 1) {
                found.append("\(path): fits \(fits.count) of the \(key) choices")
            }
        }
        if let choices = schema["enum"] as? [Any], !choices.contains(where: { Self.same($0, value) }) {
            found.append("\(path): \(value) is not one of \(choices)")
        }
        let types: [String] = (schema["type"] as? [String]) ?? (schema["type"] as? String).map { [$0] } ?? []
        if !types.isEmpty, !types.contains(where: { Self.isType(value, $0) }) {
            found.append("\(path): \(Self.typeName(value)) where \(types.joined(separator: " or ")) was expected")
            return
        }
        if let minimum = schema["minimum"] as? Double, let number = value as? NSNumber, !Self.isBool(value), number.doubleValue < minimum {
            found.append("\(path): \(number) is below \(minimum)")
        }
        if let string = value as? String, let format = schema["format"] as? String, !Self.fits(string, format: format) {
            found.append("\(path): “\(string.prefix(40))” is not a \(format)")
        }
        if let object = value as? [String: Any] {
            for key in schema["required"] as? [String] ?? [] where object[key] == nil { found.append("\(path): \(key) is missing") }
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for (key, child) in object {
                if let property = properties[key] {
                    check(child, against: property, at: "\(path).\(key)", into: &found)
                } else if let additional = schema["additionalProperties"] {
                    if (additional as? Bool) == false { found.append("\(path): \(key) is not described") }
                    else if additional is [String: Any] { check(child, against: additional, at: "\(path).\(key)", into: &found) }
                }
            }
        }
        if let array = value as? [Any], let items = schema["items"] {
            for (index, element) in array.enumerated() { check(element, against: items, at: "\(path)[\(index)]", into: &found) }
        }
    }

    static func isBool(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        // JSONSerialization's true and false are NSNumbers of type char ("c"); numbers are "q" or "d".
        return String(cString: number.objCType) == "c"
    }

    static func isType(_ value: Any, _ type: String) -> Bool {
        switch type {
        case "null": return value is NSNull
        case "boolean": return isBool(value)
        case "integer": return !isBool(value) && (value as? NSNumber).map { $0.doubleValue.rounded() == $0.doubleValue } == true
        case "number": return !isBool(value) && value is NSNumber
        case "string": return value is String
        case "array": return value is [Any]
        case "object": return value is [String: Any]
        default: return true
        }
    }

    static func typeName(_ value: Any) -> String {
        ["null", "boolean", "integer", "number", "string", "array", "object"].first { isType(value, $0) } ?? "\(type(of: value))"
    }

    static func same(_ a: Any, _ b: Any) -> Bool {
        if let a = a as? String, let b = b as? String { return a == b }
        if let a = a as? NSNumber, let b = b as? NSNumber { return a == b }
        return a is NSNull && b is NSNull
    }

    static func fits(_ string: String, format: String) -> Bool {
        switch format {
        case "uuid": return UUID(uuidString: string) != nil
        case "date": return string.range(of: #"^\d{4}-\d{2}-\d{2}$"#, options: .regularExpression) != nil
        case "date-time":
            return ISO8601DateFormatter().date(from: string) != nil
                || string.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$"#, options: .regularExpression) != nil
        default: return true
        }
    }
}
