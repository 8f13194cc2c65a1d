import Foundation
import NestoryDomain
import NestoryServices
import NestoryStore
import NestoryStoreInterfaces
import Testing

@Suite struct HousekeepingTests {
    @Test func temporaryFilesOfEveryKindAreSweptAndWantedOnesKept() async throws {
        let folder = DataFolder(path: FileManager.default.temporaryDirectory.appendingPathComponent("nestory-tidy-\(UUID())").path)
        let database = try AppDatabase.open(folder)
        defer { try? database.close(); try? FileManager.default.removeItem(atPath: folder.path) }
        let household = try database.createHousehold(name: "Smiths", currency: .usd, now: Date())
        let tmp = folder.tmpURL, web = tmp.appendingPathComponent("web")
        let fm = FileManager.default
        try fm.createDirectory(at: web, withIntermediateDirectories: true)
        let old = Date().addingTimeInterval(-7200)
        func file(_ url: URL, age: Date? = nil, bytes: Int = 1000) throws {
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(count: bytes).write(to: url)
            if let age { try fm.setAttributes([.modificationDate: age], ofItemAtPath: url.path) }
        }
        // Left by crashes long ago: a staged upload, a report being written, a backup's work folder.
        try file(tmp.appendingPathComponent("stage-old"), age: old)
        try file(tmp.appendingPathComponent("report-old.pdf"), age: old)
        try file(tmp.appendingPathComponent("backup-old/rows.jsonl"), age: old)
        try fm.setAttributes([.modificationDate: old], ofItemAtPath: tmp.appendingPathComponent("backup-old").path)
        // Being written now (by this server or a `nestory backup` beside it): kept.
        try file(tmp.appendingPathComponent("stage-new"))
        try file(tmp.appendingPathComponent("restore-new/photo"))
        try fm.setAttributes([.modificationDate: old], ofItemAtPath: tmp.appendingPathComponent("restore-new").path)
        // The web app's: an upload from before a crash, one still waiting, and a finished backup's archive.
        try file(web.appendingPathComponent("upload-crashed.zip"))
        try file(web.appendingPathComponent("upload-waiting.csv"))
        let job = try database.enqueueJob(household.id, kind: "backup", payload: "{}", now: Date())
        _ = try database.claimJob(kind: "backup", holder: "test", leaseUntil: Date().addingTimeInterval(60), now: Date())
        try database.succeedJob(job.id, holder: "test", result: try JSONEncoder.jobText(BackupService.Made(file: "export-\(job.id).zip", bytes: 1000,
                                                                                         downloadName: "b.zip")), now: Date())
        try file(web.appendingPathComponent("export-\(job.id).zip"))
        try file(web.appendingPathComponent("export-forgotten.zip"))

        let housekeeping = Housekeeping(stores: .sqlite(database), pendingUploads: { ["upload-waiting.csv"] })
        await housekeeping.sweep(atStart: true)
        let left = Set(try fm.contentsOfDirectory(atPath: tmp.path)).union(try fm.contentsOfDirectory(atPath: web.path))
        #expect(left == ["web", "stage-new", "restore-new", "upload-waiting.csv", "export-\(job.id).zip"], "\(left.sorted())")
    }

    /// Another server removed a photo: this server's thumbnails of it go at the next sweep once an hour old; those
    /// of recorded files, and fresh ones (a photo whose row is still being written), stay.
    @Test func thumbnailsOfFilesNoLongerRecordedAreSwept() async throws {
        let folder = DataFolder(path: FileManager.default.temporaryDirectory.appendingPathComponent("nestory-tidy-\(UUID())").path)
        let database = try AppDatabase.open(folder)
        defer { try? database.close(); try? FileManager.default.removeItem(atPath: folder.path) }
        let household = try database.createHousehold(name: "Smiths", currency: .usd, now: Date())
        let item = try database.createItem(household.id, ItemDraft(name: "Desk", currency: .usd), now: Date())
        let photo = try database.addPhoto(household.id, to: item.id, data: Data(repeating: 9, count: 64),
                                          contentType: "image/jpeg", now: Date())
        let renditions = RenditionCache(folder: folder)
        let (recorded, removed, fresh) = (photo.attachment.sha256, String(repeating: "c1", count: 32), String(repeating: "d2", count: 32))
        let old = Date().addingTimeInterval(-7200)
        for sha in [recorded, removed, fresh] {
            for kind in RenditionCache.Kind.allCases {
                try renditions.write(Data([1, 2, 3]), for: sha, kind)
                if sha != fresh { try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: renditions.url(for: sha, kind).path) }
            }
        }
        await Housekeeping(stores: .sqlite(database), renditions: renditions, pendingUploads: { [] }).sweep(atStart: false)
        for kind in RenditionCache.Kind.allCases {
            #expect(renditions.read(recorded, kind) != nil)
            #expect(renditions.read(removed, kind) == nil)
            #expect(renditions.read(fresh, kind) != nil)
        }
    }
}
