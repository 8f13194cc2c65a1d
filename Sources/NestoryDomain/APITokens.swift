import Foundation

/// What a personal API token may do: read (GET and HEAD only) or read and write.
public enum TokenScope: String, Sendable, Hashable, Codable, CaseIterable {
    case read
    case write

    public var label: String { self == .read ? "Read only" : "Read and write" }
}

/// A personal API token as its owner sees it (the token itself is shown once, when made, and never stored).
public struct APITokenSummary: Hashable, Sendable {
    public let id: String
    public let name: String
    public let scope: TokenScope
    public let createdAt: Date
    /// When it stops working; nil: until revoked.
    public let expiresAt: Date?
    public let lastUsedAt: Date?

    public init(id: String, name: String, scope: TokenScope, createdAt: Date, expiresAt: Date?, lastUsedAt: Date?) {
        (self.id, self.name, self.scope, self.createdAt, self.expiresAt, self.lastUsedAt) = (id, name, scope, createdAt, expiresAt, lastUsedAt)
    }

    public func isExpired(at now: Date) -> Bool { expiresAt.map { $0 <= now } ?? false }
}

/// The rules for making a token: a name (1 to 100 characters) and an expiry, if any, that is still to come.
public enum APITokenRules {
    public static let maxName = 100

    public static func validated(name raw: String, scope rawScope: String, expires: CalendarDate?, today: CalendarDate) throws(DomainError)
        -> (name: String, scope: TokenScope) {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        var errors: [FieldError] = []
        if name.isEmpty { errors.append(FieldError(field: "name", message: "Give the token a name, so you know later what uses it.")) }
        if name.count > maxName { errors.append(FieldError(field: "name", message: "A token's name has at most \(maxName) characters.")) }
        let scope = TokenScope(rawValue: rawScope.trimmingCharacters(in: .whitespaces).lowercased())
        if scope == nil { errors.append(FieldError(field: "scope", message: "The scope is read or write.")) }
        if let expires, expires <= today {
            errors.append(FieldError(field: "expires", message: "The expiry date must be after today."))
        }
        guard errors.isEmpty, let scope else { throw .validation(errors) }
        return (name, scope)
    }
}
