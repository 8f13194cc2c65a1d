import Foundation
import NestoryDomain
import NestoryJobs
import NestoryStore
import NestoryStoreInterfaces
import NestoryValuation

// Valuing many items at once (the PRD's batch): one durable job with progress per item ("valuing 3 of 12"),
// per-item outcomes that never stop the rest, retry of the failed ones, cancellation, a bounded rate per
// provider; then review: each proposal is looked at, edited, recalculated and saved one by one.

/// What a batch values.
public struct ValuationBatchRequest: Codable, Sendable {
    public let items: [String]
    /// Photos to value new things from (the PRD's flow from photos alone): their intake ids.
    public let photos: [String]?

    public init(items: [String], photos: [String]? = nil) {
        self.items = items
        self.photos = photos
    }

    /// Every entry's key, in order: the items' ids, then `photo:` and each photo's id.
    var keys: [String] { items + (photos ?? []).map { "photo:" + $0 } }
}

/// A proposed valuation, before review: what the batch found for one item.
public struct ValuationProposal: Codable, Hashable, Sendable {
    public var replacementCost: ValueRange?
    public var actualCashValue: ValueRange?
    public var method: ValuationMethod
    public var confidence: Valuation.Confidence
    public var sources: [ValuationSource]
    public var explanation: String?
    /// Shown beside a market value of low confidence: the offline estimate's actual cash value.
    public var offlineActualCashValue: ValueRange?

    init(_ valuation: Valuation, offline: ValueRange? = nil) {
        replacementCost = valuation.replacementCost
        actualCashValue = valuation.actualCashValue
        method = valuation.method
        confidence = valuation.confidence
        sources = valuation.sources
        explanation = valuation.explanation
        offlineActualCashValue = offline
    }
}

/// What became of one item of a batch.
public struct ValuationBatchItem: Codable, Hashable, Sendable {
    public enum Status: String, Codable, Sendable { case proposed, failed, saved }
    public var status: Status
    public var name: String
    public var identification: Identification?
    public var proposal: ValuationProposal?
    public var error: String?
    /// For a photo to value: the item its saved review made.
    public var createdItem: String? = nil
    /// A failed entry tried again: the batch that did (its page has what became of it).
    public var retriedIn: String? = nil
}

/// The owner's review of one proposal: the identified fields and the figures as edited.
public struct ValuationReview: Sendable {
    public var brand: String
    public var productName: String
    public var model: String
    public var condition: String
    public var replacementCost: String
    public var actualCashValue: String

    public init(brand: String, productName: String, model: String, condition: String, replacementCost: String, actualCashValue: String) {
        self.brand = brand
        self.productName = productName
        self.model = model
        self.condition = condition
        self.replacementCost = replacementCost
        self.actualCashValue = actualCashValue
    }
}

/// Spaces the calls to each provider (`valuation.requestsPerMinute`), across every batch of the process.
public actor ProviderPacer {
    let interval: Duration
    private var next: [String: ContinuousClock.Instant] = [:]

    public init(requestsPerMinute: Int) {
        interval = requestsPerMinute > 0 ? .milliseconds(60_000 / requestsPerMinute) : .zero
    }

    /// Waits for this provider's turn.
    public func turn(_ provider: String) async throws {
        guard interval > .zero else { return }
        let now = ContinuousClock.now
        let at = max(now, next[provider] ?? now)
        next[provider] = at + interval
        if at > now { try await Task.sleep(until: at, clock: .continuous) }
    }
}

extension ValuationService {
    /// The most items one batch takes.
    public static let batchLimit = 500

    /// Queues a batch for these items and photos to value new things from (the household's; at most `batchLimit`).
    public func startBatch(_ household: HouseholdID, items: [ItemID], photos: [UUID] = [], queue: JobQueue) async throws -> Job {
        guard !items.isEmpty || !photos.isEmpty else { throw DomainError.invalid(field: "items", message: "Choose at least one item or photo to value.") }
        guard items.count + photos.count <= Self.batchLimit else {
            throw DomainError.invalid(field: "items", message: "A batch values at most \(Self.batchLimit) items; narrow the search.")
        }
        for photo in photos { _ = try await attachments.intakePhoto(household, photo) }
        return try await queue.enqueue(household, kind: JobKind.valuation, payload: ValuationBatchRequest(
            items: items.map(\.description), photos: photos.isEmpty ? nil : photos.map { $0.uuidString.lowercased() }))
    }

    /// The items a batch would value (at most one more than `batchLimit`, so a caller can say there are too many): those
    /// without a valuation (`missing`), else those of an inventory search and its filters, in its order.
    public func batchSelection(_ household: HouseholdID, missing: Bool, query: ItemQuery, items: ItemsService) async throws -> [ItemListing] {
        if missing {
            return try await items.listings(household, ids: try await store.itemsWithoutValuation(household, limit: Self.batchLimit + 1))
        }
        var query = query
        query.limit = ItemQuery.maxLimit
        var found: [ItemListing] = []
        repeat {
            let page = try await items.search(household, query)
            found += page.elements
            query.after = page.nextCursor
        } while query.after != nil && found.count <= Self.batchLimit
        return found
    }

    /// A photo to value of this household (another household's is not found).
    public func intakePhoto(_ household: HouseholdID, _ id: UUID) async throws -> IntakePhoto {
        try await attachments.intakePhoto(household, id)
    }

    /// The photos of a batch's page (to value new things from) and what became of each, in the order given.
    public func photoEntries(_ job: Job) throws -> [(id: UUID, outcome: ValuationBatchItem?)] {
        let request = try job.decodedPayload(as: ValuationBatchRequest.self)
        let outcomes = Self.outcomes(job)
        return (request.photos ?? []).compactMap { text in UUID(uuidString: text).map { ($0, outcomes["photo:" + text]) } }
    }

    /// The items of a batch's page: the job and what became of each item, in the order asked.
    public func batch(_ household: HouseholdID, _ id: JobID) async throws -> (job: Job, items: [(id: ItemID, outcome: ValuationBatchItem?)]) {
        let job = try await jobs.job(household, id)
        guard job.kind == JobKind.valuation else { throw DomainError.notFound("The batch") }
        let request = try job.decodedPayload(as: ValuationBatchRequest.self)
        let outcomes = Self.outcomes(job)
        return (job, request.items.compactMap { text in ItemID(string: text).map { ($0, outcomes[text]) } })
    }

    static func outcomes(_ job: Job) -> [String: ValuationBatchItem] {
        guard let text = job.itemResults else { return [:] }
        return (try? JSONDecoder().decode([String: ValuationBatchItem].self, from: Data(text.utf8))) ?? [:]
    }

    /// A new batch of a batch's failed items not yet tried again; each is marked with it on this batch's page.
    public func retryFailed(_ household: HouseholdID, _ id: JobID, queue: JobQueue) async throws -> Job {
        let (job, items) = try await batch(household, id)
        let waiting = { (outcome: ValuationBatchItem?) in outcome?.status == .failed && outcome?.retriedIn == nil }
        let failed = items.filter { waiting($0.outcome) }
        let failedPhotos = try photoEntries(job).filter { waiting($0.outcome) }
        guard !failed.isEmpty || !failedPhotos.isEmpty else { throw DomainError.invalid(field: "items", message: "No item of this batch failed.") }
        let retry = try await startBatch(household, items: failed.map(\.id), photos: failedPhotos.map(\.id), queue: queue)
        let entries = failed.map { ($0.id.description, $0.outcome!) } + failedPhotos.map { ("photo:" + $0.id.uuidString.lowercased(), $0.outcome!) }
        for (key, outcome) in entries {
            var marked = outcome
            marked.retriedIn = retry.id.description
            try await jobs.updateJobItemResult(household, job.id, key: key, result: try JSONEncoder.jobText(marked), now: now())
        }
        return retry
    }

    /// Values one item: identifies it from its photos when photo analysis is set (else from its own fields), and
    /// proposes the offline estimate from its price (market prices come in when market search is set). Provider
    /// errors are thrown as they are; the caller decides whether they stop the batch.
    func propose(_ household: HouseholdID, _ id: ItemID, analyzer: (any PhotoAnalyzing)?, searcher: (any MarketSearching)?, pacer: ProviderPacer,
                 photos: @Sendable ([Attachment]) async -> [Data], identification known: Identification? = nil,
                 condition: ItemCondition? = nil, replacementCost: Money? = nil) async throws -> ValuationBatchItem {
        let item = try await items.item(household, id)
        var identification = known ?? Self.identification(of: item)
        let itemPhotos = known == nil && analyzer != nil ? try await attachments.photos(household, of: id) : []
        if let analyzer, !itemPhotos.isEmpty {
            let bytes = await photos(Array(itemPhotos.prefix(4)).map(\.attachment))
            if !bytes.isEmpty {
                try await pacer.turn("analysis")
                identification = try await analyzer.identify(photos: bytes, hint: item.name)
            }
        }
        let (day, at) = (try await today(household), now())
        let chosen = condition ?? identification.condition ?? item.condition
        // Market prices: used ones for what it is worth, new ones for what a like item costs; per unit, times the quantity.
        let market = try await marketEstimates(household, identification, currency: item.currency, searcher: searcher, pacer: pacer)
        let marketRCV = try market.rcv.map { try Self.times($0.value, item.quantity) }
        let proposal: ValuationProposal
        do {
            let offline = try await self.offline(household, item: item, on: day, at: at, replacementCost: replacementCost ?? marketRCV?.value,
                                                 condition: chosen)
            proposal = try marketProposal(market, quantity: item.quantity, offline: offline, on: day, at: at, subject: item.id)
                ?? ValuationProposal(offline)
        } catch let error as DomainError {
            return ValuationBatchItem(status: .failed, name: item.name, identification: identification, proposal: nil,
                                      error: "\(error.message) Or set market search in Settings → Valuation.")
        }
        return ValuationBatchItem(status: .proposed, name: item.name, identification: identification, proposal: proposal, error: nil)
    }

    /// New and used market prices for what was identified (none without a search or a product name): the new ones for
    /// the replacement cost, the used ones for the actual cash value, per unit, in `currency`.
    func marketEstimates(_ household: HouseholdID, _ identification: Identification, currency: CurrencyCode, searcher: (any MarketSearching)?,
                         pacer: ProviderPacer) async throws -> (rcv: MarketEstimate?, acv: MarketEstimate?) {
        guard let searcher, !identification.productName.isEmpty else { return (nil, nil) }
        let rates = try await exchangeRates(household).rates(into: currency)
        func search(used: Bool) async throws -> MarketEstimate? {
            let query = MarketQuery(brand: identification.brand, productName: identification.productName, model: identification.model, used: used)
            try await pacer.turn("search")
            let results = try await searcher.search(query)
            return MarketEstimator.estimate(results, query: query, currency: currency, rates: rates, fetchedAt: now())
        }
        return (try await search(used: false), try await search(used: true))
    }

    /// A market proposal from new and used estimates (nil when neither found a price): per-unit prices times the
    /// quantity; a figure the market did not give comes from `offline`, which is also shown beside a value of low
    /// confidence.
    func marketProposal(_ market: (rcv: MarketEstimate?, acv: MarketEstimate?), quantity: Int, offline: Valuation?, on day: CalendarDate,
                        at: Date, subject: ItemID) throws -> ValuationProposal? {
        let estimates = [market.rcv, market.acv].compactMap { $0 }
        guard !estimates.isEmpty else { return nil }
        let confidence: Valuation.Confidence = estimates.contains { $0.confidence == .low } ? .low
            : estimates.contains { $0.confidence == .medium } ? .medium : .high
        let explanation = [market.rcv.map { "New: \($0.explanation)" }, market.acv.map { "Used: \($0.explanation)" }]
            .compactMap { $0 }.map { $0.hasSuffix(".") ? $0 : $0 + "." }.joined(separator: " ")
        let fromOffline = market.acv == nil && offline?.actualCashValue != nil
        let valuation = try Valuation(
            itemID: subject, replacementCost: try market.rcv.map { try Self.times($0.value, quantity) } ?? offline?.replacementCost,
            actualCashValue: try market.acv.map { try Self.times($0.value, quantity) } ?? offline?.actualCashValue, method: .market,
            confidence: confidence, valuedOn: day, sources: estimates.flatMap(\.sources),
            explanation: explanation + (fromOffline ? " No used price was found: the actual cash value is the offline estimate from the new price." : ""),
            createdAt: at)
        return ValuationProposal(valuation, offline: confidence == .low ? offline?.actualCashValue : nil)
    }

    // MARK: - From photos alone

    /// Values a new thing from a photo: identified by the photo analysis (when set; else its fields wait for the
    /// person), priced by the market search (when set), in the household's currency. No item exists until Save.
    func proposePhoto(_ household: HouseholdID, _ idText: String, analyzer: (any PhotoAnalyzing)?, searcher: (any MarketSearching)?,
                      pacer: ProviderPacer, photos: @Sendable ([Attachment]) async -> [Data], identification known: Identification? = nil)
        async throws -> ValuationBatchItem {
        guard let id = UUID(uuidString: idText) else { throw DomainError.notFound("The photo to value") }
        let intake = try await attachments.intakePhoto(household, id)
        var identification = known ?? Identification(brand: "", productName: "")
        if known == nil, let analyzer {
            let bytes = await photos([intake.attachment])
            guard !bytes.isEmpty else { throw DomainError.invalid(field: "photo", message: "This photo cannot be read.") }
            try await pacer.turn("analysis")
            identification = try await analyzer.identify(photos: bytes, hint: nil)
        }
        let owner = try await accounts.household(household)
        let market = try await marketEstimates(household, identification, currency: owner.currency, searcher: searcher, pacer: pacer)
        let proposal = try marketProposal(market, quantity: 1, offline: nil, on: owner.day(at: now()), at: now(), subject: ItemID())
        return ValuationBatchItem(status: .proposed, name: identification.productName.isEmpty ? "New item" : identification.productName,
                                  identification: identification, proposal: proposal,
                                  error: analyzer == nil ? "Say what it is: photo analysis is not set in Settings → Valuation." : nil)
    }

    /// A photo's proposal again, with the reviewed fields (searched again when market search is set).
    public func recalculatePhoto(_ household: HouseholdID, batch id: JobID, photo: UUID, _ review: ValuationReview) async throws -> ValuationBatchItem {
        let job = try await jobs.job(household, id)
        guard let entry = try photoEntries(job).first(where: { $0.id == photo }) else { throw DomainError.notFound("The photo in this batch") }
        let currency = try await accounts.household(household).currency
        let (identification, _, _) = try reviewed(review, currency: currency, previous: entry.outcome?.identification)
        let outcome = try await proposePhoto(household, photo.uuidString, analyzer: nil, searcher: try await configuredSearcher(household),
                                             pacer: ProviderPacer(requestsPerMinute: 0), photos: { _ in [] }, identification: identification)
        try await jobs.updateJobItemResult(household, job.id, key: "photo:" + photo.uuidString.lowercased(), result: try JSONEncoder.jobText(outcome),
                                           now: now())
        return outcome
    }

    /// Saves a reviewed photo: makes the item (within the household's plan) with what was identified and the photo as
    /// its main one, then keeps the value, if any, in its history.
    public func savePhoto(_ household: HouseholdID, batch id: JobID, photo: UUID, _ review: ValuationReview, items: ItemsService) async throws -> Item {
        let job = try await jobs.job(household, id)
        guard let entry = try photoEntries(job).first(where: { $0.id == photo }), var outcome = entry.outcome, outcome.status == .proposed else {
            throw DomainError.notFound("A proposal for this photo")
        }
        let currency = try await accounts.household(household).currency
        let (identification, condition, _) = try reviewed(review, currency: currency, previous: outcome.identification)
        var errors = FieldErrors()
        let rcv = errors.collect { try Self.amount(review.replacementCost, currency: currency, field: "replacementCost") } ?? nil
        let acv = errors.collect { try Self.amount(review.actualCashValue, currency: currency, field: "actualCashValue") } ?? nil
        try errors.throwIfAny()
        var draft = ItemDraft(name: String(identification.productName.prefix(200)), brand: identification.brand, modelNumber: identification.model,
                              currency: currency, condition: condition ?? identification.condition ?? .good)
        if let code = identification.barcode, GTIN(code) != nil { draft.barcode = code }
        let (at, day) = (now(), try await today(household))
        let item = try await items.create(household, draft, today: day)
        _ = try await attachments.attachIntakePhoto(household, photo, to: item.id, now: at)
        if rcv != nil || acv != nil {
            let proposal = outcome.proposal
            let unchanged = proposal != nil && rcv == proposal?.replacementCost?.value && acv == proposal?.actualCashValue?.value
            let valuation = try Valuation(
                itemID: item.id, replacementCost: unchanged ? proposal!.replacementCost : rcv.map(ValueRange.init(exactly:)),
                actualCashValue: unchanged ? proposal!.actualCashValue : acv.map(ValueRange.init(exactly:)),
                method: unchanged ? .market : .manual, confidence: unchanged ? proposal!.confidence : .high, valuedOn: day,
                sources: unchanged ? proposal!.sources : [], explanation: unchanged ? proposal!.explanation : "Entered when the item was made from a photo.",
                createdAt: at)
            try await store.addValuation(household, valuation)
        }
        outcome.status = .saved
        outcome.identification = identification
        outcome.createdItem = item.id.description
        outcome.name = item.name
        try await jobs.updateJobItemResult(household, job.id, key: "photo:" + photo.uuidString.lowercased(), result: try JSONEncoder.jobText(outcome),
                                           now: at)
        return item
    }

    /// A per-unit range times a quantity.
    static func times(_ range: ValueRange, _ quantity: Int) throws -> ValueRange {
        guard quantity > 1 else { return range }
        let q = Int64(quantity)
        return try ValueRange(value: try range.value.scaled(by: q, over: 1), low: try range.low.scaled(by: q, over: 1), high: try range.high.scaled(by: q, over: 1))
    }

    /// Runs the proposal again with the reviewed fields (the condition changes the offline estimate; a replacement
    /// cost entered is the one it starts from), keeping the batch's page current.
    public func recalculate(_ household: HouseholdID, batch id: JobID, item itemID: ItemID, _ review: ValuationReview) async throws -> ValuationBatchItem {
        let (job, entries) = try await batch(household, id)
        guard let entry = entries.first(where: { $0.id == itemID }) else { throw DomainError.notFound("The item in this batch") }
        let item = try await items.item(household, itemID)
        let (identification, condition, rcv) = try reviewed(review, currency: item.currency, previous: entry.outcome?.identification)
        let outcome = try await propose(household, itemID, analyzer: nil, searcher: try await configuredSearcher(household),
                                        pacer: ProviderPacer(requestsPerMinute: 0), photos: { _ in [] },
                                        identification: identification, condition: condition, replacementCost: rcv)
        try await jobs.updateJobItemResult(household, job.id, key: itemID.description, result: try JSONEncoder.jobText(outcome), now: now())
        return outcome
    }

    /// Saves a reviewed proposal into the item's history and fills the item's empty brand, model and barcode from
    /// what was identified (never overwriting what is there). Figures changed in review are kept as entered by hand.
    public func save(_ household: HouseholdID, batch id: JobID, item itemID: ItemID, _ review: ValuationReview) async throws -> Valuation {
        let (job, entries) = try await batch(household, id)
        guard let entry = entries.first(where: { $0.id == itemID }), let outcome = entry.outcome, let proposal = outcome.proposal else {
            throw DomainError.notFound("A proposal for this item")
        }
        let item = try await items.item(household, itemID)
        let (identification, _, _) = try reviewed(review, currency: item.currency, previous: outcome.identification)
        var errors = FieldErrors()
        let rcv = errors.collect { try Self.amount(review.replacementCost, currency: item.currency, field: "replacementCost") } ?? nil
        let acv = errors.collect { try Self.amount(review.actualCashValue, currency: item.currency, field: "actualCashValue") } ?? nil
        if rcv == nil, acv == nil, errors.isEmpty {
            errors.append(FieldError(field: "actualCashValue", message: "Keep a replacement cost, an actual cash value, or both."))
        }
        try errors.throwIfAny()
        return try await keep(household, job: job, item: item, outcome: outcome, proposal: proposal, identification: identification, rcv: rcv, acv: acv)
    }

    /// Saves every proposal of the batch's items not yet saved as it was proposed, as Save does for each with nothing
    /// changed in review (photos to add as new items are left to review one by one). Returns how many were saved.
    public func saveProposed(_ household: HouseholdID, batch id: JobID) async throws -> Int {
        let (job, entries) = try await batch(household, id)
        var saved = 0
        for entry in entries {
            guard let outcome = entry.outcome, outcome.status == .proposed, let proposal = outcome.proposal else { continue }
            let item: Item
            do { item = try await items.item(household, entry.id) } catch DomainError.notFound { continue }  // deleted since
            _ = try await keep(household, job: job, item: item, outcome: outcome, proposal: proposal,
                               identification: outcome.identification ?? Self.identification(of: item),
                               rcv: proposal.replacementCost?.value, acv: proposal.actualCashValue?.value)
            saved += 1
        }
        return saved
    }

    /// Adds the valuation (the proposal's own when the figures are as proposed, else one entered by hand), fills the
    /// item's empty brand, model and barcode, and marks the entry saved.
    private func keep(_ household: HouseholdID, job: Job, item: Item, outcome: ValuationBatchItem, proposal: ValuationProposal,
                      identification: Identification, rcv: Money?, acv: Money?) async throws -> Valuation {
        let (at, day) = (now(), try await today(household))
        let unchanged = rcv == proposal.replacementCost?.value && acv == proposal.actualCashValue?.value
        let valuation = try Valuation(
            itemID: item.id,
            replacementCost: unchanged ? proposal.replacementCost : rcv.map(ValueRange.init(exactly:)),
            actualCashValue: unchanged ? proposal.actualCashValue : acv.map(ValueRange.init(exactly:)),
            method: unchanged ? proposal.method : .manual, confidence: unchanged ? proposal.confidence : .high, valuedOn: day,
            sources: unchanged ? proposal.sources : [],
            explanation: unchanged ? proposal.explanation : "Entered in review of a batch (proposed: \(proposal.actualCashValue?.value.formatted ?? proposal.replacementCost?.value.formatted ?? "—")).",
            createdAt: at)
        var outcome = outcome
        outcome.status = .saved
        outcome.identification = identification
        let result = try JSONEncoder.jobText(outcome)
        try await store.addValuation(household, valuation)
        var draft = item.draft
        var filled = false
        if draft.brand == nil, !identification.brand.isEmpty { draft.brand = identification.brand; filled = true }
        if draft.modelNumber == nil, let model = identification.model, !model.isEmpty { draft.modelNumber = model; filled = true }
        if draft.barcode == nil, let code = identification.barcode, !code.isEmpty, GTIN(code) != nil { draft.barcode = code; filled = true }
        if filled { _ = try await items.updateItem(household, item.id, draft, now: at, today: day) }
        try await jobs.updateJobItemResult(household, job.id, key: item.id.description, result: result, now: at)
        return valuation
    }

    /// What the item's own fields say it is, before anything identified it.
    static func identification(of item: Item) -> Identification {
        Identification(brand: item.brand ?? "", productName: item.name, model: item.modelNumber, barcode: item.barcode, condition: item.condition)
    }

    /// The review's identified fields, checked: the product's name required (not the brand: a table, a rug or a quilt
    /// often has none), the condition one of the five.
    func reviewed(_ review: ValuationReview, currency: CurrencyCode, previous: Identification?) throws -> (Identification, ItemCondition?, Money?) {
        var errors = FieldErrors()
        let brand = review.brand.trimmingCharacters(in: .whitespacesAndNewlines)
        let product = review.productName.trimmingCharacters(in: .whitespacesAndNewlines)
        if product.isEmpty { errors.append(FieldError(field: "productName", message: "Enter the product’s name.")) }
        if brand.count > 200 || product.count > 200 { errors.append(FieldError(field: "productName", message: "Keep names under 200 characters.")) }
        let condition = ItemCondition(rawValue: review.condition)
        if !review.condition.isEmpty, condition == nil { errors.append(FieldError(field: "condition", message: "Choose one of the five conditions.")) }
        let rcv = errors.collect { try Self.amount(review.replacementCost, currency: currency, field: "replacementCost") } ?? nil
        try errors.throwIfAny()
        var identification = previous ?? Identification(brand: brand, productName: product)
        identification.brand = brand
        identification.productName = product
        let model = review.model.trimmingCharacters(in: .whitespacesAndNewlines)
        identification.model = model.isEmpty ? nil : String(model.prefix(200))
        identification.condition = condition ?? identification.condition
        return (identification, condition, rcv)
    }
}

/// Runs a valuation batch: item by item, each outcome kept as it is reached, so a restart goes on where it stopped
/// and another device sees the progress. An error that needs the owner (a refused key, no quota, a plan limit)
/// stops the batch with what to fix; any other error is that item's, and the batch goes on.
public struct ValuationJobHandler: JobHandler {
    let valuations: ValuationService
    let items: ItemsService
    let pacer: ProviderPacer
    /// Items valued at once.
    let width: Int
    public let kind = JobKind.valuation
    public let concurrency = 1
    public let retry = RetryPolicy(maxAttempts: 3, resumesAfterStop: true)

    public init(valuations: ValuationService, items: ItemsService, pacer: ProviderPacer, width: Int = 4) {
        self.valuations = valuations
        self.items = items
        self.pacer = pacer
        self.width = max(1, width)
    }

    public struct Summary: Codable, Sendable {
        public let proposed: Int
        public let failed: Int
    }

    public func run(_ job: Job, context: JobContext) async throws -> String {
        let request = try job.decodedPayload(as: ValuationBatchRequest.self)
        var outcomes = ValuationService.outcomes(job)
        let providers = try await valuations.configuredProviders(job.householdID)
        let household = job.householdID
        let photos: @Sendable ([Attachment]) async -> [Data] = { [items, valuations] list in
            var out: [Data] = []
            for photo in list {
                // The household's own file (checked here), its bytes read off the job's thread (a GET from an object store).
                guard (try? await valuations.attachments.attachment(household, sha256: photo.sha256)) != nil,
                      let data = try? await items.storedFile(photo.sha256),
                      let jpeg = await items.rendition(of: data, sha256: photo.sha256, .display) else { continue }
                out.append(jpeg)
            }
            return out
        }
        // Several items at a time (`width`), so a batch is bound by the providers' rate (the pacer), not by their
        // latency; each outcome is kept as it comes.
        let (analyzer, searcher, pacer) = (providers.analyzer, providers.searcher, pacer)
        let value: @Sendable (String) async throws -> ValuationBatchItem = { [valuations] text in
            let photo = text.hasPrefix("photo:")
            let id = photo ? nil : ItemID(string: text)
            func failed(_ message: String) async -> ValuationBatchItem {
                var name = photo ? "A photo" : "An item"
                if let id, let item = try? await valuations.items.item(household, id) { name = item.name }
                return ValuationBatchItem(status: .failed, name: name, identification: nil, proposal: nil, error: message)
            }
            do {
                if photo {
                    return try await valuations.proposePhoto(household, String(text.dropFirst(6)), analyzer: analyzer, searcher: searcher, pacer: pacer,
                                                             photos: photos)
                }
                guard let id else { return await failed("Not an item.") }
                return try await valuations.propose(household, id, analyzer: analyzer, searcher: searcher, pacer: pacer, photos: photos)
            } catch let error as ProviderError {
                // What needs the owner stops the batch; anything else is this entry's.
                if error.stopsBatch { throw JobFailure(code: "provider_refused", message: error.description) }
                return await failed(error.description)
            } catch let error as DomainError {
                return await failed(error.message)
            }
        }
        let keys = request.keys
        let total = Int64(keys.count)
        var pending = keys.filter { outcomes[$0] == nil }.makeIterator()
        var done = total - Int64(keys.filter { outcomes[$0] == nil }.count)
        try context.progress(done: done, total: total)
        try await withThrowingTaskGroup(of: (String, ValuationBatchItem).self) { group in
            func startNext() -> Bool {
                guard let text = pending.next() else { return false }
                group.addTask { (text, try await value(text)) }
                return true
            }
            for _ in 0..<width where !startNext() { break }
            while let (text, outcome) = try await group.next() {
                outcomes[text] = outcome
                try context.itemResult(text, outcome)
                done += 1
                try context.progress(done: done, total: total)
                _ = startNext()
            }
        }
        try context.progress(done: total, total: total)
        let values = Array(outcomes.values)
        return try JSONEncoder.jobText(Summary(proposed: values.filter { $0.status != .failed }.count, failed: values.filter { $0.status == .failed }.count))
    }
}
