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
    /// The person may not do this (a member doing what only the owner may).
    case forbidden(String)
    /// A Free limit (Plan.swift): what the limit is and what Pro unlocks.
    case proRequired(ProLimit)

    public static func invalid(field: String, message: String) -> DomainError {
        .validation([FieldError(field: field, message: message)])
    }

    /// A message for people: safe to show.
    public var message: String {
        switch self {
        case .validation(let errors): return errors.map(\.message).joined(separator: " ")
        case .notFound(let what): return "\(what) was not found."
        case .currencyMismatch(let a, let b): return "Amounts in \(a) and \(b) cannot be added together."
        case .conflict(let message), .forbidden(let message): return message
        case .proRequired(let limit): return limit.message
        }
    }

    public var description: String { message }
}

/// Collects the problems of a form, so all of them are shown at once rather than the first.
public struct FieldErrors: Sendable, Equatable {
    public private(set) var fields: [FieldError] = []

    public init() {}

    public var isEmpty: Bool { fields.isEmpty }

    /// Runs a check; its validation errors are kept (another error's message under the field "form").
    @discardableResult
    public mutating func collect<T>(_ check: () throws -> T) -> T? {
        do { return try check() } catch let error as DomainError { append(error) } catch {
            append(FieldError(field: "form", message: String(describing: error)))
        }
        return nil
    }

    public mutating func append(_ field: FieldError) { fields.append(field) }

    public mutating func append(_ error: DomainError) { fields += Self.fields(of: error) }

    /// Throws the collected problems as one validation error, if there are any.
    public func throwIfAny() throws(DomainError) {
        if !fields.isEmpty { throw DomainError.validation(fields) }
    }

    /// The per-field messages of an error: a validation error's fields, a Free limit under "plan", else its message
    /// under "form".
    public static func fields(of error: DomainError) -> [FieldError] {
        if case .validation(let fields) = error { return fields }
        if case .proRequired(let limit) = error { return [FieldError(field: "plan", message: limit.message)] }
        return [FieldError(field: "form", message: error.message)]
    }
}
