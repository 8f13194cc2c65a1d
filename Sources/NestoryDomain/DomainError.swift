import Foundation

/// A message about one field of a form or request.
public struct FieldError: Hashable, Codable, Sendable {
    public let field: String
    public let message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }
}

/// The errors the domain and the store raise. The web module alone maps them to HTTP statuses.
public enum DomainError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Input that breaks a rule; one message per field.
    case validation([FieldError])
    /// A record that does not exist in this household (never "exists elsewhere").
    case notFound(String)
    /// Two amounts in different currencies were combined.
    case currencyMismatch(CurrencyCode, CurrencyCode)
    /// A uniqueness rule, e.g. an email already registered.
    case conflict(String)

    public static func invalid(field: String, message: String) -> DomainError {
        .validation([FieldError(field: field, message: message)])
    }

    /// A message for people: safe to show.
    public var message: String {
        switch self {
        case .validation(let errors): return errors.map(\.message).joined(separator: " ")
        case .notFound(let what): return "\(what) was not found."
        case .currencyMismatch(let a, let b): return "Amounts in \(a) and \(b) cannot be added together."
        case .conflict(let message): return message
        }
    }

    public var description: String { message }
}
