import Foundation
import HTTPTypes
import NestoryDomain
import NestoryServices
import NestoryStore
import Testing
@testable import NestoryWeb

@Suite("Your data: export, restore, import")
struct DataTests {
    @Test("the owner deletes the household with its name and password: its items, files and reports go, and the accounts of members in no other household")
    func deleteTheHousehold() async throws {
        let app = try TestApp()
        let (home, _) = try app.household("The Smiths", email: "ann@example.com")
        try app.member(of: home.id, email: "bob@example.com")
        let (other, _) = try app.household("Other", email: "eve@example.com")
        let lamp = try app.database.createItem(home.id, ItemDraft(name: "Lamp", currency: .usd), now: Date())
        let photo = try app.database.addPhoto(home.id, to: lamp.id, data: Data(repeating: 7, count: 64), contentType: "image/jpeg", now: Date())
        let report = try NestoryReportsLiveShim.record(app, home)
        let reportPath = try app.database.report(home.id, report.id).1.path
        _ = try app.database.createItem(other.id, ItemDraft(name: "Vase", currency: .usd), now: Date())
        try await app.run { client in
            var bob = Browser(client)
            try await bob.signIn("bob@example.com")
            #expect(try await bob.request(.post, "/settings/data/delete", form: ["confirmName": "The Smiths", "password": "correct horse battery"]).status == .forbidden)
            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            let page = try await ann.request(.get, "/settings/data").body
            #expect(page.contains("<h2>Delete this household</h2>") && page.contains("action=\"/settings/data/delete#delete\""))

            // The wrong name, or the wrong password: refused by field, nothing deleted.
            let wrongName = try await ann.request(.post, "/settings/data/delete", form: ["confirmName": "The Smith", "password": "correct horse battery"])
            #expect(wrongName.status == .unprocessableContent && wrongName.body.contains("Type the household’s name, “The Smiths”, to delete it."))
            #expect(wrongName.body.contains("value=\"The Smith\""))
            let wrongPassword = try await ann.request(.post, "/settings/data/delete", form: ["confirmName": "the smiths", "password": "nope"])
            #expect(wrongPassword.status == .unprocessableContent && wrongPassword.body.contains("That is not your password."))
            #expect(try app.database.allHouseholds().count == 2)

            // A backup made a moment ago waits in the temporary folder for download: it goes with the household.
            let started = try await ann.request(.post, "/settings/data/export", form: [:])
            let job = try await app.waitForJob(try #require(started.location?.split(separator: "=").last.flatMap { JobID(string: String($0)) }))
            #expect(job.state == .succeeded)
            let archive = try BackupService.folder(app.database).appendingPathComponent("export-\(job.id).zip").path
            #expect(FileManager.default.fileExists(atPath: archive))

            let deleted = try await ann.request(.post, "/settings/data/delete", form: ["confirmName": " the smiths ", "password": "correct horse battery"])
            #expect(deleted.status == .ok && deleted.body.contains("The Smiths was deleted") && deleted.body.contains("your account and 1 other member’s"))
            #expect(deleted.headers[HTTPField.Name("Clear-Site-Data")!] == "\"cache\", \"storage\"")
            #expect(try await ann.request(.get, "/").status == .seeOther)  // signed out
            var annAgain = Browser(client)
            #expect(try await annAgain.signIn("ann@example.com").status == .unauthorized)
            #expect(try await bob.request(.get, "/").status == .seeOther)
            #expect(try app.database.allHouseholds().map(\.id) == [other.id])
            #expect(!FileManager.default.fileExists(atPath: app.database.blobs.url(for: photo.attachment.sha256).path))
            #expect(!FileManager.default.fileExists(atPath: reportPath))
            #expect(!FileManager.default.fileExists(atPath: archive))
            var eve = Browser(client)
            try await eve.signIn("eve@example.com")
            #expect(try await eve.request(.get, "/").body.contains("Vase"))
        }
    }

    @Test("only the owner exports or imports; another household's export and uploads are invisible")
    func ownersOnly() async throws {
        let app = try TestApp()
        let (home, _) = try app.household("Home", email: "ann@example.com")
        try app.member(of: home.id, email: "bob@example.com")
        _ = try app.household("Other", email: "eve@example.com")
        try await app.run { client in
            var bob = Browser(client)
            try await bob.signIn("bob@example.com")
            #expect(try await bob.request(.get, "/settings/data").status == .forbidden)
            #expect(try await bob.request(.post, "/settings/data/export", form: [:]).status == .forbidden)
            #expect(try await bob.request(.post, "/settings/data/csv", body: Data("Name\nx\n".utf8)).status == .forbidden)

            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            let started = try await ann.request(.post, "/settings/data/export", form: [:])
            #expect(started.status == .seeOther)
            let id = try #require(started.location?.split(separator: "=").last.map(String.init))
            var state = ""
            for _ in 0..<500 where state != "succeeded" {
                let reply = try await ann.request(.get, "/api/v1/jobs/\(id)")
                state = ((reply.json as? [String: Any])?["state"] as? String) ?? ""
                if state != "succeeded" { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(state == "succeeded")
            let download = try await ann.request(.get, "/settings/data/export/\(id)/download")
            #expect(download.status == .ok)
            #expect(download.headers[.contentDisposition]?.hasPrefix("attachment; filename=\"nestory-Home-") == true)

            var eve = Browser(client)
            try await eve.signIn("eve@example.com")
            #expect(try await eve.request(.get, "/api/v1/jobs/\(id)").status == .notFound)
            #expect(try await eve.request(.get, "/settings/data/export/\(id)/download").status == .notFound)

            let upload = try await ann.request(.post, "/settings/data/csv", body: Data("Name,Price\nLamp,12\n".utf8))
            let next = try #require((upload.json as? [String: Any])?["next"] as? String)
            #expect(try await eve.request(.get, next).status == .notFound)
            #expect(try await ann.request(.get, next).status == .ok)
        }
    }

    @Test("a script makes the household's backup with a token: POST /api/v1/backups, the job, then the archive its link gives")
    func backupThroughTheAPI() async throws {
        let app = try TestApp()
        let (home, _) = try app.household("Home", email: "ann@example.com")
        try app.member(of: home.id, email: "bob@example.com")
        _ = try app.database.createItem(home.id, ItemDraft(name: "Lamp", currency: .usd), now: Date())
        try await app.run { client in
            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            let write = try await APITokenTests.makeToken(&ann, scope: "write")
            let read = try await APITokenTests.makeToken(&ann, scope: "read", name: "Reader")
            var script = Browser(client)
            let bearer = APITokenTests.bearer(write.token)

            // What is asked is checked: a misspelt key is named, a value of another kind refused, a read token may not start one.
            let misspelt = try await script.request(.post, "/api/v1/backups", json: #"{"providerKey": true}"#, headers: bearer)
            #expect(misspelt.status == .unprocessableContent && misspelt.body.contains("did you mean “providerKeys”"), "\(misspelt.body)")
            #expect(try await script.request(.post, "/api/v1/backups", json: #"{"providerKeys": "yes"}"#, headers: bearer).status == .unprocessableContent)
            #expect(try await script.request(.post, "/api/v1/backups", headers: APITokenTests.bearer(read.token)).errorCode == "insufficient_scope")

            let started = try await script.request(.post, "/api/v1/backups", headers: bearer)
            #expect(started.status == .accepted, "\(started.body)")
            let id = try #require((started.json as? [String: Any])?["id"] as? String)
            // Asked again while it is being made: the same job, not a second archive (a new one only once the first is done).
            let again = try await script.request(.post, "/api/v1/backups", json: "{}", headers: bearer)
            let againID = try #require((again.json as? [String: Any])?["id"] as? String)
            if againID != id {
                let first = try await script.request(.get, "/api/v1/jobs/\(id)", headers: bearer)
                #expect(((first.json as? [String: Any])?["state"] as? String) == "succeeded", "\(first.body)")
            }
            let job = try await app.waitForJob(try #require(JobID(string: id)))
            #expect(job.state == .succeeded)
            let status = try await script.request(.get, "/api/v1/jobs/\(id)", headers: APITokenTests.bearer(read.token))
            let download = try #require(((status.json as? [String: Any])?["links"] as? [String: Any])?["download"] as? String)
            // The archive, with the read token (as the photos are): a zip of the household.
            let archive = try await script.request(.get, download, headers: APITokenTests.bearer(read.token))
            #expect(archive.status == .ok && archive.headers[.contentType] == "application/zip" && archive.body.hasPrefix("PK"))
            // Still not the pages, nor another path under the data settings.
            #expect(try await script.request(.get, "/settings/data", headers: bearer).errorCode == "token_not_accepted")
            #expect(try await script.request(.get, "/settings/data/export/\(id)/download/x", headers: bearer).errorCode == "token_not_accepted")

            // A member who is not the owner cannot, with a token either.
            var bob = Browser(client)
            try await bob.signIn("bob@example.com")
            let bobs = try await APITokenTests.makeToken(&bob, scope: "write")
            #expect(try await script.request(.post, "/api/v1/backups", headers: APITokenTests.bearer(bobs.token)).status == .forbidden)
            #expect(try await script.request(.get, download, headers: APITokenTests.bearer(bobs.token)).status == .forbidden)
        }
    }

    @Test("uploads that are not what they claim are refused with a message, and nothing is kept")
    func badUploads() async throws {
        let app = try TestApp()
        _ = try app.household("Home", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            let zip = try await ann.request(.post, "/settings/data/restore", body: Data("PK not a zip".utf8))
            #expect(zip.status == .unprocessableContent)
            #expect(zip.errorCode == "invalid_archive")
            let csv = try await ann.request(.post, "/settings/data/csv", body: Data("Name\n\"never closed\n".utf8))
            #expect(csv.status == .unprocessableContent)
            #expect(csv.errorCode == "invalid_csv")
            // A workbook uploaded where its CSV belongs is named as one, with what to do instead.
            let workbook = try await ann.request(.post, "/settings/data/csv", body: Data([0x50, 0x4B, 0x03, 0x04]) + Data("xl/workbook.xml".utf8))
            #expect(workbook.status == .unprocessableContent && workbook.errorCode == "invalid_csv")
            #expect(workbook.body.contains("spreadsheet workbook") && workbook.body.contains("CSV (UTF-8)"), "\(workbook.body)")
            let noCSRF = try await ann.request(.post, "/settings/data/csv", body: Data("Name\nx\n".utf8), csrf: false)
            #expect(noCSRF.status == .forbidden)
        }
        let web = app.database.folder.tmpURL.appendingPathComponent("web")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: web.path)) ?? []).isEmpty)
    }
}

@Suite struct DataJobsTests {
    @Test func anImportRunsAsAJobAndItsPageShowsWhatItDid() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Home", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let upload = try await ann.request(.post, "/settings/data/csv", body: Data("Name,Price,Room\nLamp,12,Sunroom\n".utf8))
            let next = try #require((upload.json as? [String: Any])?["next"] as? String)
            let started = try await ann.request(.post, next, form: ["map_name": "0", "map_price": "1", "map_room": "2", "date_order": "mdy"])
            let location = try #require(started.location)
            #expect(location.hasPrefix("/settings/data/jobs/"))
            let job = try await app.waitForJob(try #require(JobID(string: String(location.dropFirst("/settings/data/jobs/".count)))))
            #expect(job.state == .succeeded && job.kind == "import", "\(job.state) \(job.message ?? "") \(job.result ?? "")")
            #expect(job.result?.contains("Sunroom") == true, "\(job.result ?? "")")
            let page = try await ann.request(.get, location)
            #expect(page.body.contains("Imported 1 item") && page.body.contains("Sunroom"))
            #expect(try app.database.items(household.id, ItemQuery()).elements.map(\.item.name) == ["Lamp"])
            // The upload was the job's to remove: nothing is left in tmp/web.
            let web = app.database.folder.tmpURL.appendingPathComponent("web")
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: web.path)) ?? []).isEmpty)
        }
    }
}
