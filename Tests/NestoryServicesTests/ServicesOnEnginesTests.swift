import Foundation
import NestoryChildProcess
import NestoryDomain
import NestoryImagingLive
import NestoryJobs
import NestoryProducts
import NestoryReminders
import NestoryServices
import NestoryStore
import NestoryStoreInterfaces
import NestoryStorePostgres
import Testing

/// The engines these tests run the services on: SQLite always; PostgreSQL when a test server is named by
/// `NESTORY_TEST_POSTGRES_URL` (scripts/with-postgres.sh), and required with `NESTORY_REQUIRE_POSTGRES=1`.
enum ServiceEngine: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgres

    var testDescription: String { rawValue }

    static let postgresURL = ProcessInfo.processInfo.environment["NESTORY_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static var available: [ServiceEngine] {
        postgresURL != nil || ProcessInfo.processInfo.environment["NESTORY_REQUIRE_POSTGRES"] == "1" ? [.sqlite, .postgres] : [.sqlite]
    }
}

/// One server: places, items and photos, valuations and product lookup built from one engine's stores and this
/// server's own data folder (its tmp/ and renditions/; on PostgreSQL also its blobs/), with no AppDatabase behind
/// them. Only the plan still reads SQLite (`PlanService`, not moved yet): a Pro instance, which reads nothing.
final class EngineServer: @unchecked Sendable {
    let folder: DataFolder
    let stores: Stores
    let files: BlobStore
    let items: ItemsService
    let places: PlacesService
    let valuations: ValuationService
    let products: ProductLookup
    let secrets: SecretKeys
    private let database: AppDatabase
    private let postgres: PostgresStore?

    static let now = Date(timeIntervalSince1970: 1_795_608_000)  // 2026-11-25 12:00 UTC

    init(_ engine: ServiceEngine, secrets: SecretKeys? = nil) async throws {
        folder = DataFolder(path: FileManager.default.temporaryDirectory.appendingPathComponent("nestory-engine-\(UUID())").path)
        database = try AppDatabase.open(folder)
        switch engine {
        case .sqlite:
            stores = .sqlite(database)
            files = database.blobs
            postgres = nil
        case .postgres:
            guard let url = ServiceEngine.postgresURL else { throw PostgresMissing() }
            files = BlobStore(folder: folder)
            let schema = "t_" + String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20))
            let store = try await PostgresStore.open(.init(location: try PostgresLocation(url: url), schema: schema, maximumConnections: 4, blobs: files))
            stores = .postgres(store, files: files)
            postgres = store
        }
        let blocking = BlockingPool(width: 2)
        let now: @Sendable () -> Date = { EngineServer.now }
        self.secrets = secrets ?? .folder(folder)
        items = ItemsService(items: stores.items, attachments: stores.attachments, accounts: stores.accounts, reminders: stores.reminders,
                             files: files, renditions: RenditionCache(folder: folder), imaging: try LibvipsImageProcessor(), blocking: blocking,
                             maxBytes: 5_000_000, plan: PlanService(licences: stores.licences, instancePro: true), now: now)
        places = PlacesService(items: stores.items, now: now)
        valuations = ValuationService(store: stores.valuations, items: stores.items, accounts: stores.accounts, jobs: stores.jobs,
                                      attachments: stores.attachments, secrets: self.secrets, now: now)
        products = ProductLookup(items: stores.items, store: stores.products, providers: [])
    }

    struct PostgresMissing: Error, CustomStringConvertible {
        var description: String { "NESTORY_REQUIRE_POSTGRES=1 but NESTORY_TEST_POSTGRES_URL is not set: run the tests through scripts/with-postgres.sh" }
    }

    func close() async {
        await postgres?.close()
        try? database.close()
        try? FileManager.default.removeItem(at: folder.url)
    }

    /// Files left in tmp/ (staged uploads neither kept nor removed).
    var leftovers: [String] { (try? FileManager.default.contentsOfDirectory(atPath: folder.tmpURL.path)) ?? [] }

    /// A JPEG of its own bytes (`seed` changes them), made by libvips' command line.
    func jpeg(seed: Int) throws -> Data {
        let ppm = folder.url.appendingPathComponent("source-\(seed).ppm")
        var data = Data("P6\n64 48\n255\n".utf8)
        for y in 0..<48 { for x in 0..<64 { data += [UInt8((x + seed) & 255), UInt8(y & 255), UInt8((x * y + seed) & 255)] } }
        try data.write(to: ppm)
        let out = folder.url.appendingPathComponent("photo-\(seed).jpg")
        try ChildProcess.run("/usr/bin/vips", ["copy", ppm.path, out.path + "[Q=85]"])
        defer { try? FileManager.default.removeItem(at: ppm); try? FileManager.default.removeItem(at: out) }
        return try Data(contentsOf: out)
    }
}

func withServer<T>(_ engine: ServiceEngine, secrets: SecretKeys? = nil, _ body: (EngineServer) async throws -> T) async throws -> T {
    let server = try await EngineServer(engine, secrets: secrets)
    do {
        let result = try await body(server)
        await server.close()
        return result
    } catch {
        await server.close()
        throw error
    }
}

/// The services moved off AppDatabase (places, photos, warranties, valuations and batches, product lookup) give the
/// same answers on SQLite and on PostgreSQL, built from the stores alone.
@Suite struct ServicesOnEnginesTests {
    let today = try! CalendarDate(iso: "2026-11-25")

    @Test(arguments: ServiceEngine.available)
    func placesAreAddedMovedRenamedAndDeletedKeepingTheirItems(engine: ServiceEngine) async throws {
        try await withServer(engine) { server in
            let home = try await server.stores.accounts.createHousehold(name: "Home", currency: .usd, now: EngineServer.now)
            try await server.places.add(.rooms, to: home.id, name: "Workshop", colorHex: nil)
            try await server.places.move(.rooms, try await server.places.rooms(home.id).last!.id.description, in: home.id, .up)
            let rooms = try await server.places.rooms(home.id)
            #expect(rooms.suffix(2).map(\.name) == ["Workshop", Defaults.rooms.last!])
            let workshop = try #require(rooms.first { $0.name == "Workshop" })
            try await server.places.rename(.rooms, workshop.id.description, in: home.id, to: "Studio", colorHex: nil)
            try await server.places.add(.categories, to: home.id, name: "Cameras", colorHex: nil)
            let cameras = try #require(try await server.places.categories(home.id).last)
            #expect(cameras.name == "Cameras" && cameras.colorHex == "#64748B" && cameras.isCustom)
            _ = try await server.items.create(home.id, ItemDraft(name: "Easel", currency: .usd, categoryID: cameras.id, roomID: workshop.id), today: today)
            #expect(try await server.places.counted(.rooms, in: home.id).first { $0.name == "Studio" }?.items == 1)
            #expect(try await server.places.delete(.rooms, workshop.id.description, in: home.id) == 1)
            #expect(try await server.places.delete(.categories, cameras.id.description, in: home.id) == 1)
            #expect(try await server.places.counted(.rooms, in: home.id).map(\.name) == Defaults.rooms)
            await #expect(throws: DomainError.notFound("That room")) { try await server.places.delete(.rooms, "not-an-id", in: home.id) }
        }
    }

    @Test(arguments: ServiceEngine.available)
    func photosAreUploadedOrderedServedAndRemoved(engine: ServiceEngine) async throws {
        try await withServer(engine) { server in
            let home = try await server.stores.accounts.createHousehold(name: "Home", currency: .usd, now: EngineServer.now)
            let other = try await server.stores.accounts.createHousehold(name: "Other", currency: .usd, now: EngineServer.now)
            let lamp = try await server.items.create(home.id, ItemDraft(name: "Lamp", currency: .usd), today: today)
            let first = try await server.items.addPhoto(home.id, to: lamp.id, receive: ItemsServiceTests.send(try server.jpeg(seed: 1))).photo
            let second = try await server.items.addPhoto(home.id, to: lamp.id, receive: ItemsServiceTests.send(try server.jpeg(seed: 2))).photo
            #expect(try await server.items.details(home.id, lamp.id).photos.map(\.id) == [first.id, second.id])
            // The stored file is in this server's files, its renditions in this server's folder.
            #expect(try await server.items.storedFile(first.attachment.sha256).count == Int(first.attachment.byteCount))
            #expect(FileManager.default.fileExists(atPath: RenditionCache(folder: server.folder).url(for: second.attachment.sha256, .thumbnail).path))
            // Moved to the front, it is the main photo; the other made main again; one removed.
            try await server.items.movePhoto(home.id, lamp.id, second.id, by: -1)
            #expect(try await server.items.details(home.id, lamp.id).photos.map(\.id) == [second.id, first.id])
            try await server.items.makeMainPhoto(home.id, lamp.id, first.id)
            #expect(try await server.items.details(home.id, lamp.id).photos.first?.id == first.id)
            try await server.items.reorderPhotos(home.id, lamp.id, [second.id, first.id])
            #expect(try await server.items.search(home.id, ItemQuery()).elements.first?.primaryPhoto?.sha256 == second.attachment.sha256)
            // Another household's, or another item's, photo is not found.
            let vase = try await server.items.create(home.id, ItemDraft(name: "Vase", currency: .usd), today: today)
            await #expect(throws: DomainError.notFound("The photo")) { try await server.items.removePhoto(home.id, vase.id, first.id) }
            await #expect(throws: DomainError.notFound("The photo")) { try await server.items.makeMainPhoto(home.id, vase.id, first.id) }
            await #expect(throws: DomainError.notFound("The item")) { try await server.items.removePhoto(other.id, lamp.id, first.id) }
            await #expect(throws: DomainError.notFound("The item")) {
                try await server.items.addPhoto(other.id, to: lamp.id) { _ in Issue.record("the upload was read") }
            }
            try await server.items.removePhoto(home.id, lamp.id, second.id)
            #expect(try await server.items.details(home.id, lamp.id).photos.map(\.id) == [first.id])
            // Served: a thumbnail made again when this server's cache lost it; the original byte for byte.
            let cache = RenditionCache(folder: server.folder)
            try FileManager.default.removeItem(at: cache.url(for: first.attachment.sha256, .thumbnail))
            let thumb = try await server.items.file(home.id, sha256: first.attachment.sha256, size: "thumb")
            #expect(thumb.contentType == "image/jpeg" && thumb.data == cache.read(first.attachment.sha256, .thumbnail))
            #expect(try await server.items.file(home.id, sha256: first.attachment.sha256, size: "original").data.count == Int(first.attachment.byteCount))
            // A photo to value is kept for a household that exists.
            let intake = try await server.items.addIntakePhoto(home.id, receive: ItemsServiceTests.send(try server.jpeg(seed: 3)))
            #expect(try await server.valuations.intakePhoto(home.id, intake.id).attachment == intake.attachment)
            await #expect(throws: DomainError.notFound("The household")) {
                try await server.items.addIntakePhoto(HouseholdID()) { _ in Issue.record("the upload was read") }
            }
            // Something that is not an image is refused and leaves no temporary file.
            await #expect(throws: (any Error).self) {
                try await server.items.addPhoto(home.id, to: lamp.id, receive: ItemsServiceTests.send(Data(repeating: 7, count: 5_000)))
            }
            #expect(server.leftovers.isEmpty, "\(server.leftovers)")
        }
    }

    @Test(arguments: ServiceEngine.available)
    func warrantiesEndingSoonestFirstWithinTheDays(engine: ServiceEngine) async throws {
        try await withServer(engine) { server in
            let home = try await server.stores.accounts.createHousehold(name: "Home", currency: .usd, now: EngineServer.now)
            let today = CalendarDate(EngineServer.now, in: .current)
            for (name, days) in [("Dryer", 40), ("Kettle", 5), ("Radio", 0), ("Old TV", -3), ("Fridge", 20)] {
                _ = try await server.items.create(home.id, ItemDraft(name: name, currency: .usd, warrantyExpiry: try today.adding(days: days)),
                                                  today: today)
            }
            #expect(try await server.items.warrantiesEnding(home, within: 30).map(\.itemName) == ["Radio", "Kettle", "Fridge"])
            #expect(try await server.items.warrantiesEnding(home, within: 30).map(\.daysLeft) == [0, 5, 20])
        }
    }

    /// A household's days are on its own clock, whatever the server's: at 12:00 UTC on the 25th it is already the 26th on
    /// Kiritimati (UTC+14). Its warranty that ends on the 26th ends today (in the list, and in the webhook's events, which
    /// a job sends for every household at once), a value entered without a day is the 26th's, and so is its export's name.
    @Test(arguments: ServiceEngine.available)
    func aHouseholdsDaysAreOnItsOwnClock(engine: ServiceEngine) async throws {
        try await withServer(engine) { server in
            let (_, away, _) = try await server.stores.accounts.createAccount(
                email: "kai@example.com", displayName: "Kai", passwordHash: "h",
                household: .new(name: "Away", currency: .usd, timeZone: "Pacific/Kiritimati"), role: .owner, onlyIfFirst: false, now: EngineServer.now)
            let home = try await server.stores.accounts.createHousehold(name: "Home", currency: .usd, now: EngineServer.now)
            let theirs = try CalendarDate(iso: "2026-11-26")
            #expect(away.day(at: EngineServer.now) == theirs)
            #expect(CalendarDate(EngineServer.now, in: TimeZone(identifier: "UTC")!) == (try CalendarDate(iso: "2026-11-25")))

            let kettle = try await server.items.create(away.id, ItemDraft(name: "Kettle", currency: .usd, warrantyExpiry: theirs), today: theirs)
            #expect(try await server.items.warrantiesEnding(away, within: 0).map(\.daysLeft) == [0])

            let queue = JobQueue(store: server.stores.jobs, policies: [JobKind.webhook: .once, JobKind.backup: .once], wake: {})
            let reminders = RemindersService(store: server.stores.reminders, blocking: BlockingPool(width: 1), queue: queue,
                                             addressGuard: .webhooks(allowPrivate: true), now: { EngineServer.now })
            for household in [away.id, home.id] {
                try await server.stores.reminders.setWebhook(household, url: "https://example.com/hook", newSecret: "whsec_1", replaceSecret: false,
                                                             now: EngineServer.now)
            }
            #expect(try await reminders.dispatchDue() == 2, "the kettle's last-day reminder, and Away's nudge (the kettle has no photo)")
            let sent = try await server.stores.jobs.jobs(away.id, kind: JobKind.webhook, since: .distantPast)
                .map { try $0.decodedPayload(as: WebhookEvent.self) }.filter { $0.type == "warranty.expiring" }
            #expect(sent.map(\.id) == ["warranty-\(kettle.id)-2026-11-26-0"])
            #expect(sent.first?.data["days_left"] == "0")

            let value = try await server.valuations.enter(away.id, item: kettle.id, replacementCost: "40", actualCashValue: "25")
            #expect(value.valuedOn == theirs)
            #expect(try await server.valuations.today(away.id) == theirs)
            #expect(try await server.valuations.today(home.id) == CalendarDate(EngineServer.now, in: .current))

            let export = try await BackupService(queue: queue, tmp: FileManager.default.temporaryDirectory).startExport(away, now: EngineServer.now)
            #expect(try export.decodedPayload(as: BackupService.Request.self).downloadName == "nestory-Away-2026-11-26.zip")
        }
    }

    @Test(arguments: ServiceEngine.available)
    func valuesAreEstimatedEnteredAndKeptInTheHistory(engine: ServiceEngine) async throws {
        try await withServer(engine) { server in
            let home = try await server.stores.accounts.createHousehold(name: "Home", currency: .usd, now: EngineServer.now)
            let furniture = try #require(try await server.places.categories(home.id).first { $0.name == "Furniture" })
            let chair = try await server.items.create(home.id, ItemDraft(name: "Chair", purchasePrice: try Money.parse("1000", currency: .usd),
                                                                         purchaseDate: try CalendarDate(iso: "2021-11-25"), currency: .usd,
                                                                         categoryID: furniture.id), today: today)
            let estimate = try await server.valuations.estimateOffline(home.id, item: chair.id)
            #expect(try estimate.method == .offline && estimate.replacementCost?.value == (try Money.parse("1000", currency: .usd)))
            #expect(estimate.explanation?.contains("life 15 years") == true)  // the category's life, read through the item store
            // A replacement cost entered by hand is where the next estimate starts.
            _ = try await server.valuations.enter(home.id, item: chair.id, replacementCost: "1500", actualCashValue: "", note: "Quote")
            let again = try await server.valuations.estimateOffline(home.id, item: chair.id)
            #expect(again.replacementCost?.value == (try Money.parse("1500", currency: .usd)))
            #expect(try await server.valuations.history(home.id, item: chair.id).map(\.method) == [.offline, .manual, .offline])
            await #expect(throws: DomainError.notFound("The item")) { try await server.valuations.estimateOffline(home.id, item: ItemID()) }
            // The owner's depreciation table is read back from the valuation store.
            try await server.valuations.saveDepreciationTable(home.id, by: .owner, lives: [:], floor: "25")
            #expect(try await server.valuations.depreciationTable(home.id).floorBasisPoints == 2_500)
            // Exchange rates are read against the household's currency.
            try await server.valuations.saveProviders(home.id, by: .owner, ValuationProviderForm(exchangeRates: "EUR 1.10"))
            #expect(try await server.valuations.exchangeRates(home.id).base == .usd)
        }
    }

    @Test(arguments: ServiceEngine.available)
    func providerKeysOpenWithTheKeyTheServicesAreGiven(engine: ServiceEngine) async throws {
        func randomKey() -> String { Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString() }
        let keyText = randomKey()
        let shared = try SecretBox(base64Key: keyText)
        try await withServer(engine, secrets: .key(shared)) { server in
            let home = try await server.stores.accounts.createHousehold(name: "Home", currency: .usd, now: EngineServer.now)
            try await server.valuations.saveProviders(home.id, by: .owner, ValuationProviderForm(analysisKey: "sk-test-1234"))
            #expect(try await server.valuations.configuredProviders(home.id).analyzer != nil)
            // The key is the one given: nothing is written to the data folder.
            #expect(!FileManager.default.fileExists(atPath: server.folder.secretsKeyURL.path))
            // Another server given the same key opens it (as servers on one database must); one with another key cannot.
            func service(_ secrets: SecretKeys) -> ValuationService {
                ValuationService(store: server.stores.valuations, items: server.stores.items, accounts: server.stores.accounts,
                                 jobs: server.stores.jobs, attachments: server.stores.attachments, secrets: secrets)
            }
            let sealed = try await server.stores.valuations.valuationSettings(home.id).analysisKey
            #expect(try shared.open(try #require(sealed), context: "\(home.id)/analysis") == "sk-test-1234")
            #expect(try await service(.key(SecretBox(base64Key: keyText))).configuredProviders(home.id).analyzer != nil)
            await #expect(throws: SecretBox.Failure.self) {
                try await service(.key(SecretBox(base64Key: randomKey()))).configuredProviders(home.id)
            }
        }
    }

    @Test(arguments: ServiceEngine.available)
    func aBatchRunsOnTheEnginesJobsAndIsReviewedAndSaved(engine: ServiceEngine) async throws {
        try await withServer(engine) { server in
            let home = try await server.stores.accounts.createHousehold(name: "Home", currency: .usd, now: EngineServer.now)
            let lamp = try await server.items.create(home.id, ItemDraft(name: "Lamp", purchasePrice: try Money.parse("80", currency: .usd),
                                                                        purchaseDate: try CalendarDate(iso: "2022-01-15"), currency: .usd), today: today)
            let vase = try await server.items.create(home.id, ItemDraft(name: "Vase", currency: .usd), today: today)
            let job = try await Self.runBatch(server, home.id, [lamp.id, vase.id])
            #expect(job.state == .succeeded && job.done == 2)
            let batch = try await server.valuations.batch(home.id, job.id)
            let outcomes = Dictionary(uniqueKeysWithValues: batch.items.map { ($0.id, $0.outcome) })
            #expect(outcomes[lamp.id]??.status == .proposed && outcomes[lamp.id]??.proposal?.method == .offline)
            #expect(outcomes[vase.id]??.status == .failed && outcomes[vase.id]??.name == "Vase")
            // Reviewed and saved: the value kept, the item's empty brand filled, the batch's page says saved.
            let review = ValuationReview(brand: "Acme", productName: "Lamp", model: "L-1", condition: "good", replacementCost: "", actualCashValue: "50")
            let saved = try await server.valuations.save(home.id, batch: job.id, item: lamp.id, review)
            #expect(try saved.method == .manual && saved.actualCashValue?.value == (try Money.parse("50", currency: .usd)))
            #expect(try await server.items.item(home.id, lamp.id).brand == "Acme")
            #expect(try await server.items.item(home.id, lamp.id).modelNumber == "L-1")
            #expect(try await server.valuations.batch(home.id, job.id).items.first { $0.id == lamp.id }?.outcome?.status == .saved)
            #expect(try await server.valuations.history(home.id, item: lamp.id).map(\.id) == [saved.id])
            await #expect(throws: DomainError.notFound("The job")) { try await server.valuations.batch(HouseholdID(), job.id) }
        }
    }

    /// A valuation batch of these items, run to its end by a job runner of its own.
    static func runBatch(_ server: EngineServer, _ household: HouseholdID, _ items: [ItemID]) async throws -> Job {
        let runner = JobRunner(jobs: server.stores.jobs, handlers: [
            ValuationJobHandler(valuations: server.valuations, items: server.items, pacer: ProviderPacer(requestsPerMinute: 0)),
        ], pollInterval: .milliseconds(20))
        let task = Task { try await runner.run() }
        defer { task.cancel() }
        let queued = try await server.stores.jobs.enqueueJob(household, kind: JobKind.valuation, subject: nil,
                                                             payload: try JSONEncoder.jobText(ValuationBatchRequest(items: items.map(\.description))),
                                                             maxAttempts: 3, now: Date())
        runner.wake()
        var job = queued
        for _ in 0..<500 where !job.state.isFinished {
            try await Task.sleep(for: .milliseconds(20))
            job = try await server.stores.jobs.job(household, queued.id)
        }
        return job
    }

    /// Save all as proposed: each proposal kept as it stands (the offline estimate's own figures and method), an item
    /// with no brand included (Save asked for one: a table or a quilt often has none), a failed item untouched,
    /// nothing saved twice.
    @Test(arguments: ServiceEngine.available)
    func aBatchsProposalsAreSavedAllAtOnce(engine: ServiceEngine) async throws {
        try await withServer(engine) { server in
            let home = try await server.stores.accounts.createHousehold(name: "Home", currency: .usd, now: EngineServer.now)
            func item(_ name: String, brand: String?, price: String?) async throws -> Item {
                try await server.items.create(home.id, ItemDraft(name: name, brand: brand, purchasePrice: try price.map { try Money.parse($0, currency: .usd) },
                                                                 purchaseDate: try CalendarDate(iso: "2022-01-15"), currency: .usd), today: today)
            }
            let lamp = try await item("Lamp", brand: "Acme", price: "80"), quilt = try await item("Quilt", brand: nil, price: "300")
            let vase = try await item("Vase", brand: nil, price: nil)
            let job = try await Self.runBatch(server, home.id, [lamp.id, quilt.id, vase.id])
            #expect(job.state == .succeeded && job.done == 3)
            let proposed = try #require(try await server.valuations.batch(home.id, job.id).items.first { $0.id == lamp.id }?.outcome?.proposal)

            #expect(try await server.valuations.saveProposed(home.id, batch: job.id) == 2)
            let kept = try await server.valuations.history(home.id, item: lamp.id)
            #expect(kept.count == 1 && kept.first?.method == .offline && kept.first?.actualCashValue == proposed.actualCashValue
                    && kept.first?.replacementCost == proposed.replacementCost)
            #expect(try await server.valuations.history(home.id, item: quilt.id).count == 1)
            #expect(try await server.items.item(home.id, quilt.id).brand == nil)
            let statuses = try await server.valuations.batch(home.id, job.id).items.map { $0.outcome?.status }
            #expect(statuses == [.saved, .saved, .failed])
            // Again: nothing more is saved.
            #expect(try await server.valuations.saveProposed(home.id, batch: job.id) == 0)
            #expect(try await server.valuations.history(home.id, item: lamp.id).count == 1)
        }
    }

    /// A proposal for an item with no brand is saved as reviewed without one.
    @Test(arguments: ServiceEngine.available)
    func aProposalIsSavedWithoutABrand(engine: ServiceEngine) async throws {
        try await withServer(engine) { server in
            let home = try await server.stores.accounts.createHousehold(name: "Home", currency: .usd, now: EngineServer.now)
            let table = try await server.items.create(home.id, ItemDraft(name: "Dining table", purchasePrice: try Money.parse("900", currency: .usd),
                                                                         purchaseDate: try CalendarDate(iso: "2020-05-01"), currency: .usd), today: today)
            let job = try await Self.runBatch(server, home.id, [table.id])
            let review = ValuationReview(brand: "", productName: "Dining table", model: "", condition: "good", replacementCost: "", actualCashValue: "400")
            let saved = try await server.valuations.save(home.id, batch: job.id, item: table.id, review)
            let brand = try await server.items.item(home.id, table.id).brand
            #expect(saved.method == .manual && brand == nil)
        }
    }

    /// An export asked for while one of the household's is still waiting (no runner takes it here) is that one, not a
    /// second archive; one asked for with the other choice of the providers' keys is its own.
    @Test(arguments: ServiceEngine.available)
    func anExportAskedForWhileOneWaitsIsThatOne(engine: ServiceEngine) async throws {
        try await withServer(engine) { server in
            let home = try await server.stores.accounts.createHousehold(name: "Home", currency: .usd, now: EngineServer.now)
            let other = try await server.stores.accounts.createHousehold(name: "Other", currency: .usd, now: EngineServer.now)
            let queue = JobQueue(store: server.stores.jobs, policies: [JobKind.backup: .once], wake: {})
            let backups = BackupService(queue: queue, tmp: FileManager.default.temporaryDirectory)
            let first = try await backups.startExport(home, now: Date())
            #expect(try await backups.startExport(home, now: Date()).id == first.id)
            let withKeys = try await backups.startExport(home, now: Date(), includeProviderKeys: true)
            #expect(withKeys.id != first.id)
            #expect(try await backups.startExport(other, now: Date()).id != first.id)
            #expect(try await server.stores.jobs.jobs(home.id, kind: JobKind.backup, since: Date()).count == 2)
        }
    }

    @Test(arguments: ServiceEngine.available)
    func aScannedCodeFindsTheHouseholdsItemInAnySpelling(engine: ServiceEngine) async throws {
        try await withServer(engine) { server in
            let home = try await server.stores.accounts.createHousehold(name: "Home", currency: .usd, now: EngineServer.now)
            let other = try await server.stores.accounts.createHousehold(name: "Other", currency: .usd, now: EngineServer.now)
            let cola = try await server.items.create(home.id, ItemDraft(name: "Cola pack", currency: .usd, barcode: "012345000065"), today: today)
            _ = try await server.items.create(other.id, ItemDraft(name: "Their cola", currency: .usd, barcode: "012345000065"), today: today)
            let found = try await server.products.lookup("0012345000065", household: home.id)
            #expect(found.match?.source == "household" && found.match?.itemID == cola.id.description && found.existingItems == [cola.id.description])
            #expect(try await server.products.lookup("5000112548167", household: home.id).match == nil)
        }
    }
}
