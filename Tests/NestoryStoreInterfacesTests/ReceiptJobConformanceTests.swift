import Foundation
import NestoryDomain
import NestoryJobs
import NestoryReceipts
import NestoryServices
import NestoryStoreInterfaces
import Testing

/// The receipt reading job on each engine: it reads the receipt and its image through the attachment store, keeps what
/// was read there (so the linked item is found by the vendor), and finds only its own household's receipt.
@Suite struct ReceiptJobConformanceTests {
    static let start = Date(millis: 1_763_800_000_000)

    /// "Reads" fixed text, and remembers the bytes it was given.
    final class CannedRecognizer: TextRecognizer, @unchecked Sendable {
        let text: String
        var images: [Data] = []
        /// What happens while it "reads" (someone saving the receipt meanwhile).
        let meanwhile: @Sendable () async -> Void
        init(_ text: String, meanwhile: @escaping @Sendable () async -> Void = {}) {
            self.text = text
            self.meanwhile = meanwhile
        }
        func recognize(imageData: Data) async throws(RecognitionError) -> RecognizedText {
            images.append(imageData)
            await meanwhile()
            return RecognizedText(plainText: text)
        }
    }

    static let text = """
        HARDWARE HAVEN
        Date: 2024-03-14 10:22
        Cordless drill      129.00
        TAX                  10.32
        TOTAL               139.32
        """

    /// A reading job of the receipt as ReceiptsService queues it.
    func readingJob(_ stores: Stores, _ household: HouseholdID, _ receipt: ReceiptID) async throws -> Job {
        let payload = #"{"receiptID":"\#(receipt.description)","currency":"USD","capturedOn":"2024-03-15"}"#
        return try await stores.jobs.enqueueJob(household, kind: JobKind.receipt, subject: receipt.description, payload: payload, maxAttempts: 4,
                                                now: Self.start)
    }

    @Test(arguments: Engine.available)
    func aReceiptIsReadAndKeptThroughTheAttachmentStore(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let blobs = try #require(stores.blobs)
            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: Self.start)
            let other = try await stores.accounts.createHousehold(name: "Other", currency: .usd, now: Self.start)
            let drill = try await stores.items.createItem(home.id, ItemDraft(name: "Drill", currency: .usd), now: Self.start, today: nil, plan: nil)
            let image = Data((0..<200).map { UInt8($0) })
            let receipt = try await stores.attachments.addReceipt(home.id, itemID: drill.id, staged: try blobs.stage(image), contentType: "image/png",
                                                                  fields: ReceiptFields(), now: Self.start)
            let recognizer = CannedRecognizer(Self.text)
            let handler = ReceiptJobHandler(reader: ReceiptReader(recognizer: recognizer), receipts: stores.attachments)
            let job = try await readingJob(stores, home.id, receipt.id)
            let result = try await handler.run(job, context: JobContext(jobID: job.id, progress: { _, _ in false }))
            // Fields were found: nothing to tell the person.
            #expect(try JSONDecoder().decode(ReceiptJobHandler.Read.self, from: Data(result.utf8)).message == nil)
            // The stored image was read, and what was read is kept.
            #expect(recognizer.images == [image])
            let read = try await stores.attachments.receipt(home.id, receipt.id).receipt
            #expect(read.vendor == "HARDWARE HAVEN")
            let (total, tax, day) = (try Money.parse("139.32", currency: .usd), try Money.parse("10.32", currency: .usd),
                                     try CalendarDate(iso: "2024-03-14"))
            #expect(read.total == total && read.tax == tax)
            #expect(read.purchaseDate == day)
            #expect(read.rawText?.contains("Cordless drill") == true)
            // The linked item is found by the vendor now.
            #expect(try await stores.items.items(home.id, ItemQuery(search: "haven", limit: 10)).elements.map(\.item.id) == [drill.id])
            // A job naming another household's receipt finds none (as if it was deleted), reads nothing, changes nothing
            // and is not tried again.
            let stray = try await readingJob(stores, other.id, receipt.id)
            let failure = await #expect(throws: JobFailure.self) {
                _ = try await handler.run(stray, context: JobContext(jobID: stray.id, progress: { _, _ in false }))
            }
            #expect(failure?.code == "receipt_deleted" && failure?.retryable == false)
            #expect(recognizer.images.count == 1)
        }
    }

    /// A person who typed the fields while the reading ran (a reading resumed after a restart, say) keeps them: the job
    /// adds only the text it read, for search.
    @Test(arguments: Engine.available)
    func fieldsSavedWhileTheReceiptIsReadStayAsSaved(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let blobs = try #require(stores.blobs)
            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: Self.start)
            let receipt = try await stores.attachments.addReceipt(home.id, itemID: nil, staged: try blobs.stage(Data((0..<200).map { UInt8($0) })),
                                                                  contentType: "image/png", fields: ReceiptFields(), now: Self.start)
            let typed = ReceiptFields(vendor: "Hardware Haven Ltd", total: try Money.parse("140", currency: .usd), confidence: 1)
            let attachments = stores.attachments
            let recognizer = CannedRecognizer(Self.text) {
                try? await attachments.updateReceipt(home.id, receipt.id, typed)
            }
            let handler = ReceiptJobHandler(reader: ReceiptReader(recognizer: recognizer), receipts: stores.attachments)
            let job = try await readingJob(stores, home.id, receipt.id)
            _ = try await handler.run(job, context: JobContext(jobID: job.id, progress: { _, _ in false }))
            let kept = try await stores.attachments.receipt(home.id, receipt.id).receipt
            #expect(kept.vendor == "Hardware Haven Ltd" && kept.total == typed.total && kept.tax == nil && kept.purchaseDate == nil)
            #expect(kept.confidence == 1)
            #expect(kept.rawText?.contains("Cordless drill") == true)
        }
    }
}
