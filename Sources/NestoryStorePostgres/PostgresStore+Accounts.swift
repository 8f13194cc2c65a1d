import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

extension PostgresStore: AccountStore {
    // MARK: - Households

    public func createHousehold(name: String, currency: CurrencyCode, now: Date) async throws -> Household {
        let household = Household(name: try Household.validatedName(name), currency: currency, createdAt: now)
        try await transaction { connection in try await Self.insertHousehold(connection, household, logger: logger) }
        return household
    }

    static func insertHousehold(_ connection: PostgresConnection, _ household: Household, logger: Logger) async throws {
        try await connection.query("""
            INSERT INTO household (id, name, currency, high_value_threshold_minor, created_at, time_zone)
            VALUES (\(household.id.rawValue), \(household.name), \(household.currency.code), \(household.highValueThreshold.minorUnits),
                    \(household.createdAt.millis), \(household.timeZone))
            """, logger: logger)
        // The default rooms and categories, each list in one statement.
        let rooms = Defaults.rooms
        try await connection.query("""
            INSERT INTO room (id, household_id, name, sort_order)
            SELECT gen_random_uuid(), \(household.id.rawValue), name, ordinality - 1
            FROM unnest(\(rooms)::text[]) WITH ORDINALITY AS seed(name, ordinality)
            """, logger: logger)
        let categories = Defaults.categories
        try await connection.query("""
            INSERT INTO category (id, household_id, name, color_hex, icon, sort_order, is_custom)
            SELECT gen_random_uuid(), \(household.id.rawValue), name, color, icon, ordinality - 1, false
            FROM unnest(\(categories.map(\.name))::text[], \(categories.map(\.colorHex))::text[], \(categories.map(\.icon))::text[])
                 WITH ORDINALITY AS seed(name, color, icon, ordinality)
            """, logger: logger)
    }

    public func household(_ id: HouseholdID) async throws -> Household {
        try await withStoreErrors {
            try await client.withConnection { connection in try await Self.fetchHousehold(connection, id, logger: logger) }
        }
    }

    static func fetchHousehold(_ connection: PostgresConnection, _ id: HouseholdID, lock: Bool = false, logger: Logger) async throws -> Household {
        let query: PostgresQuery = lock
            ? "SELECT \(unescaped: householdColumns) FROM household h WHERE h.id = \(id.rawValue) FOR UPDATE"
            : "SELECT \(unescaped: householdColumns) FROM household h WHERE h.id = \(id.rawValue)"
        for try await row in try await connection.query(query, logger: logger) {
            return try householdFrom(row.makeRandomAccess(), at: 0)
        }
        throw DomainError.notFound("The household")
    }

    /// A household's columns (of `household h`), in the order `householdFrom` reads them.
    static let householdColumns = "h.id, h.name, h.currency, h.high_value_threshold_minor, h.created_at, h.time_zone"
    /// How many columns `householdColumns` is.
    static let householdColumnCount = 6

    /// A household from `householdColumns` starting at `first`: id, name, currency, threshold, created, time zone.
    static func householdFrom(_ row: PostgresRandomAccessRow, at first: Int) throws -> Household {
        let currency = (try? CurrencyCode(try row[first + 2].decode(String.self))) ?? .usd
        return Household(id: HouseholdID(try row[first].decode(UUID.self)), name: try row[first + 1].decode(String.self), currency: currency,
                         highValueThreshold: try? Money(minorUnits: try row[first + 3].decode(Int64.self), currency: currency),
                         createdAt: Date(millis: try row[first + 4].decode(Int64.self)), timeZone: try row[first + 5].decode(String?.self))
    }

    /// A user from four columns starting at `first`: id, email, display name, created.
    static func userFrom(_ row: PostgresRandomAccessRow, at first: Int) throws -> User {
        User(id: UserID(try row[first].decode(UUID.self)), email: try row[first + 1].decode(String.self),
             displayName: try row[first + 2].decode(String.self), createdAt: Date(millis: try row[first + 3].decode(Int64.self)))
    }

    public func allHouseholds() async throws -> [Household] {
        try await withStoreErrors {
            var households: [Household] = []
            for try await row in try await client.query("""
                SELECT \(unescaped: Self.householdColumns) FROM household h ORDER BY h.created_at, h.id
                """, logger: logger) {
                households.append(try Self.householdFrom(row.makeRandomAccess(), at: 0))
            }
            return households
        }
    }

    public func households(named name: String) async throws -> [Household] {
        try await allHouseholds().filter { $0.nameMatches(name) }
    }

    public func updateHousehold(_ id: HouseholdID, name: String, currency: CurrencyCode, highValueThreshold: Money,
                                timeZone: String?) async throws -> Household {
        let name = try Household.validatedName(name)
        guard highValueThreshold.currency == currency, highValueThreshold.minorUnits >= 0 else {
            throw DomainError.invalid(field: "highValueThreshold", message: "The threshold must be a positive amount in the household's currency.")
        }
        return try await transaction { connection in
            let rows = try await connection.query("""
                UPDATE household h SET name = \(name), currency = \(currency.code), high_value_threshold_minor = \(highValueThreshold.minorUnits),
                    time_zone = \(timeZone)
                WHERE id = \(id.rawValue)
                RETURNING \(unescaped: Self.householdColumns)
                """, logger: logger)
            for try await row in rows { return try Self.householdFrom(row.makeRandomAccess(), at: 0) }
            throw DomainError.notFound("The household")
        }
    }

    // MARK: - Users and members

    public func createAccount(email: String, displayName: String, passwordHash: String, household: AccountHousehold,
                              role: MemberRole, onlyIfFirst: Bool, now: Date) async throws -> (User, Household, MemberRole) {
        let user = try User.new(email: email, displayName: displayName, createdAt: now)
        var created: Household?
        if case .new(let name, let currency, let timeZone) = household {
            created = Household(name: try Household.validatedName(name), currency: currency, createdAt: now, timeZone: timeZone)
        }
        let result: (User, Household, MemberRole) = try await transaction { connection in
            if onlyIfFirst {
                // Two first-run set-ups at once (in this schema): the second waits here, then sees the first one's account.
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(\(PostgresMigrations.lockKey + 1) # hashtextextended(coalesce(current_schema(), ''), 0))",
                    logger: logger)
                if try await Self.exists(connection, "SELECT EXISTS (SELECT 1 FROM app_user)", logger: logger) {
                    throw DomainError.conflict("Nestory is already set up on this server: sign in instead.")
                }
            }
            try await Self.insertUser(connection, user, passwordHash: passwordHash, logger: logger)
            let target: Household
            let memberRole: MemberRole
            switch household {
            case .new:
                target = created!
                try await Self.insertHousehold(connection, target, logger: logger)
                memberRole = .owner
            case .existing(let id):
                target = try await Self.fetchHousehold(connection, id, logger: logger)
                memberRole = role
            }
            try await connection.query("""
                INSERT INTO membership (household_id, user_id, role, joined_at)
                VALUES (\(target.id.rawValue), \(user.id.rawValue), \(memberRole.rawValue), \(now.millis))
                """, logger: logger)
            return (user, target, memberRole)
        }
        return result
    }

    static func insertUser(_ connection: PostgresConnection, _ user: User, passwordHash: String, logger: Logger) async throws {
        // ON CONFLICT rather than a unique-key error: the transaction stays usable and the message names the address.
        let rows = try await connection.query("""
            INSERT INTO app_user (id, email, display_name, password_hash, created_at)
            VALUES (\(user.id.rawValue), \(user.email), \(user.displayName), \(passwordHash), \(user.createdAt.millis))
            ON CONFLICT (email) DO NOTHING RETURNING id
            """, logger: logger)
        for try await _ in rows { return }
        throw DomainError.conflict("An account with \(user.email) already exists.")
    }

    static func exists(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger) async throws -> Bool {
        for try await value in try await connection.query(query, logger: logger).decode(Bool.self) { return value }
        return false
    }

    public func userCredentials(email: String) async throws -> (user: User, passwordHash: String)? {
        guard let email = try? User.normalizedEmail(email) else { return nil }
        return try await withStoreErrors {
            for try await row in try await client.query("""
                SELECT id, email, display_name, created_at, password_hash FROM app_user WHERE email = \(email)
                """, logger: logger) {
                let columns = row.makeRandomAccess()
                return (try Self.userFrom(columns, at: 0), try columns[4].decode(String.self))
            }
            return nil
        }
    }

    public func addMember(_ householdID: HouseholdID, user userID: UserID, role: MemberRole, now: Date) async throws {
        try await transaction { connection in
            _ = try await Self.fetchHousehold(connection, householdID, logger: logger)
            guard try await Self.exists(connection, "SELECT EXISTS (SELECT 1 FROM app_user WHERE id = \(userID.rawValue))", logger: logger) else {
                throw DomainError.notFound("The account")
            }
            try await connection.query("""
                INSERT INTO membership (household_id, user_id, role, joined_at)
                VALUES (\(householdID.rawValue), \(userID.rawValue), \(role.rawValue), \(now.millis))
                ON CONFLICT (household_id, user_id) DO UPDATE SET role = excluded.role
                """, logger: logger)
        }
    }

    public func memberships(of userID: UserID) async throws -> [(household: Household, role: MemberRole)] {
        try await withStoreErrors {
            var found: [(household: Household, role: MemberRole)] = []
            for try await row in try await client.query("""
                SELECT \(unescaped: Self.householdColumns), m.role
                FROM membership m JOIN household h ON h.id = m.household_id
                WHERE m.user_id = \(userID.rawValue) ORDER BY h.created_at, h.id
                """, logger: logger) {
                let columns = row.makeRandomAccess()
                let role = try columns[Self.householdColumnCount].decode(String.self)
                found.append((try Self.householdFrom(columns, at: 0), MemberRole(rawValue: role) ?? .member))
            }
            return found
        }
    }

    public func members(of householdID: HouseholdID) async throws -> [(user: User, role: MemberRole)] {
        try await withStoreErrors {
            var found: [(user: User, role: MemberRole)] = []
            for try await row in try await client.query("""
                SELECT u.id, u.email, u.display_name, u.created_at, m.role
                FROM membership m JOIN app_user u ON u.id = m.user_id
                WHERE m.household_id = \(householdID.rawValue) ORDER BY m.role = 'owner' DESC, u.email
                """, logger: logger) {
                let columns = row.makeRandomAccess()
                found.append((try Self.userFrom(columns, at: 0), MemberRole(rawValue: try columns[4].decode(String.self)) ?? .member))
            }
            return found
        }
    }

    /// See `AccountStore.deleteHousehold`.
    public func deleteHousehold(_ householdID: HouseholdID) async throws -> [UserID] {
        let id = householdID.rawValue
        let (files, removed): ([String], [UserID]) = try await transaction { connection in
            _ = try await Self.fetchHousehold(connection, householdID, lock: true, logger: logger)  // not found: nothing to delete
            var members: [UUID] = [], files: [String] = [], removed: [UserID] = []
            for try await user in try await connection.query("SELECT user_id FROM membership WHERE household_id = \(id)", logger: logger)
                .decode(UUID.self) {
                members.append(user)
            }
            for try await sha in try await connection.query("""
                SELECT sha256 FROM item_photo WHERE household_id = \(id) UNION SELECT sha256 FROM receipt WHERE household_id = \(id)
                UNION SELECT sha256 FROM valuation_intake WHERE household_id = \(id)
                UNION SELECT sha256 FROM report WHERE household_id = \(id) AND sha256 IS NOT NULL
                """, logger: logger).decode(String.self) {
                files.append(sha)
            }
            // The rows whose triggers keep counters first, as a restore's replace removes them; the rest go with the household.
            try await connection.query("DELETE FROM report WHERE household_id = \(id)", logger: logger)
            try await connection.query("DELETE FROM receipt WHERE household_id = \(id)", logger: logger)
            try await connection.query("DELETE FROM item WHERE household_id = \(id)", logger: logger)
            try await connection.query("DELETE FROM room WHERE household_id = \(id)", logger: logger)
            try await connection.query("DELETE FROM category WHERE household_id = \(id)", logger: logger)
            try await connection.query("DELETE FROM household WHERE id = \(id)", logger: logger)
            for member in members {
                var elsewhere = false
                for try await _ in try await connection.query("SELECT 1 FROM membership WHERE user_id = \(member) LIMIT 1", logger: logger) {
                    elsewhere = true
                }
                if !elsewhere {
                    try await connection.query("DELETE FROM app_user WHERE id = \(member)", logger: logger)
                    removed.append(UserID(member))
                }
            }
            return (files, removed)
        }
        // After the commit: a failed removal leaves an unused file for the next sweep, never a record without its file.
        try await removeUnreferencedBlobs(files)
        return removed
    }

    public func removeMember(_ householdID: HouseholdID, user userID: UserID) async throws {
        try await transaction { connection in
            // The household's row is locked first: two owners removed at once cannot both pass the last-owner check.
            _ = try await Self.fetchHousehold(connection, householdID, lock: true, logger: logger)
            var role: String?
            for try await value in try await connection.query("""
                SELECT role FROM membership WHERE household_id = \(householdID.rawValue) AND user_id = \(userID.rawValue)
                """, logger: logger).decode(String.self) {
                role = value
            }
            guard let role else { throw DomainError.notFound("The member") }
            if role == MemberRole.owner.rawValue {
                var owners: Int64 = 0
                for try await count in try await connection.query("""
                    SELECT COUNT(*) FROM membership WHERE household_id = \(householdID.rawValue) AND role = 'owner'
                    """, logger: logger).decode(Int64.self) {
                    owners = count
                }
                if owners <= 1 { throw DomainError.conflict("A household needs at least one owner.") }
            }
            try await connection.query("DELETE FROM membership WHERE household_id = \(householdID.rawValue) AND user_id = \(userID.rawValue)",
                                       logger: logger)
            try await connection.query("DELETE FROM session WHERE user_id = \(userID.rawValue)", logger: logger)
        }
    }

    public func changePasswordHash(_ userID: UserID, to passwordHash: String) async throws {
        try await transaction { connection in
            var changed = false
            for try await _ in try await connection.query("UPDATE app_user SET password_hash = \(passwordHash) WHERE id = \(userID.rawValue) RETURNING id",
                                                           logger: logger) {
                changed = true
            }
            guard changed else { throw DomainError.notFound("The account") }
            try await connection.query("DELETE FROM session WHERE user_id = \(userID.rawValue)", logger: logger)
        }
    }

    public func hasUsers() async throws -> Bool {
        try await withStoreErrors {
            try await client.withConnection { connection in
                try await Self.exists(connection, "SELECT EXISTS (SELECT 1 FROM app_user)", logger: logger)
            }
        }
    }

    public func setTheme(_ userID: UserID, _ theme: Theme) async throws {
        try await withStoreErrors {
            for try await _ in try await client.query("UPDATE app_user SET theme = \(theme.rawValue) WHERE id = \(userID.rawValue) RETURNING id",
                                                      logger: logger) {
                return
            }
            throw DomainError.notFound("The account")
        }
    }

    // MARK: - Sessions

    public func createSession(tokenHash: String, userID: UserID, csrfToken: String, now: Date, expiresAt: Date,
                              userAgent: String?) async throws {
        let agent = userAgent.map { String($0.prefix(300)) }
        try await withStoreErrors {
            try await client.query("""
                INSERT INTO session (token_hash, user_id, csrf_token, created_at, last_seen_at, last_active_at, expires_at, user_agent)
                VALUES (\(tokenHash), \(userID.rawValue), \(csrfToken), \(now.millis), \(now.millis), \(now.millis), \(expiresAt.millis), \(agent))
                """, logger: logger)
        }
    }

    public func sessionWithMembership(tokenHash: String, now: Date) async throws -> (session: SessionRecord, household: Household, role: MemberRole)? {
        try await withStoreErrors {
            for try await row in try await client.query("""
                SELECT u.id, u.email, u.display_name, u.created_at,
                       s.csrf_token, s.created_at, s.last_seen_at, s.expires_at, s.last_active_at, s.locked,
                       u.theme, u.lock_minutes, (SELECT COUNT(*) FROM passkey p WHERE p.user_id = u.id), m.role,
                       \(unescaped: Self.householdColumns)
                FROM session s JOIN app_user u ON u.id = s.user_id
                JOIN membership m ON m.user_id = u.id JOIN household h ON h.id = m.household_id
                WHERE s.token_hash = \(tokenHash) AND s.expires_at > \(now.millis)
                ORDER BY h.created_at, h.id LIMIT 1
                """, logger: logger) {
                let columns = row.makeRandomAccess()
                let session = SessionRecord(
                    user: try Self.userFrom(columns, at: 0), csrfToken: try columns[4].decode(String.self),
                    createdAt: Date(millis: try columns[5].decode(Int64.self)), lastSeenAt: Date(millis: try columns[6].decode(Int64.self)),
                    expiresAt: Date(millis: try columns[7].decode(Int64.self)),
                    theme: Theme(rawValue: try columns[10].decode(String.self)) ?? .system,
                    lastActiveAt: Date(millis: try columns[8].decode(Int64.self)), locked: try columns[9].decode(Bool.self),
                    lockMinutes: Int(try columns[11].decode(Int32.self)), passkeys: Int(try columns[12].decode(Int64.self)))
                return (session, try Self.householdFrom(columns, at: 14), MemberRole(rawValue: try columns[13].decode(String.self)) ?? .member)
            }
            return nil
        }
    }

    public func touchSession(tokenHash: String, now: Date, expiresAt: Date) async throws {
        try await withStoreErrors {
            try await client.query("""
                UPDATE session SET last_seen_at = \(now.millis), expires_at = \(expiresAt.millis)
                WHERE token_hash = \(tokenHash) AND last_seen_at < \(now.millis - 60_000)
                """, logger: logger)
        }
    }

    public func deleteSession(tokenHash: String) async throws {
        try await withStoreErrors { try await client.query("DELETE FROM session WHERE token_hash = \(tokenHash)", logger: logger) }
    }

    public func deleteSessions(of userID: UserID) async throws {
        try await withStoreErrors { try await client.query("DELETE FROM session WHERE user_id = \(userID.rawValue)", logger: logger) }
    }

    public func deleteExpiredSessions(now: Date) async throws {
        try await withStoreErrors { try await client.query("DELETE FROM session WHERE expires_at <= \(now.millis)", logger: logger) }
    }

    public func accountVersion() async throws -> Int64 {
        try await withStoreErrors {
            for try await version in try await client.execute(AccountVersion(), logger: logger) { return version }
            return 0
        }
    }

    /// Read on every signed-in request (the session caches' check), so prepared once per connection.
    struct AccountVersion: PostgresPreparedStatement {
        static let sql = "SELECT version FROM account_version WHERE id = 1"
        typealias Row = Int64
        func makeBindings() throws -> PostgresBindings { PostgresBindings() }
        func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode(Int64.self) }
    }

    public func signInFailures(_ key: String, since: Date) async throws -> (count: Int, oldest: Date?) {
        try await withStoreErrors {
            for try await row in try await client.query(
                "SELECT count(*), min(at) FROM sign_in_failure WHERE key = \(key) AND at > \(since.millis)", logger: logger) {
                let (count, oldest) = try row.decode((Int64, Int64?).self)
                return (Int(count), oldest.map(Date.init(millis:)))
            }
            return (0, nil)
        }
    }

    public func recordSignInFailure(_ key: String, at: Date, forgetBefore: Date) async throws {
        try await withStoreErrors {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("DELETE FROM sign_in_failure WHERE at <= \(forgetBefore.millis)", logger: logger)
                try await connection.query("INSERT INTO sign_in_failure (key, at) VALUES (\(key), \(at.millis))", logger: logger)
            }
        }
    }

    public func clearSignInFailures(_ key: String) async throws {
        try await withStoreErrors { try await client.query("DELETE FROM sign_in_failure WHERE key = \(key)", logger: logger) }
    }
}
