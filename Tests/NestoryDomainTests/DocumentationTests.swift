import Foundation
import Testing
@testable import NestoryDomain

@Suite struct DocumentationTests {
    let household = HouseholdID()
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    func item(price: String? = "10", room: Bool = true, category: Bool = true, serial: String? = nil) throws -> Item {
        Item(householdID: household, draft: ItemDraft(
            name: "Lamp", serialNumber: serial, purchasePrice: try price.map { try Money.parse($0, currency: .usd) },
            currency: .usd, categoryID: category ? CategoryID() : nil, roomID: room ? RoomID() : nil), createdAt: now)
    }

    @Test func documentedNeedsPhotoValueCategoryAndRoom() throws {
        #expect(DocumentationStatus(item: try item(), photoCount: 1, receiptCount: 0).isDocumented)
        #expect(!DocumentationStatus(item: try item(), photoCount: 0, receiptCount: 3).isDocumented)
        #expect(!DocumentationStatus(item: try item(price: nil), photoCount: 1, receiptCount: 1).isDocumented)
        #expect(!DocumentationStatus(item: try item(room: false), photoCount: 1, receiptCount: 1).isDocumented)
        #expect(!DocumentationStatus(item: try item(category: false), photoCount: 1, receiptCount: 1).isDocumented)
    }

    @Test func receiptAndSerialAreShownButNotScored() throws {
        let status = DocumentationStatus(item: try item(serial: nil), photoCount: 2, receiptCount: 0)
        #expect(status.isDocumented)
        #expect(status.missing == [.receipt, .serial])
        #expect(!DocumentationAspect.receipt.isRequiredForScore && !DocumentationAspect.serial.isRequiredForScore)
        #expect(DocumentationAspect.allCases.allSatisfy { !$0.missingHelp.isEmpty })
    }

    @Test func aZeroPriceIsAnEnteredValue() throws {
        #expect(DocumentationStatus(item: try item(price: "0"), photoCount: 1, receiptCount: 0).hasValue)
    }

    @Test func scoreRoundsDownAndIsEmptyForNoItems() {
        #expect(DocumentationScore(documented: 0, total: 0).percent == nil)
        #expect(DocumentationScore(documented: 0, total: 5).percent == 0)
        #expect(DocumentationScore(documented: 1, total: 3).percent == 33)
        #expect(DocumentationScore(documented: 2, total: 3).percent == 66)
        #expect(DocumentationScore(documented: 199, total: 200).percent == 99)  // not "100%" until every item is
        #expect(DocumentationScore(documented: 200, total: 200).percent == 100)
    }
}

@Suite struct ItemDraftTests {
    let today = try! CalendarDate(iso: "2026-11-22")

    @Test func cleansTextAndNormalisesTags() throws {
        var draft = ItemDraft(name: "  Sony\t  TV \n", brand: "   ", modelNumber: " KD-55 ", currency: .usd,
                              tags: ["#Gift", "gift", "  insured ", "", "Kids  room"], notes: "\r\n line one \r\n\r\n line two  \n")
        draft = try draft.validated(today: today)
        #expect(draft.name == "Sony TV")
        #expect(draft.brand == nil)
        #expect(draft.modelNumber == "KD-55")
        #expect(draft.tags == ["Gift", "insured", "Kids room"])
        #expect(draft.notes == "line one\n\nline two")
    }

    /// `,`, `;` and `|` separate tags wherever tags are one line of text (the form, a CSV cell), so no tag holds one.
    @Test func aTagHoldsNoSeparator() throws {
        let draft = try ItemDraft(name: "Desk", currency: .usd, tags: ["Smith, John", "a;b|c", " , ;", "#kids, #Kids"]).validated(today: today)
        #expect(draft.tags == ["Smith", "John", "a", "b", "c", "kids"])
        #expect(Tag.normalize(Tag.split(draft.tags.joined(separator: "; "))) == draft.tags)
    }

    @Test func reportsEveryBrokenRuleAtOnce() throws {
        let draft = ItemDraft(name: " ", purchasePrice: try Money.parse("-1", currency: .usd),
                              purchaseDate: try CalendarDate(iso: "2027-01-01"), currency: .usd, quantity: 0)
        let error = #expect(throws: DomainError.self) { try draft.validated(today: today) }
        guard case .validation(let errors) = error else { Issue.record("expected a validation error"); return }
        #expect(Set(errors.map(\.field)) == ["name", "purchasePrice", "quantity", "purchaseDate"])
    }

    @Test func priceMustBeInTheItemsCurrency() throws {
        let draft = ItemDraft(name: "Clock", purchasePrice: try Money.parse("5", currency: .eur), currency: .usd)
        #expect(throws: DomainError.self) { try draft.validated(today: today) }
    }

    @Test func tomorrowIsAllowedForTimeZonesButNotLater() throws {
        let tomorrow = ItemDraft(name: "A", purchaseDate: try today.adding(days: 1), currency: .usd)
        #expect(try tomorrow.validated(today: today).purchaseDate != nil)
        let later = ItemDraft(name: "A", purchaseDate: try today.adding(days: 2), currency: .usd)
        #expect(throws: DomainError.self) { try later.validated(today: today) }
    }

    @Test func priceTimesQuantityMustNotOverflow() throws {
        let draft = ItemDraft(name: "Gold bar", purchasePrice: try Money.parse("10000000000000", currency: .usd),
                              currency: .usd, quantity: 2)
        #expect(throws: DomainError.self) { try draft.validated(today: today) }
    }

    @Test func unicodeNamesSurvive() throws {
        let draft = try ItemDraft(name: "Émile’s 茶碗 🏺", currency: .jpy).validated(today: today)
        #expect(draft.name == "Émile’s 茶碗 🏺")
        #expect(Text.foldKey("Émile") == Text.foldKey("EMILE"))
    }

    @Test func controlCharactersAreRemoved() throws {
        let draft = try ItemDraft(name: "Lamp\u{0}\u{7}", currency: .usd).validated(today: today)
        #expect(draft.name == "Lamp")
    }

    @Test func limitsAreEnforced() throws {
        #expect(throws: DomainError.self) { try ItemDraft(name: String(repeating: "a", count: 201), currency: .usd).validated(today: today) }
        #expect(throws: DomainError.self) {
            try ItemDraft(name: "a", currency: .usd, tags: (0..<31).map { "t\($0)" }).validated(today: today)
        }
        #expect(throws: DomainError.self) { try ItemDraft(name: "a", currency: .usd, quantity: 100_001).validated(today: today) }
    }

    @Test func totalValueIsPriceTimesQuantity() throws {
        let item = Item(householdID: HouseholdID(), draft: ItemDraft(name: "Chair", purchasePrice: try Money.parse("19.99", currency: .usd),
                                                                     currency: .usd, quantity: 4), createdAt: Date())
        #expect(item.totalValue?.minorUnits == 7996)
    }
}

@Suite struct AccountRulesTests {
    @Test func emailsAreNormalised() throws {
        #expect(try User.normalizedEmail("  Alice@Example.COM ") == "alice@example.com")
        for bad in ["alice", "alice@", "@example.com", "alice@example", "a b@example.com", "alice@.com"] {
            #expect(throws: DomainError.self) { try User.normalizedEmail(bad) }
        }
    }

    @Test func passwordsHaveAFloorAndNoSurprisingCap() throws {
        #expect(throws: DomainError.self) { try PasswordPolicy.validate("short") }
        try PasswordPolicy.validate(String(repeating: "x", count: 1000))
    }

    @Test func householdNamesAndColours() throws {
        #expect(try Household.validatedName("  The Smiths ") == "The Smiths")
        #expect(throws: DomainError.self) { try Household.validatedName("   ") }
        // Cleaned like any name: a line break, a bell and a direction override would reach the PDF and the calendar.
        #expect(try Household.validatedName("The\n\u{202E}Smiths\u{0007}") == "The Smiths")
        #expect(throws: DomainError.self) { try Household.validatedName("\u{202E}\u{0007}") }
        #expect(try PlaceName.validated("  Living\n\u{202E}room\u{0007} ") == "Living room")
        #expect(try PlaceName.validated("Küche") == "Küche")
        #expect(throws: DomainError.self) { try PlaceName.validated("\u{200B}\t") }
        #expect(try NestoryDomain.Category.validatedColor("#3b82f6") == "#3B82F6")
        #expect(throws: DomainError.self) { try NestoryDomain.Category.validatedColor("blue") }
        #expect(Household.defaultThreshold(for: .usd).minorUnits == 100_000)
        #expect(Household.defaultThreshold(for: .jpy).minorUnits == 1000)
    }

    @Test func defaultsAreUniqueAndColoured() throws {
        #expect(Set(Defaults.rooms).count == Defaults.rooms.count)
        #expect(Set(Defaults.categories.map(\.name)).count == Defaults.categories.count)
        for seed in Defaults.categories { #expect(try NestoryDomain.Category.validatedColor(seed.colorHex) == seed.colorHex) }
    }
}
