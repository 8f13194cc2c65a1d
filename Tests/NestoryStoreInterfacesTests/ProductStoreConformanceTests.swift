import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import Testing

/// Product lookups behave the same on every engine.
@Suite struct ProductStoreConformanceTests {
    let now = Date(millis: 1_763_800_000_123)

    @Test(arguments: Engine.available)
    func catalogueProductsAreFoundUnderTheFirstCodeGivenAndReplacedByAReimport(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let products = stores.products
            #expect(try await products.catalogCount() == 0)
            let kettle = ProductRecord(source: "catalog", code: "04006381333931", name: "Kettle", brand: "Acme", category: "Kitchen",
                                       imageURL: "https://img.example/k.png")
            let lamp = ProductRecord(source: "catalog", code: "4006381333931", name: "Lamp")
            #expect(try await products.importCatalog([kettle, lamp], now: now) == 2)
            #expect(try await products.catalogCount() == 2)
            #expect(try await products.catalogProduct(codes: ["0000", "4006381333931", "04006381333931"]) == lamp)
            #expect(try await products.catalogProduct(codes: ["04006381333931", "4006381333931"]) == kettle)
            #expect(try await products.catalogProduct(codes: ["0000"]) == nil)
            #expect(try await products.catalogProduct(codes: []) == nil)
            let renamed = ProductRecord(source: "catalog", code: "4006381333931", name: "Desk lamp", brand: "Acme")
            try await products.importCatalog([renamed], now: now)
            #expect(try await products.catalogProduct(codes: ["4006381333931"]) == renamed)
            #expect(try await products.catalogCount() == 2)
        }
    }

    @Test(arguments: Engine.available)
    func providersAnswersAreReturnedOnlyWhileFresh(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let products = stores.products
            let found = ProductRecord(source: "openfoodfacts", code: "123", name: "Oats", brand: nil, category: "Food", imageURL: nil)
            try await products.storeAnswer(provider: "openfoodfacts", key: "123", .found(found), now: now)
            try await products.storeAnswer(provider: "upcitemdb", key: "123", .notFound, now: now)
            #expect(try await products.cachedAnswer(provider: "openfoodfacts", key: "123", foundSince: now, missSince: now) == .found(found))
            #expect(try await products.cachedAnswer(provider: "openfoodfacts", key: "123", foundSince: now.addingTimeInterval(0.001),
                                                    missSince: .distantPast) == nil)
            #expect(try await products.cachedAnswer(provider: "upcitemdb", key: "123", foundSince: .distantFuture, missSince: now) == .notFound)
            #expect(try await products.cachedAnswer(provider: "upcitemdb", key: "123", foundSince: .distantPast,
                                                    missSince: now.addingTimeInterval(0.001)) == nil)
            #expect(try await products.cachedAnswer(provider: "openfoodfacts", key: "999", foundSince: .distantPast, missSince: .distantPast) == nil)
            // A later answer replaces the earlier one.
            try await products.storeAnswer(provider: "openfoodfacts", key: "123", .notFound, now: now.addingTimeInterval(5))
            #expect(try await products.cachedAnswer(provider: "openfoodfacts", key: "123", foundSince: .distantPast, missSince: now) == .notFound)
            // The catalogue is not a provider's answer.
            #expect(try await products.cachedAnswer(provider: "catalog", key: "123", foundSince: .distantPast, missSince: .distantPast) == nil)
        }
    }

    @Test(arguments: Engine.available)
    func theSwitchesAreEachHouseholdsWithTheirDefaults(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let products = stores.products
            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: now).id
            let away = try await stores.accounts.createHousehold(name: "Away", currency: .usd, now: now).id
            #expect(try await products.onlineProductLookup(home) == false)
            #expect(try await products.scanningEnabled(home) == true)
            try await products.setOnlineProductLookup(home, true)
            try await products.setScanningEnabled(home, false)
            #expect(try await products.onlineProductLookup(home) == true)
            #expect(try await products.scanningEnabled(home) == false)
            #expect(try await products.onlineProductLookup(away) == false)
            #expect(try await products.scanningEnabled(away) == true)
            await #expect(throws: DomainError.notFound("The household")) { try await products.setOnlineProductLookup(HouseholdID(), true) }
            await #expect(throws: DomainError.notFound("The household")) { try await products.setScanningEnabled(HouseholdID(), true) }
        }
    }
}
