import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import NestoryStorePostgres
import Testing

/// The store's id and its licences behave the same on every engine.
@Suite struct LicenceStoreConformanceTests {
    let now = Date(millis: 1_763_800_000_123)

    @Test(arguments: Engine.available)
    func theIdIsMadeOnceAndAHouseholdSeesItsOwnAndTheServersKeysNewestFirst(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let licences = stores.licences
            let id = try await licences.instanceID()
            #expect(id.count == 32 && id.allSatisfy { $0.isHexDigit && !$0.isUppercase })
            #expect(try await licences.instanceID() == id)

            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: now).id
            let away = try await stores.accounts.createHousehold(name: "Away", currency: .usd, now: now).id
            try await licences.installLicence(key: "key-server", keyID: "k1", household: nil, now: now)
            try await licences.installLicence(key: "key-home", keyID: "k2", household: home, now: now.addingTimeInterval(10))
            try await licences.installLicence(key: "key-away", keyID: "k3", household: away, now: now.addingTimeInterval(20))
            // Installed again later: kept once, as first installed.
            try await licences.installLicence(key: "key-home", keyID: "k2", household: home, now: now.addingTimeInterval(30))

            #expect(try await licences.licences(for: home) == [
                InstalledLicence(key: "key-home", householdID: home, installedAt: now.addingTimeInterval(10)),
                InstalledLicence(key: "key-server", householdID: nil, installedAt: now),
            ])
            #expect(try await licences.licences(for: away).map(\.key) == ["key-away", "key-server"])
            #expect(try await licences.licences(for: nil).map(\.key) == ["key-away", "key-home", "key-server"])

            #expect(try await licences.itemCount(home) == 0)
            _ = try await stores.items.createItem(home, ItemDraft(name: "Lamp", currency: .usd), now: now, today: nil, plan: nil)
            _ = try await stores.items.createItem(home, ItemDraft(name: "Sofa", currency: .usd), now: now, today: nil, plan: nil)
            #expect(try await licences.itemCount(home) == 2)
            #expect(try await licences.itemCount(away) == 0)
        }
    }
}

/// Two PostgreSQL stores on one schema (two servers): one id, so a licence for the whole server holds on both.
@Suite(.enabled(if: Engine.available.contains(.postgres)))
struct LicencesAcrossServersTests {
    @Test func twoServersOnOneStoreShareItsId() async throws {
        try await withTwoPostgresStores { first, second in
            let (one, other) = (try await first.instanceID(), try await second.instanceID())
            #expect(!one.isEmpty && one == other)
        }
    }
}
