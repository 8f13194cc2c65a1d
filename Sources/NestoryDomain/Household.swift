import Foundation

/// A household: the unit that owns an inventory. Every record belongs to exactly one.
public struct Household: Identifiable, Hashable, Codable, Sendable {
    public let id: HouseholdID
    public var name: String
    /// The currency new items default to, and the one the summary leads with.
    public var currency: CurrencyCode
    /// Items whose value is above this count as "high value" (the spec's "> $1000").
    public var highValueThreshold: Money
    public let createdAt: Date
    /// Where the household lives, as an IANA name ("Asia/Kolkata"): its days ("today", a warranty that ends today,
    /// a valuation's day, a report's date) are counted on this clock. Nil: the server's clock, as before households had one.
    public var timeZone: String?

    public init(id: HouseholdID = HouseholdID(), name: String, currency: CurrencyCode,
                highValueThreshold: Money? = nil, createdAt: Date, timeZone: String? = nil) {
        self.id = id
        self.name = name
        self.currency = currency
        self.highValueThreshold = highValueThreshold ?? Household.defaultThreshold(for: currency)
        self.createdAt = createdAt
        self.timeZone = timeZone
    }

    /// The household's clock: its time zone, or the server's when it has none (or one this system no longer knows).
    public var clock: TimeZone { Self.clock(named: timeZone) }

    /// The clock of a household whose time zone is `name` (`timeZone`'s rule, for callers that have only the name).
    public static func clock(named name: String?) -> TimeZone { name.flatMap(TimeZone.init(identifier:)) ?? .current }

    /// The household's calendar day at `instant`.
    public func day(at instant: Date) -> CalendarDate { CalendarDate(instant, in: clock) }

    /// Checks a time zone as typed or chosen: an IANA name this system knows, spelt as it spells it ("Europe/Paris",
    /// "Asia/Kolkata", "Etc/UTC"; not an offset such as "GMT+5" or an abbreviation such as "EST", whose days would not
    /// follow the place's summer time), or empty for none (the server's clock).
    public static func validatedTimeZone(_ raw: String) throws(DomainError) -> String? {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if name.isEmpty { return nil }
        guard name.count <= 64, name.contains("/") || name == "UTC", name.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 32 }),
              let zone = TimeZone(identifier: name), zone.identifier == name || name == "UTC" else {
            throw .invalid(field: "timeZone", message: "Choose a time zone from the list, such as Europe/London.")
        }
        return name
    }

    /// 1,000 in the household's currency (¥1,000 is little, but a user can change it).
    public static func defaultThreshold(for currency: CurrencyCode) -> Money {
        var minor: Int64 = 1000
        for _ in 0..<currency.minorUnitDigits { minor *= 10 }
        return try! Money(minorUnits: minor, currency: currency)
    }

    /// Whether this household is the one a person named, as they type names on the command line: ignoring case and
    /// the spaces around the name ("the smiths" finds "The Smiths").
    public func nameMatches(_ typed: String) -> Bool {
        name.compare(typed.trimmingCharacters(in: .whitespacesAndNewlines), options: [.caseInsensitive]) == .orderedSame
    }

    /// Cleans (`Text.clean`: spaces collapsed, control characters and direction overrides dropped, as in every name)
    /// and checks a household name.
    public static func validatedName(_ raw: String) throws(DomainError) -> String {
        guard let name = Text.clean(raw) else { throw .invalid(field: "name", message: "Give the household a name.") }
        guard name.count <= 120 else { throw .invalid(field: "name", message: "Keep the name under 120 characters.") }
        return name
    }
}

/// How a person wants the app to look, remembered per user: the device's own setting, or always light or dark.
public enum Theme: String, CaseIterable, Codable, Sendable {
    case system, light, dark

    public var label: String {
        switch self {
        case .system: return "System (as this device is set)"
        case .light: return "Light"
        case .dark: return "Dark"
        }
    }
}

/// A person who can sign in.
public struct User: Identifiable, Hashable, Codable, Sendable {
    public let id: UserID
    public var email: String
    public var displayName: String
    public let createdAt: Date

    public init(id: UserID = UserID(), email: String, displayName: String, createdAt: Date) {
        self.id = id
        self.email = email
        self.displayName = displayName
        self.createdAt = createdAt
    }

    /// A new user as every store records one: the e-mail normalised, the display name cleaned, or the part of
    /// the address before the @ when none is given.
    public static func new(email: String, displayName: String, createdAt: Date) throws(DomainError) -> User {
        let email = try normalizedEmail(email)
        let name = Text.clean(displayName) ?? String(email.split(separator: "@")[0])
        return User(email: email, displayName: name, createdAt: createdAt)
    }

    /// Lower-cases and checks an email address (enough to catch typing mistakes; delivery is not checked).
    public static func normalizedEmail(_ raw: String) throws(DomainError) -> String {
        let email = raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."),
              !parts[1].hasSuffix("."), email.count <= 254, !email.contains(where: \.isWhitespace) else {
            throw .invalid(field: "email", message: "Enter an email address such as name@example.com.")
        }
        return email
    }
}

/// What a member may do in a household.
public enum MemberRole: String, Hashable, Codable, Sendable, CaseIterable {
    /// Created the household; manages members and settings.
    case owner
    /// Reads and edits the inventory.
    case member
}

/// A user's membership of a household.
public struct Membership: Hashable, Codable, Sendable {
    public let householdID: HouseholdID
    public let userID: UserID
    public var role: MemberRole
    public let joinedAt: Date

    public init(householdID: HouseholdID, userID: UserID, role: MemberRole, joinedAt: Date) {
        self.householdID = householdID
        self.userID = userID
        self.role = role
        self.joinedAt = joinedAt
    }
}

/// Turns a plain password into a stored hash and checks one. The live version is slow on purpose.
public protocol PasswordHasher: Sendable {
    func hash(_ password: String) throws -> String
    func verify(_ password: String, against hash: String) -> Bool
}

/// The rules a new password must meet; long passwords are welcome (no upper cap that truncates).
public enum PasswordPolicy {
    public static let minimumLength = 10
    public static let maximumLength = 4096

    public static func validate(_ password: String) throws(DomainError) {
        guard password.count >= minimumLength else {
            throw .invalid(field: "password", message: "Use at least \(minimumLength) characters.")
        }
        guard password.count <= maximumLength else {
            throw .invalid(field: "password", message: "Use at most \(maximumLength) characters.")
        }
    }
}

/// The version of this build of Nestory.
public enum NestoryVersion {
    public static let current = "0.1.0"
}
