import Foundation

/// What a server keeps beside its households' archives, row by row as stored, for moving a server to another store
/// (`nestory copy`): every account (with those in no household, their password hashes and settings), passkeys, API
/// tokens (their hashes), calendar feeds, webhooks (their secrets as stored), the webhook events already sent,
/// licences, the product table (the catalogue and providers' cached answers) and the server's id. Not here: sign-in
/// sessions, passkey challenges, sign-in failures, idempotency keys and jobs (this server's passing state).
///
/// Ids are lowercase strings and times whole milliseconds, as in `ArchiveRecord`, so rows read from two engines compare
/// equal when they hold the same thing.
public struct ServerRecords: Hashable, Sendable {
    /// The server's id (a licence for a whole server names it).
    public var instanceID: String?
    public var accounts: [Account] = []
    public var passkeys: [Passkey] = []
    public var apiTokens: [APIToken] = []
    public var calendarFeeds: [CalendarFeed] = []
    public var webhooks: [Webhook] = []
    public var sentEvents: [SentEvent] = []
    public var licences: [Licence] = []
    public var products: [Product] = []

    public init(instanceID: String? = nil, accounts: [Account] = [], passkeys: [Passkey] = [], apiTokens: [APIToken] = [],
                calendarFeeds: [CalendarFeed] = [], webhooks: [Webhook] = [], sentEvents: [SentEvent] = [], licences: [Licence] = [],
                products: [Product] = []) {
        (self.instanceID, self.accounts, self.passkeys, self.apiTokens, self.calendarFeeds, self.webhooks, self.sentEvents, self.licences,
         self.products) = (instanceID, accounts, passkeys, apiTokens, calendarFeeds, webhooks, sentEvents, licences, products)
    }

    /// An account with its password hash and its own settings (look, app lock, reminders, dismissed tips as bits).
    public struct Account: Hashable, Sendable {
        public var id, email, displayName, passwordHash: String
        public var createdAt: Int64
        public var theme: String
        public var lockMinutes: Int
        public var tipsDismissed: Int64
        public var warrantyReminders, weeklyNudge: Bool

        public init(id: String, email: String, displayName: String, passwordHash: String, createdAt: Int64, theme: String, lockMinutes: Int,
                    tipsDismissed: Int64, warrantyReminders: Bool, weeklyNudge: Bool) {
            (self.id, self.email, self.displayName, self.passwordHash, self.createdAt, self.theme, self.lockMinutes, self.tipsDismissed,
             self.warrantyReminders, self.weeklyNudge) = (id, email, displayName, passwordHash, createdAt, theme, lockMinutes, tipsDismissed,
                                                          warrantyReminders, weeklyNudge)
        }
    }

    public struct Passkey: Hashable, Sendable {
        public var id: String
        public var credentialID: Data
        public var userID, name: String
        public var publicKey: Data
        public var signCount: Int64
        public var backupEligible: Bool
        public var createdAt: Int64
        public var lastUsedAt: Int64?

        public init(id: String, credentialID: Data, userID: String, name: String, publicKey: Data, signCount: Int64, backupEligible: Bool,
                    createdAt: Int64, lastUsedAt: Int64?) {
            (self.id, self.credentialID, self.userID, self.name, self.publicKey, self.signCount, self.backupEligible, self.createdAt,
             self.lastUsedAt) = (id, credentialID, userID, name, publicKey, signCount, backupEligible, createdAt, lastUsedAt)
        }
    }

    /// A token as stored: the SHA-256 of the token, never the token.
    public struct APIToken: Hashable, Sendable {
        public var id, tokenHash, userID, householdID, name, scope: String
        public var createdAt: Int64
        public var expiresAt, lastUsedAt: Int64?

        public init(id: String, tokenHash: String, userID: String, householdID: String, name: String, scope: String, createdAt: Int64,
                    expiresAt: Int64?, lastUsedAt: Int64?) {
            (self.id, self.tokenHash, self.userID, self.householdID, self.name, self.scope, self.createdAt, self.expiresAt, self.lastUsedAt) =
                (id, tokenHash, userID, householdID, name, scope, createdAt, expiresAt, lastUsedAt)
        }
    }

    public struct CalendarFeed: Hashable, Sendable {
        public var userID, token, tokenHash: String
        public var createdAt: Int64

        public init(userID: String, token: String, tokenHash: String, createdAt: Int64) {
            (self.userID, self.token, self.tokenHash, self.createdAt) = (userID, token, tokenHash, createdAt)
        }
    }

    public struct Webhook: Hashable, Sendable {
        public var householdID, url, secret: String
        public var createdAt: Int64
        public var lastAttemptAt: Int64?
        public var lastStatus: Int?
        public var lastError: String?

        public init(householdID: String, url: String, secret: String, createdAt: Int64, lastAttemptAt: Int64?, lastStatus: Int?, lastError: String?) {
            (self.householdID, self.url, self.secret, self.createdAt, self.lastAttemptAt, self.lastStatus, self.lastError) =
                (householdID, url, secret, createdAt, lastAttemptAt, lastStatus, lastError)
        }
    }

    /// A webhook event already handed on (so it is not sent twice after the move).
    public struct SentEvent: Hashable, Sendable {
        public var householdID, eventID: String
        public var sentAt: Int64

        public init(householdID: String, eventID: String, sentAt: Int64) {
            (self.householdID, self.eventID, self.sentAt) = (householdID, eventID, sentAt)
        }
    }

    public struct Licence: Hashable, Sendable {
        public var key: String
        public var householdID: String?
        public var keyID: String
        public var installedAt: Int64

        public init(key: String, householdID: String?, keyID: String, installedAt: Int64) {
            (self.key, self.householdID, self.keyID, self.installedAt) = (key, householdID, keyID, installedAt)
        }
    }

    /// A row of the product table: a catalogue product (`source` "catalog") or a provider's cached answer.
    public struct Product: Hashable, Sendable {
        public var code, source: String
        public var found: Bool
        public var name, brand, category, imageURL: String?
        public var fetchedAt: Int64

        public init(code: String, source: String, found: Bool, name: String?, brand: String?, category: String?, imageURL: String?, fetchedAt: Int64) {
            (self.code, self.source, self.found, self.name, self.brand, self.category, self.imageURL, self.fetchedAt) =
                (code, source, found, name, brand, category, imageURL, fetchedAt)
        }
    }

    /// How many rows of each kind, for messages.
    public var count: Int {
        accounts.count + passkeys.count + apiTokens.count + calendarFeeds.count + webhooks.count + sentEvents.count + licences.count + products.count
    }
}

/// The rows of `ServerRecords`, read out whole and written back keeping their ids and times.
///
/// Every engine keeps the same rules (checked by the conformance suite): `serverRecords` reads every row of each kind in
/// one snapshot, each kind in its key's order (`sortedByKey`); `applyServerRecords` is one
/// transaction that deletes `delete`'s rows (by their key, whatever else they hold), then writes `put`'s, each inserted or
/// replacing the row with its key, with the ids and times given; a changed password hash ends that account's sessions;
/// a given `instanceID` becomes the store's id (the server moved keeps its id, so its licences still apply).
public protocol ServerRecordStore: Sendable {
    func serverRecords() async throws -> ServerRecords
    func applyServerRecords(put: ServerRecords, delete: ServerRecords) async throws
}

extension ServerRecords.Account { public var key: String { id } }
extension ServerRecords.Passkey { public var key: String { id } }
extension ServerRecords.APIToken { public var key: String { id } }
extension ServerRecords.CalendarFeed { public var key: String { userID } }
extension ServerRecords.Webhook { public var key: String { householdID } }
extension ServerRecords.SentEvent { public var key: String { householdID + "\u{0}" + eventID } }
extension ServerRecords.Product { public var key: String { code + "\u{0}" + source } }

extension ServerRecords {
    /// Each kind in its key's order (compared as strings, the same on every engine whatever its collation).
    public func sortedByKey() -> ServerRecords {
        ServerRecords(instanceID: instanceID, accounts: accounts.sorted { $0.key < $1.key }, passkeys: passkeys.sorted { $0.key < $1.key },
                      apiTokens: apiTokens.sorted { $0.key < $1.key }, calendarFeeds: calendarFeeds.sorted { $0.key < $1.key },
                      webhooks: webhooks.sorted { $0.key < $1.key }, sentEvents: sentEvents.sorted { $0.key < $1.key },
                      licences: licences.sorted { $0.key < $1.key }, products: products.sorted { $0.key < $1.key })
    }
}
