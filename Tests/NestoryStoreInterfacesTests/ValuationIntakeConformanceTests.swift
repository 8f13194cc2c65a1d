import Foundation
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces
import Testing

/// Photos to value new things from (valuation intake) behave the same on every engine: the household's alone, moved
/// onto an item as its photo, expired after `IntakePhoto.lifetime`, and counted as a use of their stored file by
/// garbage collection. Each test states what it expects and holds each engine to it.
extension AttachmentStoreConformanceTests {
    func days(_ count: Double) -> Date { Self.start.addingTimeInterval(count * 86_400) }

    @Test(arguments: Engine.available)
    func aPhotoToValueIsItsHouseholdsAlone(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let bytes = Data(repeating: 61, count: 120)
            let intake = try await f.files.addIntakePhoto(f.home.id, staged: try f.blobs.stage(bytes), contentType: "image/png", now: at(5))
            let sha = intake.attachment.sha256
            #expect(intake.attachment == Attachment(sha256: sha, contentType: "image/png", byteCount: 120))
            #expect(intake.createdAt == at(5))
            // Kept before the row committed, read back exactly by its household.
            #expect(try f.blobs.read(sha) == bytes)
            #expect(try await f.files.intakePhoto(f.home.id, intake.id) == intake)
            #expect(try await f.files.attachment(f.home.id, sha256: sha) == intake.attachment)
            #expect(try await f.files.attachmentData(f.home.id, sha256: sha).0 == bytes)

            // Another household finds neither the photo nor its file, and cannot attach it to its own item.
            await #expect(throws: DomainError.notFound("The photo to value")) { try await f.files.intakePhoto(f.other.id, intake.id) }
            await #expect(throws: DomainError.notFound("The file")) { try await f.files.attachment(f.other.id, sha256: sha) }
            await #expect(throws: DomainError.notFound("The file")) { try await f.files.attachmentData(f.other.id, sha256: sha) }
            await #expect(throws: DomainError.notFound("The photo to value")) {
                try await f.files.attachIntakePhoto(f.other.id, intake.id, to: f.chair.id, now: at(6))
            }
            // Nor can its own household attach it to another household's item.
            await #expect(throws: DomainError.notFound("The item")) {
                try await f.files.attachIntakePhoto(f.home.id, intake.id, to: f.chair.id, now: at(6))
            }
            #expect(try await f.files.photos(f.other.id, of: f.chair.id) == [])
            // Still there, unchanged, for its household.
            #expect(try await f.files.intakePhoto(f.home.id, intake.id) == intake)
            // An unknown id is not found either.
            await #expect(throws: DomainError.notFound("The photo to value")) { try await f.files.intakePhoto(f.home.id, UUID()) }
        }
    }

    @Test(arguments: Engine.available)
    func attachingAPhotoToValueMovesItOntoTheItem(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let first = try await f.files.addIntakePhoto(f.home.id, staged: try f.staged(71), contentType: "image/jpeg", now: at(5))
            let second = try await f.files.addIntakePhoto(f.home.id, staged: try f.staged(72), contentType: "image/png", now: at(6))

            // The lamp has no photo: the first attached becomes its main one, at position 0.
            let onLamp = try await f.files.attachIntakePhoto(f.home.id, first.id, to: f.lamp.id, now: at(20))
            #expect(onLamp.attachment == first.attachment)
            #expect(onLamp.isPrimary && onLamp.position == 0 && onLamp.createdAt == at(20))
            #expect(try await f.files.photos(f.home.id, of: f.lamp.id) == [onLamp])
            // The intake row is gone, the file now the item's photo's.
            await #expect(throws: DomainError.notFound("The photo to value")) { try await f.files.intakePhoto(f.home.id, first.id) }
            #expect(try f.blobs.exists(first.attachment.sha256))
            #expect(try await f.files.attachment(f.home.id, sha256: first.attachment.sha256) == first.attachment)
            let lamp = try #require(try await f.listing(f.lamp))
            #expect(lamp.photoCount == 1 && lamp.primaryPhoto == first.attachment)
            #expect(try await f.stores.items.item(f.home.id, f.lamp.id).updatedAt == at(20))

            // Attached once only.
            await #expect(throws: DomainError.notFound("The photo to value")) {
                try await f.files.attachIntakePhoto(f.home.id, first.id, to: f.desk.id, now: at(21))
            }
            #expect(try await f.files.photos(f.home.id, of: f.desk.id) == [])

            // The desk already has a photo: the one attached comes after it, not main.
            let deskPhoto = try await f.files.addPhoto(f.home.id, to: f.desk.id, staged: try f.staged(73), contentType: "image/jpeg", now: at(22))
            let onDesk = try await f.files.attachIntakePhoto(f.home.id, second.id, to: f.desk.id, now: at(23))
            #expect(!onDesk.isPrimary && onDesk.position == 1)
            #expect(try await f.files.photos(f.home.id, of: f.desk.id).map(\.id) == [deskPhoto.id, onDesk.id])
            #expect(try await f.listing(f.desk)?.photoCount == 2)
            // Nothing is left to collect: both files are photos' now.
            #expect(try await f.files.collectGarbage(now: at(24)) == 0)
            #expect(try f.blobs.exists(second.attachment.sha256))
        }
    }

    @Test(arguments: Engine.available)
    func aPhotoToValueAttachedTwiceAtOnceBecomesOnePhoto(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            for round in 0..<10 {
                let intake = try await f.files.addIntakePhoto(f.home.id, staged: try f.staged(UInt8(100 + round)), contentType: "image/jpeg",
                                                              now: at(10 + round))
                let attach: @Sendable (ItemID) async -> Result<ItemPhoto, any Error> = { [files = f.files, home = f.home.id, at = at(30)] item in
                    do { return .success(try await files.attachIntakePhoto(home, intake.id, to: item, now: at)) } catch { return .failure(error) }
                }
                async let onDesk = attach(f.desk.id)
                async let onLamp = attach(f.lamp.id)
                let results = await [onDesk, onLamp]
                // Exactly one attach made a photo; the other found the photo to value gone.
                #expect(results.filter { (try? $0.get()) != nil }.count == 1, "round \(round)")
                for case .failure(let error) in results { #expect(error as? DomainError == .notFound("The photo to value"), "round \(round)") }
            }
            let desk = try await f.files.photos(f.home.id, of: f.desk.id).count
            let lamp = try await f.files.photos(f.home.id, of: f.lamp.id).count
            #expect(desk + lamp == 10)
        }
    }

    @Test(arguments: Engine.available)
    func anExpiredPhotoToValuesFileIsCollectedWhileOneStillInUseIsNot(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let old = try await f.files.addIntakePhoto(f.home.id, staged: try f.staged(81), contentType: "image/jpeg", now: days(0))
            let young = try await f.files.addIntakePhoto(f.other.id, staged: try f.staged(82), contentType: "image/jpeg", now: days(20))
            #expect(IntakePhoto.lifetime == 30 * 86_400)

            // Within their lifetime: both kept, nothing collected.
            #expect(try await f.files.collectGarbage(now: days(29)) == 0)
            #expect(try await f.files.intakePhoto(f.home.id, old.id) == old)
            #expect(try f.blobs.exists(old.attachment.sha256))

            // 31 days after the first was added: it and its file go (one file); the one 11 days old stays.
            #expect(try await f.files.collectGarbage(now: days(31)) == 1)
            await #expect(throws: DomainError.notFound("The photo to value")) { try await f.files.intakePhoto(f.home.id, old.id) }
            #expect(try !f.blobs.exists(old.attachment.sha256))
            await #expect(throws: DomainError.notFound("The file")) { try await f.files.attachment(f.home.id, sha256: old.attachment.sha256) }
            #expect(try await f.files.intakePhoto(f.other.id, young.id) == young)
            #expect(try f.blobs.exists(young.attachment.sha256))

            // Its turn 30 days after it was added.
            #expect(try await f.files.collectGarbage(now: days(51)) == 1)
            await #expect(throws: DomainError.notFound("The photo to value")) { try await f.files.intakePhoto(f.other.id, young.id) }
            #expect(try !f.blobs.exists(young.attachment.sha256))
        }
    }

    @Test(arguments: Engine.available)
    func aFileSharedByAPhotoToValueAndAnItemPhotoSurvivesRemovingEither(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let bytes = Data(repeating: 91, count: 150)

            // The item's photo goes first: the photo to value keeps the file, and its household still reads it.
            let intake = try await f.files.addIntakePhoto(f.home.id, staged: try f.blobs.stage(bytes), contentType: "image/jpeg", now: days(0))
            let sha = intake.attachment.sha256
            let photo = try await f.files.addPhoto(f.home.id, to: f.desk.id, staged: try f.blobs.stage(bytes), contentType: "image/jpeg",
                                                   now: days(1))
            #expect(photo.attachment == intake.attachment)
            try await f.files.removePhoto(f.home.id, photo.id, now: days(2))
            #expect(try f.blobs.exists(sha))
            #expect(try await f.files.attachmentData(f.home.id, sha256: sha).0 == bytes)
            #expect(try await f.files.collectGarbage(now: days(3)) == 0)
            #expect(try f.blobs.exists(sha))

            // Another household's photo of the same bytes, then the photo to value expires: the file stays theirs.
            let theirs = try await f.files.addPhoto(f.other.id, to: f.chair.id, staged: try f.blobs.stage(bytes), contentType: "image/jpeg",
                                                    now: days(4))
            #expect(try await f.files.collectGarbage(now: days(31)) == 0)
            await #expect(throws: DomainError.notFound("The photo to value")) { try await f.files.intakePhoto(f.home.id, intake.id) }
            #expect(try f.blobs.exists(sha))
            #expect(try await f.files.attachmentData(f.other.id, sha256: sha).0 == bytes)
            // The home household no longer uses it.
            await #expect(throws: DomainError.notFound("The file")) { try await f.files.attachment(f.home.id, sha256: sha) }

            // Once neither uses it, it goes.
            try await f.files.removePhoto(f.other.id, theirs.id, now: days(32))
            #expect(try !f.blobs.exists(sha))
        }
    }
}

/// Two PostgreSQL servers on one database and one place for files: one's housekeeping expires the last photo to value
/// of some bytes (and so removes their file) while the other keeps a new photo to value of the same bytes. Whichever
/// goes first, the new photo's file is there when its row is, and goes once it expires in turn.
@Suite(.enabled(if: Engine.available.contains(.postgres)))
struct ValuationIntakeAcrossServersTests {
    @Test func keepingBytesWhileAnotherServerExpiresTheirLastUseNeverLosesTheFile() async throws {
        let folder = try blobFolder()
        defer { try? FileManager.default.removeItem(at: folder.url) }
        let blobs = BlobStore(folder: folder)
        let start = Date(millis: 1_763_800_000_000)
        try await withTwoPostgresStores(blobs: blobs) { first, second in
            let home = try await first.createHousehold(name: "Home", currency: .usd, now: start)
            for round in 0..<30 {
                // Each round a lifetime and a day after the last, so its first photo expires at the sweep.
                let then = start.addingTimeInterval(Double(round) * 2 * (IntakePhoto.lifetime + 86_400))
                let later = then.addingTimeInterval(IntakePhoto.lifetime + 86_400)
                let bytes = Data(repeating: UInt8(round % 3), count: 80 + round % 2)
                let old = try await first.addIntakePhoto(home.id, staged: try blobs.stage(bytes), contentType: "image/jpeg", now: then)
                let sha = old.attachment.sha256
                // Started in turns, so each goes first in some rounds.
                async let swept = (round % 2 == 0 ? second : first).collectGarbage(now: later)
                async let kept = (round % 2 == 0 ? first : second).addIntakePhoto(home.id, staged: try blobs.stage(bytes), contentType: "image/jpeg",
                                                                                  now: later)
                _ = try await swept
                let fresh = try await kept
                await #expect(throws: DomainError.notFound("The photo to value"), "round \(round)") { try await second.intakePhoto(home.id, old.id) }
                #expect(try await second.intakePhoto(home.id, fresh.id) == fresh, "round \(round)")
                #expect(try blobs.exists(sha), "round \(round)")
                #expect(try await second.attachmentData(home.id, sha256: sha).0 == bytes, "round \(round)")
                // Its own lifetime over: the row and the file go.
                #expect(try await first.collectGarbage(now: later.addingTimeInterval(IntakePhoto.lifetime + 86_400)) == 1, "round \(round)")
                #expect(try !blobs.exists(sha), "round \(round)")
            }
        }
    }
}
