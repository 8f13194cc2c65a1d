import Foundation
internal import GRDB
import NestoryDomain
import NestoryStoreInterfaces

extension AppDatabase {
    // MARK: - Households

    /// Creates a household with the default rooms and categories.
    @discardableResult
    public func createHousehold(name: String, currency: CurrencyCode, now: Date) throws -> Household {
        let household = Household(name: try Household.validatedName(name), currency: currency, createdAt: now)
        try write { db in try Self.insertHousehold(db, household) }
        return household
    }

    static func insertHousehold(_ db: Database, _ household: Household) throws {
        try db.execute(
            sql: "INSERT INTO household (id, name, currency, high_value_threshold_minor, created_at, time_zone) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [household.id.description, household.name, household.currency.code,
                        household.highValueThreshold.minorUnits, household.createdAt.millis, household.timeZone])
        for (index, name) in Defaults.rooms.enumerated() {
            try db.execute(sql: "INSERT INTO room (id, household_id, name, sort_order) VALUES (?, ?, ?, ?)",
                           arguments: [RoomID().description, household.id.description, name, index])
        }
        for (index, seed) in Defaults.categories.enumerated() {
            try db.execute(
                sql: "INSERT INTO category (id, household_id, name, color_hex, icon, sort_order, is_custom) VALUES (?, ?, ?, ?, ?, ?, 0)",
                arguments: [CategoryID().description, household.id.description, seed.name, seed.colorHex, seed.icon, index])
        }
    }

    public func household(_ id: HouseholdID) throws -> Household {
        try read { db in try Self.fetchHousehold(db, id) }
    }

    static func fetchHousehold(_ db: Database, _ id: HouseholdID) throws -> Household {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM household WHERE id = ?", arguments: [id.description]) else {
            throw DomainError.notFound("The household")
        }
        return householdFrom(row)
    }

    static func householdFrom(_ row: Row) -> Household {
        let currency = row.currency("currency")
        return Household(id: row.id("id"), name: row["name"], currency: currency,
                         highValueThreshold: row.money("high_value_threshold_minor", currency: currency),
                         createdAt: row.date("created_at"), timeZone: row["time_zone"])
    }

    /// Every household, oldest first (for the admin command line).
    public func allHouseholds() throws -> [Household] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM household ORDER BY created_at, id").map(Self.householdFrom)
        }
    }

    /// Finds households by name (several households may share one), as `Household.nameMatches` says.
    public func households(named name: String) throws -> [Household] {
        try allHouseholds().filter { $0.nameMatches(name) }
    }

    /// Renames, changes currency, threshold or time zone.
    public func updateHousehold(_ id: HouseholdID, name: String, currency: CurrencyCode, highValueThreshold: Money,
                                timeZone: String?) throws -> Household {
        let name = try Household.validatedName(name)
        guard highValueThreshold.currency == currency, highValueThreshold.minorUnits >= 0 else {
            throw DomainError.invalid(field: "highValueThreshold", message: "The threshold must be a positive amount in the household's currency.")
        }
        return try write { db in
            try db.execute(sql: "UPDATE household SET name = ?, currency = ?, high_value_threshold_minor = ?, time_zone = ? WHERE id = ?",
                           arguments: [name, currency.code, highValueThreshold.minorUnits, timeZone, id.description])
            guard db.changesCount == 1 else { throw DomainError.notFound("The household") }
            return try Self.fetchHousehold(db, id)
        }
    }

    // MARK: - Users and members

    /// Registers a user. The password must already be hashed.
    public func createUser(email: String, displayName: String, passwordHash: String, now: Date) throws -> User {
        let user = try Self.newUser(email: email, displayName: displayName, now: now)
        return try write { db in
            try Self.insertUser(db, user, passwordHash: passwordHash)
            return user
        }
    }

    static func newUser(email: String, displayName: String, now: Date) throws -> User {
        try User.new(email: email, displayName: displayName, createdAt: now)
    }

    static func insertUser(_ db: Database, _ user: User, passwordHash: String) throws {
        if try Bool.fetchOne(db, sql: "SELECT 1 FROM user WHERE email = ?", arguments: [user.email]) == true {
            throw DomainError.conflict("An account with \(user.email) already exists.")
        }
        try db.execute(sql: "INSERT INTO user (id, email, display_name, password_hash, created_at) VALUES (?, ?, ?, ?, ?)",
                       arguments: [user.id.description, user.email, user.displayName, passwordHash, user.createdAt.millis])
    }

    /// Where a new account goes (the interface's type, named here too for the callers that know only the store).
    public typealias AccountHousehold = NestoryStoreInterfaces.AccountHousehold

    /// Creates a user and their membership, and the household too when it is new, in one transaction:
    /// either all of it is there afterwards or none of it. The first person in a new household is its
    /// owner. With `onlyIfFirst`, the account is made only while the server has no account at all
    /// (first-run set-up): of two simultaneous set-ups one makes the owner and the other gets a conflict.
    public func createAccount(email: String, displayName: String, passwordHash: String, household: AccountHousehold,
                              role: MemberRole, onlyIfFirst: Bool = false, now: Date) throws -> (User, Household, MemberRole) {
        let user = try Self.newUser(email: email, displayName: displayName, now: now)
        var created: Household?
        if case .new(let name, let currency, let timeZone) = household {
            created = Household(name: try Household.validatedName(name), currency: currency, createdAt: now, timeZone: timeZone)
        }
        return try write { db in
            if onlyIfFirst, try Bool.fetchOne(db, sql: "SELECT 1 FROM user LIMIT 1") == true {
                throw DomainError.conflict("Nestory is already set up on this server: sign in instead.")
            }
            try Self.insertUser(db, user, passwordHash: passwordHash)
            let target: Household
            let memberRole: MemberRole
            switch household {
            case .new:
                target = created!
                try Self.insertHousehold(db, target)
                memberRole = .owner
            case .existing(let id):
                target = try Self.fetchHousehold(db, id)
                memberRole = role
            }
            try db.execute(sql: "INSERT INTO membership (household_id, user_id, role, joined_at) VALUES (?, ?, ?, ?)",
                           arguments: [target.id.description, user.id.description, memberRole.rawValue, now.millis])
            return (user, target, memberRole)
        }
    }

    /// A user and their stored password hash, by email (for sign-in).
    public func userCredentials(email: String) throws -> (user: User, passwordHash: String)? {
        guard let email = try? User.normalizedEmail(email) else { return nil }
        return try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM user WHERE email = ?", arguments: [email]).map {
                (User(id: $0.id("id"), email: $0["email"], displayName: $0["display_name"], createdAt: $0.date("created_at")),
                 $0["password_hash"] as String)
            }
        }
    }

    public func addMember(_ householdID: HouseholdID, user userID: UserID, role: MemberRole, now: Date) throws {
        try write { db in
            _ = try Self.fetchHousehold(db, householdID)
            try db.execute(
                sql: "INSERT INTO membership (household_id, user_id, role, joined_at) VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET role = excluded.role",
                arguments: [householdID.description, userID.description, role.rawValue, now.millis])
        }
    }

    /// The households a user belongs to, with the role.
    public func memberships(of userID: UserID) throws -> [(household: Household, role: MemberRole)] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT household.*, membership.role FROM membership JOIN household ON household.id = membership.household_id
                WHERE membership.user_id = ? ORDER BY household.created_at
                """, arguments: [userID.description]).map { (Self.householdFrom($0), MemberRole(rawValue: $0["role"]) ?? .member) }
        }
    }

    /// The members of a household, owners first.
    public func members(of householdID: HouseholdID) throws -> [(user: User, role: MemberRole)] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT user.*, membership.role FROM membership JOIN user ON user.id = membership.user_id
                WHERE membership.household_id = ? ORDER BY membership.role = 'owner' DESC, user.email
                """, arguments: [householdID.description]).map {
                (User(id: $0.id("id"), email: $0["email"], displayName: $0["display_name"], createdAt: $0.date("created_at")),
                 MemberRole(rawValue: $0["role"]) ?? .member)
            }
        }
    }

    // MARK: - Rooms

    public func rooms(_ householdID: HouseholdID) throws -> [Room] {
        try read { db in try Self.fetchRooms(db, householdID) }
    }

    static func fetchRooms(_ db: Database, _ householdID: HouseholdID) throws -> [Room] {
        try Row.fetchAll(db, sql: "SELECT * FROM room WHERE household_id = ? ORDER BY sort_order, name",
                         arguments: [householdID.description]).map {
            Room(id: $0.id("id"), householdID: householdID, name: $0["name"], sortOrder: $0["sort_order"])
        }
    }

    /// Adds a room at the end of the list.
    public func createRoom(_ householdID: HouseholdID, name: String) throws -> Room {
        let name = try PlaceName.validated(name)
        return try write { db in
            _ = try Self.fetchHousehold(db, householdID)
            try Self.ensureUniquePlace(db, table: "room", householdID, name: name, except: nil)
            let next = try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(sort_order) + 1, 0) FROM room WHERE household_id = ?",
                                        arguments: [householdID.description]) ?? 0
            let room = Room(householdID: householdID, name: name, sortOrder: next)
            try db.execute(sql: "INSERT INTO room (id, household_id, name, sort_order) VALUES (?, ?, ?, ?)",
                           arguments: [room.id.description, householdID.description, name, next])
            return room
        }
    }

    public func renameRoom(_ householdID: HouseholdID, _ id: RoomID, to name: String) throws {
        let name = try PlaceName.validated(name)
        try write { db in
            try Self.ensureUniquePlace(db, table: "room", householdID, name: name, except: id.description)
            try db.execute(sql: "UPDATE room SET name = ? WHERE household_id = ? AND id = ?",
                           arguments: [name, householdID.description, id.description])
            guard db.changesCount == 1 else { throw DomainError.notFound("The room") }
        }
    }

    /// Sets the order of the rooms: `ids` lists every room of the household once.
    public func reorderRooms(_ householdID: HouseholdID, _ ids: [RoomID]) throws {
        try reorder(table: "room", householdID, ids.map(\.description), what: "room")
    }

    /// Deletes a room; its items stay, with no room. Returns how many items that affected.
    @discardableResult
    public func deleteRoom(_ householdID: HouseholdID, _ id: RoomID, now: Date) throws -> Int {
        try deletePlace(table: "room", column: "room_id", householdID, id.description, what: "The room", now: now)
    }

    /// How many items are in a room (to say what deleting it does).
    public func itemCount(_ householdID: HouseholdID, room id: RoomID) throws -> Int {
        try read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE household_id = ? AND room_id = ?",
                             arguments: [householdID.description, id.description]) ?? 0
        }
    }

    // MARK: - Categories

    public func categories(_ householdID: HouseholdID) throws -> [NestoryDomain.Category] {
        try read { db in try Self.fetchCategories(db, householdID) }
    }

    static func fetchCategories(_ db: Database, _ householdID: HouseholdID) throws -> [NestoryDomain.Category] {
        try Row.fetchAll(db, sql: "SELECT * FROM category WHERE household_id = ? ORDER BY sort_order, name",
                         arguments: [householdID.description]).map {
            NestoryDomain.Category(id: $0.id("id"), householdID: householdID, name: $0["name"], colorHex: $0["color_hex"],
                                   icon: $0["icon"], sortOrder: $0["sort_order"], isCustom: $0["is_custom"])
        }
    }

    public func createCategory(_ householdID: HouseholdID, name: String, colorHex: String, icon: String = "box") throws -> NestoryDomain.Category {
        let name = try PlaceName.validated(name)
        let color = try NestoryDomain.Category.validatedColor(colorHex)
        return try write { db in
            _ = try Self.fetchHousehold(db, householdID)
            try Self.ensureUniquePlace(db, table: "category", householdID, name: name, except: nil)
            let next = try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(sort_order) + 1, 0) FROM category WHERE household_id = ?",
                                        arguments: [householdID.description]) ?? 0
            let category = NestoryDomain.Category(householdID: householdID, name: name, colorHex: color, icon: icon,
                                                  sortOrder: next, isCustom: true)
            try db.execute(
                sql: "INSERT INTO category (id, household_id, name, color_hex, icon, sort_order, is_custom) VALUES (?, ?, ?, ?, ?, ?, 1)",
                arguments: [category.id.description, householdID.description, name, color, icon, next])
            return category
        }
    }

    public func updateCategory(_ householdID: HouseholdID, _ id: CategoryID, name: String, colorHex: String) throws {
        let name = try PlaceName.validated(name)
        let color = try NestoryDomain.Category.validatedColor(colorHex)
        try write { db in
            try Self.ensureUniquePlace(db, table: "category", householdID, name: name, except: id.description)
            try db.execute(sql: "UPDATE category SET name = ?, color_hex = ? WHERE household_id = ? AND id = ?",
                           arguments: [name, color, householdID.description, id.description])
            guard db.changesCount == 1 else { throw DomainError.notFound("The category") }
        }
    }

    public func reorderCategories(_ householdID: HouseholdID, _ ids: [CategoryID]) throws {
        try reorder(table: "category", householdID, ids.map(\.description), what: "category")
    }

    /// Deletes a category; its items stay, uncategorised. Returns how many items that affected.
    @discardableResult
    public func deleteCategory(_ householdID: HouseholdID, _ id: CategoryID, now: Date) throws -> Int {
        try deletePlace(table: "category", column: "category_id", householdID, id.description, what: "The category", now: now)
    }

    // MARK: - Shared by rooms and categories

    private static func ensureUniquePlace(_ db: Database, table: String, _ householdID: HouseholdID, name: String, except: String?) throws {
        let existing = try Row.fetchAll(db, sql: "SELECT id, name FROM \(table) WHERE household_id = ?", arguments: [householdID.description])
        try PlaceName.checkUnique(name, kind: table, among: existing.map { (id: $0["id"], name: $0["name"]) }, except: except)
    }

    private func reorder(table: String, _ householdID: HouseholdID, _ ids: [String], what: String) throws {
        try write { db in
            let existing = Set(try String.fetchAll(db, sql: "SELECT id FROM \(table) WHERE household_id = ?",
                                                   arguments: [householdID.description]))
            try PlaceName.checkOrder(ids, existing: existing, kind: what)
            for (index, id) in ids.enumerated() {
                try db.execute(sql: "UPDATE \(table) SET sort_order = ? WHERE household_id = ? AND id = ?",
                               arguments: [index, householdID.description, id])
            }
        }
    }

    private func deletePlace(table: String, column: String, _ householdID: HouseholdID, _ id: String, what: String, now: Date) throws -> Int {
        try write { db in
            let affected = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE household_id = ? AND \(column) = ?",
                                            arguments: [householdID.description, id]) ?? 0
            try db.execute(sql: "UPDATE item SET updated_at = ? WHERE household_id = ? AND \(column) = ?",
                           arguments: [now.millis, householdID.description, id])
            try db.execute(sql: "DELETE FROM \(table) WHERE household_id = ? AND id = ?", arguments: [householdID.description, id])
            guard db.changesCount == 1 else { throw DomainError.notFound(what) }
            return affected
        }
    }
}
