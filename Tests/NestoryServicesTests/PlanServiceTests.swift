import Crypto
import Foundation
import NestoryBackup
import NestoryDomain
import NestoryStoreInterfaces
import NestoryImaging
import NestoryImagingLive
import NestoryImport
import NestoryJobs
import NestoryReports
import NestoryLicences
import NestoryServices
import NestoryStore
import Testing

@Suite("Free and Pro: the plan from licences, and the limits on every path that adds items")
struct PlanServiceTests {
    final class Fixture: @unchecked Sendable {
        let folder = DataFolder(path: FileManager.default.temporaryDirectory.appendingPathComponent("nestory-plan-\(UUID())").path)
        let database: AppDatabase
        let vendor = Curve25519.Signing.PrivateKey()
        let plan: PlanService
        let household: Household
        let blocking = BlockingPool(width: 2)
        let today = CalendarDate(Date(), in: .current)

        init(instancePro: Bool = false) throws {
            database = try AppDatabase.open(folder)
            plan = PlanService(licences: SQLiteLicenceStore(database), verifier: LicenceVerifier(trusted: ["test-1": vendor.publicKey.rawRepresentation]),
                               instancePro: instancePro)
            household = try database.createHousehold(name: "Smiths", currency: .usd, now: Date())
        }

        func licence(for household: HouseholdID? = nil, instance: String? = nil, expires: CalendarDate? = nil, features: [ProFeature] = []) throws -> String {
            try LicenceKey.issue(LicencePayload(keyID: "test-1", licensee: "The Smiths", household: household, instance: instance, features: features,
                                                issued: try CalendarDate(iso: "2026-01-01"), expires: expires), with: vendor)
        }

        func fill(_ count: Int) throws {
            _ = try database.importItems(household.id, (0..<count).map { NamedPlaceDraft(draft: ItemDraft(name: "Thing \($0)", currency: .usd), roomName: nil, categoryName: nil) },
                                         now: Date(), today: today)
        }

        func items() throws -> ItemsService {
            ItemsService.sqlite(database, imaging: try LibvipsImageProcessor(), blocking: blocking, maxBytes: 1_000_000, plan: plan)
        }

        deinit {
            try? database.close()
            try? FileManager.default.removeItem(atPath: folder.path)
        }
    }

    @Test("no licence is Free; a household licence, an instance licence or the operator's setting is Pro; an expired one falls back")
    func entitlement() async throws {
        let f = try Fixture()
        #expect(try await f.plan.entitlement(f.household.id) == .free)
        let instance = try f.database.instanceID()
        #expect(instance.count == 32)
        try await f.plan.install(try f.licence(for: f.household.id, expires: f.today), by: .owner(f.household.id))
        #expect(try await f.plan.entitlement(f.household.id).plan == .pro)
        // Another household on the server stays Free; an instance licence makes every household Pro.
        let other = try f.database.createHousehold(name: "Joneses", currency: .eur, now: Date())
        #expect(try await f.plan.entitlement(other.id).plan == .free)
        try await f.plan.install(try f.licence(instance: instance), by: .operatorCLI)
        #expect(try await f.plan.entitlement(other.id).plan == .pro)
        // The owner of one household may not install a licence for the whole server, nor another household's.
        await #expect(throws: DomainError.self) { try await f.plan.install(try f.licence(instance: instance), by: .owner(other.id)) }
        await #expect(throws: DomainError.self) { try await f.plan.install(try f.licence(for: f.household.id), by: .owner(other.id)) }
        #expect(try await Fixture(instancePro: true).plan.entitlement(f.household.id) == .everything)
    }

    @Test("an expired licence: Free's limits again, nothing deleted, and Settings says why")
    func expired() async throws {
        let f = try Fixture()
        try f.fill(150)
        // A key that expired yesterday cannot be installed; one installed while valid that has since expired is
        // shown with the reason and no longer applies.
        let yesterday = CalendarDate(Date().addingTimeInterval(-86_400 * 2), in: .current)
        await #expect(throws: DomainError.self) { try await f.plan.install(try f.licence(for: f.household.id, expires: yesterday), by: .owner(f.household.id)) }
        let lapsed = try f.licence(for: f.household.id, expires: yesterday)
        try f.database.installLicence(key: lapsed, keyID: "test-1", household: f.household.id, now: Date())
        let overview = try await f.plan.overview(f.household.id)
        #expect(overview.entitlement == .free && overview.itemCount == 150)
        #expect(overview.licences.count == 1 && overview.licences[0].problem?.contains("expired") == true)
        #expect(try f.database.itemCount(f.household.id) == 150)
    }

    @Test("adding an item: the 101st is refused with the limit, a deletion makes room, Pro lifts it")
    func addItems() async throws {
        let f = try Fixture()
        try f.fill(99)
        let items = try f.items()
        _ = try await items.create(f.household.id, ItemDraft(name: "Hundredth", currency: .usd), today: f.today)
        do {
            _ = try await items.create(f.household.id, ItemDraft(name: "One too many", currency: .usd), today: f.today)
            Issue.record("the 101st item was added")
        } catch let error as DomainError {
            guard case .proRequired(let limit) = error else { Issue.record("expected proRequired, got \(error)"); return }
            #expect(limit.message.contains("up to 100 items") && limit.message.contains("has 100"))
        }
        #expect(try f.database.itemCount(f.household.id) == 100)
        let first = try f.database.items(f.household.id, ItemQuery(limit: 1)).elements[0].item.id
        try await items.delete(f.household.id, first)
        _ = try await items.create(f.household.id, ItemDraft(name: "Room again", currency: .usd), today: f.today)
        try await f.plan.install(try f.licence(for: f.household.id), by: .owner(f.household.id))
        _ = try await items.create(f.household.id, ItemDraft(name: "Now with Pro", currency: .usd), today: f.today)
        #expect(try f.database.itemCount(f.household.id) == 101)
    }

    @Test("a CSV import that would cross the limit imports nothing; one that fits is imported")
    func importLimit() async throws {
        let f = try Fixture()
        try f.fill(30)
        let data = DataService(stores: .sqlite(f.database), blobs: f.database.blobs, folder: f.database.folder, blocking: f.blocking, plan: f.plan)
        let rows = (0..<71).map { "Chair \($0),12.50" }.joined(separator: "\n")
        let tooMany = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(UUID().uuidString).csv")
        let fits = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(UUID().uuidString).csv")
        defer { for file in [tooMany, fits] { try? FileManager.default.removeItem(at: file) } }
        try Data("Name,Price\n\(rows)\n".utf8).write(to: tooMany)
        try Data("Name,Price\n\((0..<70).map { "Stool \($0),3" }.joined(separator: "\n"))\n".utf8).write(to: fits)
        let options = ImportOptions(currency: .usd, dateOrder: .mdy, today: f.today)
        await #expect(throws: DomainError.self) {
            try await data.importItems(f.household.id, file: tooMany, options: options)
        }
        #expect(try f.database.itemCount(f.household.id) == 30)
        _ = try await data.importItems(f.household.id, file: fits, options: options)
        #expect(try f.database.itemCount(f.household.id) == 100)
    }

    @Test("a restore that would take a Free household past the limit changes nothing; Pro restores it")
    func restoreLimit() async throws {
        let source = try Fixture(instancePro: true)
        try source.fill(120)
        let archive = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(UUID()).zip")
        defer { try? FileManager.default.removeItem(at: archive) }
        _ = try await BackupWriter(database: source.database).write(household: source.household.id, to: archive)

        let f = try Fixture()
        try f.fill(10)
        let data = DataService(stores: .sqlite(f.database), blobs: f.database.blobs, folder: f.database.folder, blocking: f.blocking, plan: f.plan)
        await #expect(throws: DomainError.self) { try await data.restore(archive, into: f.household.id, mode: .merge) }
        await #expect(throws: DomainError.self) { try await data.restore(archive, into: f.household.id, mode: .replace) }
        #expect(try f.database.itemCount(f.household.id) == 10)
        // The archive's own household, new here: Free unless a licence for it was installed first.
        await #expect(throws: DomainError.self) { try await data.restore(archive, into: nil, mode: nil) }
        #expect(try f.database.householdExists(source.household.id.description) == false)
        try await f.plan.install(try f.licence(for: source.household.id), by: .operatorCLI)
        _ = try await data.restore(archive, into: nil, mode: nil)
        #expect(try f.database.itemCount(source.household.id) == 120)
    }

    @Test("reports: photos in the inventory PDF, loss lists over 20 and CSV export need Pro; JSON does not")
    func reports() async throws {
        let f = try Fixture()
        let queue = JobQueue(store: SQLiteJobStore(f.database), policies: [JobKind.report: RetryPolicy(maxAttempts: 1, resumesAfterStop: false)], wake: {})
        let reports = ReportsService(queue: queue, maker: ScriptedReportMaker(), store: SQLiteReportStore(f.database), tmp: f.database.folder.tmpURL,
                                     blocking: f.blocking, plan: f.plan, items: SQLiteItemStore(f.database))
        await #expect(throws: DomainError.self) { try await reports.start(f.household.id, .inventory(InventoryReportOptions(includePhotos: true))) }
        _ = try await reports.start(f.household.id, .inventory(InventoryReportOptions(includePhotos: false)))
        let incident = Incident(date: f.today, type: .fire, description: "Kitchen fire")
        let lost = try (0..<21).map { try f.database.createItem(f.household.id, ItemDraft(name: "Lost \($0)", currency: .usd), now: Date()).id }
        let overLimit = await #expect(throws: DomainError.self) {
            try await reports.start(f.household.id, .lossList(LossListOptions(incident: incident, itemIDs: lost)))
        }
        #expect(overLimit?.message.contains("and 21 are chosen") == true)
        // Twenty items, the same one given twice and another household's id among them: a list of twenty.
        let job = try await reports.start(f.household.id, .lossList(LossListOptions(incident: incident, itemIDs: Array(lost.prefix(20)) + [lost[0], ItemID()])))
        #expect(try job.decodedPayload(as: ReportRequest.self) == .lossList(LossListOptions(incident: incident, itemIDs: Array(lost.prefix(20)))))
        await #expect(throws: DomainError.notFound("The items")) {
            try await reports.start(f.household.id, .lossList(LossListOptions(incident: incident, itemIDs: [ItemID()])))
        }
        await #expect(throws: DomainError.self) { try await reports.export(f.household.id, as: .csv, now: Date()) }
        try await f.plan.install(try f.licence(for: f.household.id, features: [.reportPhotos]), by: .owner(f.household.id))
        _ = try await reports.start(f.household.id, .inventory(InventoryReportOptions(includePhotos: true)))
        await #expect(throws: DomainError.self) { try await reports.export(f.household.id, as: .csv, now: Date()) }
    }
}
