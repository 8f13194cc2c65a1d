import Foundation
import NestoryHTTP
import NestoryDomain
import NestoryStoreInterfaces
import NestoryImagingLive
import NestoryJobs
import NestoryServices
import NestoryStore
import NestoryValuation
import Testing

/// Providers made here: the analyser names a product from the item's name (refusing one), the search answers with
/// listings whose prices the real estimator reads. What they were asked is kept, to check.
final class FakeProviders: ValuationProviderMaking, @unchecked Sendable {
    let lock = NSLock()
    var queries: [MarketQuery] = []
    var photosSeen: [Int] = []
    var stopWith: ProviderError?
    /// Where each analyser made was told to connect.
    var addresses: [String?] = []

    struct Analyzer: PhotoAnalyzing {
        let owner: FakeProviders
        func identify(photos: [Data], hint: String?) async throws(ProviderError) -> Identification {
            owner.lock.withLock { owner.photosSeen.append(photos.count) }
            if let stop = owner.lock.withLock({ owner.stopWith }) { throw stop }
            if hint == "Mystery box" { throw .refused("I can't tell what this is.") }
            return Identification(brand: "Acme", productName: hint ?? "Thing", model: "X-100", barcode: nil, condition: .good)
        }
    }

    struct Searcher: MarketSearching {
        let owner: FakeProviders
        func search(_ query: MarketQuery) async throws(ProviderError) -> [SearchResult] {
            owner.lock.withLock { owner.queries.append(query) }
            let prices = query.productName == "Euro kettle" ? ["€50,00", "€50,00", "€50,00"]
                : query.used ? ["$100.00", "$110.00", "$120.00", "$130.00", "$900.00"] : ["$200.00", "$210.00", "$220.00"]
            return prices.enumerated().map { index, price in
                SearchResult(url: "https://shop.example/\(query.used ? "used" : "new")/\(index)", title: "\(query.brand) \(query.productName)",
                             content: "\(query.used ? "Used" : "New"), in good shape. \(price)")
            }
        }
    }

    func analyzer(baseURL: URL, model: String, apiKey: String, connectingTo address: String?) -> any PhotoAnalyzing {
        lock.withLock { addresses.append(address) }
        return Analyzer(owner: self)
    }
    func searcher(apiKey: String, country: String?) -> any MarketSearching { Searcher(owner: self) }
}

@Suite("Valuation batches: per-item proposals from photos and market prices, review, retry, a stop for a bad key")
struct ValuationBatchTests {
    final class Fixture: @unchecked Sendable {
        let folder = DataFolder(path: FileManager.default.temporaryDirectory.appendingPathComponent("nestory-batch-\(UUID())").path)
        let database: AppDatabase
        let providers = FakeProviders()
        let valuations: ValuationService
        let items: ItemsService
        let runner: JobRunner
        let household: Household
        var task: Task<Void, any Error>?

        init(width: Int = 4, pro: Bool = true) throws {
            database = try AppDatabase.open(folder)
            let blocking = BlockingPool(width: 2)
            valuations = ValuationService.sqlite(database, providers: providers)
            items = ItemsService.sqlite(database, imaging: try LibvipsImageProcessor(), blocking: blocking, maxBytes: 5_000_000,
                                 plan: PlanService(licences: SQLiteLicenceStore(database), instancePro: pro))
            runner = JobRunner(jobs: SQLiteJobStore(database), handlers: [ValuationJobHandler(valuations: valuations, items: items, pacer: ProviderPacer(requestsPerMinute: 0), width: width)],
                               pollInterval: .milliseconds(20))
            household = try database.createHousehold(name: "Smiths", currency: .usd, now: Date())
            let runner = runner
            task = Task { try await runner.run() }
        }

        func item(_ name: String, price: String?) throws -> Item {
            var draft = ItemDraft(name: name, currency: .usd)
            draft.purchasePrice = try price.map { try Money.parse($0, currency: .usd) }
            draft.purchaseDate = try CalendarDate(iso: "2022-01-15")
            return try database.createItem(household.id, draft, now: Date())
        }

        func finished(_ job: Job) async throws -> Job {
            for _ in 0..<500 {
                if let now = try database.job(job.id), now.state.isFinished { return now }
                try await Task.sleep(for: .milliseconds(20))
            }
            Issue.record("the batch did not finish")
            return try #require(try database.job(job.id))
        }

        deinit {
            task?.cancel()
            try? FileManager.default.removeItem(atPath: folder.path)
        }
    }

    @Test("with no provider set, each item gets the offline estimate; one without a price fails and the rest go on")
    func offline() async throws {
        let f = try Fixture()
        let lamp = try f.item("Lamp", price: "80"), vase = try f.item("Vase", price: nil)
        let job = try await f.finished(try await f.valuations.startBatch(f.household.id, items: [lamp.id, vase.id], queue: f.runner.queue()))
        #expect(job.state == .succeeded && job.done == 2)
        let outcomes = Dictionary(uniqueKeysWithValues: try await f.valuations.batch(f.household.id, job.id).items.map { ($0.id, $0.outcome) })
        #expect(outcomes[lamp.id]??.status == .proposed && outcomes[lamp.id]??.proposal?.method == .offline)
        #expect(outcomes[vase.id]??.status == .failed && outcomes[vase.id]??.error?.contains("purchase price") == true)
        #expect(f.providers.queries.isEmpty)
        // Nothing is kept before review.
        #expect(try await f.valuations.history(f.household.id, item: lamp.id).isEmpty)
    }

    @Test("with providers: identified, priced from used and new listings (an outlier dropped), reviewed, recalculated, saved; a refusal is that item's")
    func market() async throws {
        let f = try Fixture()
        try await f.valuations.saveProviders(f.household.id, by: .owner, ValuationProviderForm(analysisKey: "sk-test-1234", searchKey: "tvly-5678"))
        let kettle = try f.item("Kettle", price: "40")
        let mystery = try f.item("Mystery box", price: "10")
        // Photos go to the analyser (its display rendition); items without photos are identified from their fields.
        let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC")!
        _ = try await f.items.addPhoto(f.household.id, to: mystery.id) { upload in try png.withUnsafeBytes { try upload.append($0) } }
        let job = try await f.finished(try await f.valuations.startBatch(f.household.id, items: [kettle.id, mystery.id], queue: f.runner.queue()))
        #expect(job.state == .succeeded)
        #expect(f.providers.photosSeen == [1])
        let batch = try await f.valuations.batch(f.household.id, job.id)
        let kettleOutcome = try #require(batch.items.first { $0.id == kettle.id }?.outcome)
        let proposal = try #require(kettleOutcome.proposal)
        #expect(proposal.method == .market && proposal.sources.count >= 7)
        #expect(proposal.actualCashValue?.value == (try Money.parse("115", currency: .usd)))  // median of 100–130; 900 is an outlier
        #expect(proposal.replacementCost?.value == (try Money.parse("210", currency: .usd)))
        #expect(f.providers.queries.contains { $0.used } && f.providers.queries.contains { !$0.used })
        let mysteryOutcome = try #require(batch.items.first { $0.id == mystery.id }?.outcome)
        #expect(mysteryOutcome.status == .failed && mysteryOutcome.error?.contains("declined") == true)

        // Review: the product's name is required (not the brand); a recalculation with the condition changed; then saved, filling the brand.
        await #expect(throws: DomainError.invalid(field: "productName", message: "Enter the product’s name.")) {
            try await f.valuations.save(f.household.id, batch: job.id, item: kettle.id,
                                        ValuationReview(brand: "Acme", productName: " ", model: "", condition: "good", replacementCost: "210", actualCashValue: "115"))
        }
        let recalculated = try await f.valuations.recalculate(f.household.id, batch: job.id, item: kettle.id,
                                                              ValuationReview(brand: "Acme", productName: "Kettle Pro", model: "K2", condition: "fair",
                                                                              replacementCost: "", actualCashValue: ""))
        #expect(recalculated.identification?.productName == "Kettle Pro" && f.providers.queries.last?.productName == "Kettle Pro")
        let saved = try await f.valuations.save(f.household.id, batch: job.id, item: kettle.id,
                                                ValuationReview(brand: "Acme", productName: "Kettle Pro", model: "K2", condition: "fair",
                                                                replacementCost: "210.00", actualCashValue: "115.00"))
        #expect(saved.method == .market && !saved.sources.isEmpty)
        let item = try f.database.item(f.household.id, kettle.id).item
        #expect(item.brand == "Acme" && item.modelNumber == "K2" && item.purchasePrice == kettle.purchasePrice)
        #expect(try await f.valuations.batch(f.household.id, job.id).items.first { $0.id == kettle.id }?.outcome?.status == .saved)

        // Prices in euros count only with the owner's rate: without it nothing is found; with EUR 2, €50 is $100.
        let euro = try f.item("Euro kettle", price: "30")
        let noRate = try await f.finished(try await f.valuations.startBatch(f.household.id, items: [euro.id], queue: f.runner.queue()))
        #expect(try await f.valuations.batch(f.household.id, noRate.id).items.first?.outcome?.proposal?.method == .offline)
        try await f.valuations.saveProviders(f.household.id, by: .owner, ValuationProviderForm(searchCountry: "FR", exchangeRates: "EUR 2"))
        await #expect(throws: DomainError.self) {
            try await f.valuations.saveProviders(f.household.id, by: .owner, ValuationProviderForm(exchangeRates: "EUR two"))
        }
        let withRate = try await f.finished(try await f.valuations.startBatch(f.household.id, items: [euro.id], queue: f.runner.queue()))
        let converted = try #require(try await f.valuations.batch(f.household.id, withRate.id).items.first?.outcome?.proposal)
        #expect(try converted.method == .market && converted.replacementCost?.value == (try Money.parse("100", currency: .usd)))

        // Retry: a new batch of the failed item only.
        let retry = try await f.finished(try await f.valuations.retryFailed(f.household.id, job.id, queue: f.runner.queue()))
        #expect(try await f.valuations.batch(f.household.id, retry.id).items.map(\.id) == [mystery.id])
        // The first batch's page says where its failed item went, and does not offer to try it again a second time.
        let marked = try await f.valuations.batch(f.household.id, job.id).items.first { $0.id == mystery.id }?.outcome
        #expect(marked?.status == .failed && marked?.retriedIn == retry.id.description)
        await #expect(throws: DomainError.invalid(field: "items", message: "No item of this batch failed.")) {
            try await f.valuations.retryFailed(f.household.id, job.id, queue: f.runner.queue())
        }
    }

    @Test("a refused key stops the batch with what to fix (no item is started after it); keys are sealed, not kept in clear")
    func stops() async throws {
        let f = try Fixture(width: 2)
        try await f.valuations.saveProviders(f.household.id, by: .owner, ValuationProviderForm(analysisKey: "sk-secret-9876"))
        f.providers.stopWith = .invalidKey(provider: "OpenAI")
        let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC")!
        var ids: [ItemID] = []
        for name in ["One", "Two", "Three", "Four", "Five", "Six"] {
            let item = try f.item(name, price: "10")
            _ = try await f.items.addPhoto(f.household.id, to: item.id) { upload in try png.withUnsafeBytes { try upload.append($0) } }
            ids.append(item.id)
        }
        let job = try await f.finished(try await f.valuations.startBatch(f.household.id, items: ids, queue: f.runner.queue()))
        #expect(job.state == .failed && job.errorCode == "provider_refused" && job.message?.contains("refused the API key") == true)
        // At most the two items already under way reached the analyser; none after the stop.
        #expect((1...2).contains(f.providers.photosSeen.count))
        #expect(try await f.valuations.batch(f.household.id, job.id).items.allSatisfy { $0.outcome == nil })
        let settings = try f.database.valuationSettings(f.household.id)
        #expect(settings.analysisKey?.hasPrefix("v1:") == true && settings.analysisKey?.contains("9876") == false && settings.analysisKeyHint == "9876")
        #expect(try await f.valuations.providerSettings(f.household.id).analysisKeyHint == "9876")
        // A member may not set them.
        await #expect(throws: DomainError.self) {
            try await f.valuations.saveProviders(f.household.id, by: .member, ValuationProviderForm(analysisKey: "x"))
        }
    }

    @Test("from photos alone: identified and priced, nothing made until saved; saved, an item with the photo and its value; Free's limit holds; unsaved photos expire")
    func photosAlone() async throws {
        let f = try Fixture()
        try await f.valuations.saveProviders(f.household.id, by: .owner, ValuationProviderForm(analysisKey: "sk-test-1234", searchKey: "tvly-5678"))
        let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC")!
        let first = try await f.items.addIntakePhoto(f.household.id) { upload in try png.withUnsafeBytes { try upload.append($0) } }
        let second = try await f.items.addIntakePhoto(f.household.id) { upload in try png.withUnsafeBytes { try upload.append($0) } }
        await #expect(throws: (any Error).self) {
            try await f.items.addIntakePhoto(f.household.id) { upload in try Data("not an image".utf8).withUnsafeBytes { try upload.append($0) } }
        }
        let other = try f.database.createHousehold(name: "Joneses", currency: .usd, now: Date())
        await #expect(throws: DomainError.self) { try await f.valuations.startBatch(other.id, items: [], photos: [first.id], queue: f.runner.queue()) }
        let job = try await f.finished(try await f.valuations.startBatch(f.household.id, items: [], photos: [first.id, second.id], queue: f.runner.queue()))
        #expect(job.state == .succeeded && job.done == 2)
        let entries = try f.valuations.photoEntries(job)
        let proposal = try #require(entries.first?.outcome?.proposal)
        #expect(entries.first?.outcome?.identification?.productName == "Thing" && proposal.method == .market)
        #expect(proposal.actualCashValue?.value == (try Money.parse("115", currency: .usd)))
        #expect(try f.database.itemCount(f.household.id) == 0)

        let review = ValuationReview(brand: "Acme", productName: "Copper kettle", model: "", condition: "like_new", replacementCost: "210.00", actualCashValue: "115.00")
        let item = try await f.valuations.savePhoto(f.household.id, batch: job.id, photo: first.id, review, items: f.items)
        let details = try f.database.item(f.household.id, item.id)
        #expect(details.item.name == "Copper kettle" && details.item.brand == "Acme" && details.item.condition == .likeNew)
        #expect(details.photos.map(\.attachment.sha256) == [first.attachment.sha256] && details.photos.first?.isPrimary == true)
        #expect(try await f.valuations.history(f.household.id, item: item.id).first?.method == .market)
        #expect(try f.valuations.photoEntries(try f.database.job(f.household.id, job.id)).first?.outcome?.createdItem == item.id.description)
        // Saved once only; the photo to value is gone, its file now the item's.
        await #expect(throws: DomainError.self) { try await f.valuations.savePhoto(f.household.id, batch: job.id, photo: first.id, review, items: f.items) }
        #expect(throws: DomainError.self) { try f.database.intakePhoto(f.household.id, first.id) }

        // The unsaved photo stays through housekeeping, then expires after 30 days with its file.
        _ = try f.database.collectGarbage(now: Date())
        #expect(try f.database.intakePhoto(f.household.id, second.id).attachment.sha256 == second.attachment.sha256)
        _ = try f.database.collectGarbage(now: Date().addingTimeInterval(31 * 86_400))
        #expect(throws: DomainError.self) { try f.database.intakePhoto(f.household.id, second.id) }
        // The same bytes are the saved item's photo: its file stays.
        #expect(try f.database.attachmentData(f.household.id, sha256: first.attachment.sha256).1.sha256 == first.attachment.sha256)
    }

    @Test("from photos alone on Free: a household at 100 items cannot add one; the proposal stays to save after upgrading")
    func photosAloneFree() async throws {
        let f = try Fixture(pro: false)
        _ = try f.database.importItems(f.household.id, (0..<100).map { NamedPlaceDraft(draft: ItemDraft(name: "Thing \($0)", currency: .usd), roomName: nil, categoryName: nil) },
                                       now: Date(), today: CalendarDate(Date(), in: .current))
        let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC")!
        let photo = try await f.items.addIntakePhoto(f.household.id) { upload in try png.withUnsafeBytes { try upload.append($0) } }
        let job = try await f.finished(try await f.valuations.startBatch(f.household.id, items: [], photos: [photo.id], queue: f.runner.queue()))
        // No provider set: the person says what it is.
        let outcome = try #require(try f.valuations.photoEntries(job).first?.outcome)
        #expect(outcome.status == .proposed && outcome.error?.contains("photo analysis is not set") == true)
        do {
            _ = try await f.valuations.savePhoto(f.household.id, batch: job.id, photo: photo.id,
                                                 ValuationReview(brand: "Acme", productName: "Lamp", model: "", condition: "good", replacementCost: "", actualCashValue: "40"),
                                                 items: f.items)
            Issue.record("a 101st item was made on Free")
        } catch let error as DomainError {
            guard case .proRequired = error else { Issue.record("expected the Free limit, got \(error)"); return }
        }
        #expect(try f.database.itemCount(f.household.id) == 100)
        #expect(try f.valuations.photoEntries(try f.database.job(f.household.id, job.id)).first?.outcome?.status == .proposed)
    }

    @Test("the operator's providers serve a household that set none; its own keys come first")
    func operatorDefaults() async throws {
        let f = try Fixture()
        let service = ValuationService.sqlite(f.database, providers: f.providers,
                                       defaults: ValuationDefaults(analysisKey: "sk-operator", searchKey: "tvly-operator"))
        let settings = try await service.providerSettings(f.household.id)
        #expect(settings.operatorAnalysis && settings.operatorSearch && settings.analysisConfigured && settings.analysisKeyHint == nil)
        let (analyzer, searcher) = try await service.configuredProviders(f.household.id)
        #expect(analyzer != nil && searcher != nil)
        try await service.saveProviders(f.household.id, by: .owner, ValuationProviderForm(analysisKey: "sk-own-4321"))
        let own = try await service.providerSettings(f.household.id)
        #expect(!own.operatorAnalysis && own.analysisKeyHint == "4321" && own.operatorSearch)
        // Without the operator's keys, nothing is configured for a household that set none.
        let other = try f.database.createHousehold(name: "Joneses", currency: .usd, now: Date())
        #expect(try await f.valuations.configuredProviders(other.id).analyzer == nil)
    }

    /// A household cannot send the server into its own network through its own analysis endpoint: one inside it is
    /// refused when saved (unless the operator allows private addresses), and one stored before (another server's
    /// backup, an older version) stops a batch before anything is sent.
    @Test func aHouseholdsOwnEndpointInsideTheServersNetworkIsNotCalled() async throws {
        let f = try Fixture()
        for endpoint in ["http://127.0.0.1:11434/v1", "http://[::1]/v1", "http://169.254.169.254/latest", "http://localhost:8080/v1"] {
            do {
                try await f.valuations.saveProviders(f.household.id, by: .owner, ValuationProviderForm(analysisBaseURL: endpoint, analysisKey: "sk-test-1234"))
                Issue.record("\(endpoint) was saved")
            } catch let error as DomainError {
                let fields = FieldErrors.fields(of: error)
                #expect(fields.map(\.field) == ["analysisBaseURL"] && fields.first?.message.contains("valuation.allowPrivateEndpoints") == true, "\(fields)")
            }
        }
        #expect(try f.database.valuationSettings(f.household.id).analysisKey == nil)
        // Allowed by the operator: saved. Then the rule is back (or the settings came from elsewhere): nothing is sent.
        let allowing = ValuationService.sqlite(f.database, providers: f.providers, endpoints: .valuationEndpoints(allowPrivate: true))
        try await allowing.saveProviders(f.household.id, by: .owner, ValuationProviderForm(analysisBaseURL: "http://127.0.0.1:11434/v1", analysisKey: "sk-test-1234"))
        #expect(try await allowing.configuredProviders(f.household.id).analyzer is FakeProviders.Analyzer)
        #expect(f.providers.addresses.last == .some(nil))  // private ones allowed: nothing looked up, sent as the name resolves
        let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC")!
        let lamp = try f.item("Lamp", price: "30")
        _ = try await f.items.addPhoto(f.household.id, to: lamp.id) { upload in try png.withUnsafeBytes { try upload.append($0) } }
        let job = try await f.finished(try await f.valuations.startBatch(f.household.id, items: [lamp.id], queue: f.runner.queue()))
        #expect(job.state == .failed && job.errorCode == "provider_refused")
        #expect(job.message?.contains("Nothing was sent to the photo analysis endpoint: 127.0.0.1 is an address inside this server's network") == true,
                "\(job.message ?? "")")
        #expect(f.providers.photosSeen.isEmpty)
        // A public endpoint: its calls go to the address it was checked at.
        try await f.valuations.saveProviders(f.household.id, by: .owner, ValuationProviderForm(analysisBaseURL: "http://93.184.216.34/v1"))
        #expect(try await f.valuations.configuredProviders(f.household.id).analyzer is FakeProviders.Analyzer)
        #expect(f.providers.addresses.last == "93.184.216.34")
    }
}
