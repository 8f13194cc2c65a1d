import Foundation
import NestoryDomain
import NestoryHTTP
import NestoryStore
import NestoryStoreInterfaces
import NestoryValuation

/// What items are worth: the offline estimate (always there, no key), values entered by hand, and each
/// item's and the household's valuation history. A valuation never changes the item's purchase price.
public struct ValuationService: Sendable {
    /// Valuations and their settings.
    let store: any ValuationStore
    /// The items valued (read, and their empty fields filled from a reviewed batch).
    let items: any ItemStore
    /// The household's currency.
    let accounts: any AccountStore
    /// Batches' jobs: what became of each item.
    let jobs: any JobStore
    /// Photos to value new things from (and the item photo each becomes).
    let attachments: any AttachmentStore
    /// Seals and opens the providers' keys kept in the settings.
    let secrets: SecretKeys
    /// Makes the live (or a test's) photo analyser and market search from a household's settings.
    let providers: any ValuationProviderMaking
    /// The operator's providers, for households without their own.
    let defaults: ValuationDefaults
    /// Where a household's own analysis endpoint may be (public addresses, unless the operator allows private ones),
    /// and the threads its host name is resolved on.
    let endpoints: PublicAddressGuard
    let blocking: BlockingPool
    let now: @Sendable () -> Date

    public init(store: any ValuationStore, items: any ItemStore, accounts: any AccountStore, jobs: any JobStore, attachments: any AttachmentStore,
                secrets: SecretKeys, providers: any ValuationProviderMaking = UnavailableValuationProviders(),
                defaults: ValuationDefaults = ValuationDefaults(), endpoints: PublicAddressGuard = .valuationEndpoints(allowPrivate: false),
                blocking: BlockingPool = BlockingPool(), now: @escaping @Sendable () -> Date = Date.init) {
        self.defaults = defaults
        self.endpoints = endpoints
        self.blocking = blocking
        self.store = store
        self.items = items
        self.accounts = accounts
        self.jobs = jobs
        self.attachments = attachments
        self.secrets = secrets
        self.providers = providers
        self.now = now
    }

    /// The household's day now (on its clock, `Household.clock`): a valuation's day when none is given, and the last
    /// day one may be given.
    public func today(_ household: HouseholdID) async throws -> CalendarDate {
        try await accounts.household(household).day(at: now())
    }

    /// The offline estimate for an item on a day (today by default), added to its history. The replacement cost
    /// is the latest one known (a market or hand-entered value), else the purchase price.
    @discardableResult
    public func estimateOffline(_ household: HouseholdID, item id: ItemID, on day: CalendarDate? = nil,
                                table: DepreciationTable? = nil) async throws -> Valuation {
        let at = now()
        let day = if let day { day } else { try await today(household) }
        let valuation = try await offline(household, item: try await items.item(household, id), on: day, table: table, at: at)
        try await store.addValuation(household, valuation)
        return valuation
    }

    /// The offline estimate of an item (not kept): from `replacementCost` (all of the quantity) when given, else the
    /// latest market or hand-entered replacement cost, else the purchase price; `condition` in place of the item's.
    func offline(_ household: HouseholdID, item: Item, on day: CalendarDate, table: DepreciationTable? = nil, at: Date,
                 replacementCost: Money? = nil, condition: ItemCondition? = nil) async throws -> Valuation {
        let table = try await depreciationTableOrGiven(table, household)
        let latest = try await store.valuations(household, item: item.id, limit: 20).first { $0.method != .offline && $0.replacementCost != nil }
        let unit: Money
        if let known = replacementCost ?? latest?.replacementCost?.value, known.currency == item.currency {
            unit = try known.scaled(by: 1, over: Int64(item.quantity))
        } else if let price = item.purchasePrice {
            unit = price
        } else {
            throw DomainError.invalid(field: "replacementCost",
                                      message: "Enter a purchase price or a replacement cost first: the estimate starts from what a like item costs.")
        }
        let category = item.categoryID == nil ? nil : try await items.categories(household).first { $0.id == item.categoryID }?.name
        let estimate = try OfflineEstimator.estimate(unitReplacementCost: unit, quantity: item.quantity, purchaseDate: item.purchaseDate,
                                                     on: day, category: category, condition: condition ?? item.condition, table: table)
        return try Valuation(
            itemID: item.id, replacementCost: ValueRange(exactly: estimate.replacementCost),
            actualCashValue: try ValueRange(value: estimate.actualCashValue, low: estimate.low, high: estimate.high),
            method: .offline, confidence: estimate.confidence == .medium ? .medium : .low, valuedOn: day,
            explanation: estimate.explanation + ". Source of the life: \(estimate.rule.source).", createdAt: at)
    }

    /// A value entered by a person (an appraisal, a quote): replacement cost and/or actual cash value, in the
    /// item's currency, for a day (today by default).
    @discardableResult
    public func enter(_ household: HouseholdID, item id: ItemID, replacementCost: String, actualCashValue: String,
                      on dayText: String = "", note: String = "") async throws -> Valuation {
        let (at, today) = (now(), try await today(household))
        let item = try await items.item(household, id)
        var errors = FieldErrors()
        var rcv: Money?
        var acv: Money?
        var day = today
        let trimmed = (replacementCost.trimmingCharacters(in: .whitespaces), actualCashValue.trimmingCharacters(in: .whitespaces))
        errors.collect { rcv = try Self.amount(trimmed.0, currency: item.currency, field: "replacementCost") }
        errors.collect { acv = try Self.amount(trimmed.1, currency: item.currency, field: "actualCashValue") }
        errors.collect {
            if !dayText.trimmingCharacters(in: .whitespaces).isEmpty {
                day = try CalendarDate(iso: dayText)
                guard day <= today else { throw DomainError.invalid(field: "date", message: "Choose today or a day before.") }
            }
        }
        if rcv == nil, acv == nil, trimmed.0.isEmpty, trimmed.1.isEmpty {
            errors.append(FieldError(field: "replacementCost", message: "Enter a replacement cost, an actual cash value, or both."))
        }
        try errors.throwIfAny()
        let explanation = String(note.trimmingCharacters(in: .whitespacesAndNewlines).prefix(500))
        let valuation = try Valuation(itemID: id, replacementCost: rcv.map(ValueRange.init(exactly:)),
                                      actualCashValue: acv.map(ValueRange.init(exactly:)), method: .manual, confidence: .high,
                                      valuedOn: day, explanation: explanation.isEmpty ? nil : explanation, createdAt: at)
        try await store.addValuation(household, valuation)
        return valuation
    }

    /// The household's depreciation table: the owner's, else the one Nestory ships.
    public func depreciationTable(_ household: HouseholdID) async throws -> DepreciationTable {
        guard let json = try await store.valuationSettings(household).depreciationTable,
              let table = try? JSONDecoder().decode(DepreciationTable.self, from: Data(json.utf8)) else { return .standard }
        return table
    }

    /// `table` when given, else the household's.
    func depreciationTableOrGiven(_ table: DepreciationTable?, _ household: HouseholdID) async throws -> DepreciationTable {
        if let table { return table }
        return try await depreciationTable(household)
    }

    /// The owner adjusts the table: each category's useful life in whole years (empty: does not depreciate), the
    /// floor and the condition factors, in percent. `nil` puts the standard table back.
    public func saveDepreciationTable(_ household: HouseholdID, by role: MemberRole, lives: [String: String]?, floor: String = "",
                                      conditions: [ItemCondition: String] = [:]) async throws {
        guard role == .owner else { throw DomainError.forbidden("Only the household’s owner can change the depreciation table.") }
        var table: DepreciationTable? = nil
        if let lives {
            var adjusted = try await depreciationTable(household)
            var errors = FieldErrors()
            func percent(_ text: String, field: String, range: ClosedRange<Int>) -> Int? {
                errors.collect {
                    guard let value = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(value) else {
                        throw DomainError.invalid(field: field, message: "Enter a whole percentage from \(range.lowerBound) to \(range.upperBound).")
                    }
                    return value * 100
                }
            }
            func life(_ text: String?, field: String) -> Int?? {
                let trimmed = (text ?? "").trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty { return .some(nil) }
                return errors.collect {
                    guard let years = Int(trimmed), (1...100).contains(years) else {
                        throw DomainError.invalid(field: field, message: "Enter whole years from 1 to 100, or leave it empty for things that do not lose value with age.")
                    }
                    return years
                }
            }
            adjusted.rules = adjusted.rules.enumerated().map { index, rule in
                guard let years = life(lives["life-\(index)"], field: "life-\(index)") else { return rule }
                return years == rule.usefulLifeYears ? rule
                    : DepreciationRule(category: rule.category, usefulLifeYears: years, source: "Set by the household’s owner")
            }
            if let years = life(lives["life-other"], field: "life-other"), years != adjusted.fallback.usefulLifeYears {
                adjusted.fallback = DepreciationRule(category: adjusted.fallback.category, usefulLifeYears: years, source: "Set by the household’s owner")
            }
            if let floor = percent(floor, field: "floor", range: 0...100) { adjusted.floorBasisPoints = floor }
            for (condition, text) in conditions {
                if let value = percent(text, field: "condition-\(condition.rawValue)", range: 1...100) { adjusted.conditionBasisPoints[condition] = value }
            }
            try errors.throwIfAny()
            table = adjusted
        }
        let json = try table.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        var stored = try await store.valuationSettings(household)
        stored.depreciationTable = json
        try await store.saveValuationSettings(household, stored, now: now())
    }

    /// A value typed by a person: empty is none; otherwise an amount of zero or more in the item's currency, refused
    /// under its field. The one rule for the hand-entered form, the API and the review of a batch.
    static func amount(_ text: String, currency: CurrencyCode, field: String) throws(DomainError) -> Money? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        let money: Money
        do { money = try Money.parse(typed: trimmed, currency: currency) } catch { throw .invalid(field: field, message: error.message) }
        guard money.minorUnits >= 0 else { throw .invalid(field: field, message: "Enter an amount of zero or more.") }
        return money
    }

    /// An item's valuations, newest first.
    public func history(_ household: HouseholdID, item id: ItemID) async throws -> [Valuation] {
        try await store.valuations(household, item: id)
    }

    /// The household's history by day, with daily totals.
    public func householdHistory(_ household: HouseholdID) async throws -> [ValuationDay] {
        try await store.valuationHistory(household)
    }

    /// One day of the history: the values made for it, with their items' names.
    public func day(_ household: HouseholdID, _ day: CalendarDate) async throws -> [(valuation: Valuation, itemName: String)] {
        try await store.valuations(household, on: day)
    }
}
