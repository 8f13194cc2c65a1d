import Foundation
import NestoryReceipts
import Synchronization
import Testing

/// RapidOCR first and tesseract behind it: what goes to the second engine, and what does not.
@Suite struct FallbackTextRecognizerTests {
    /// Answers from a script, one per call, and counts its calls.
    final class Scripted: TextRecognizer, Sendable {
        let answers: Mutex<[Result<RecognizedText, RecognitionError>]>
        let calls = Atomic<Int>(0)
        init(_ answers: [Result<RecognizedText, RecognitionError>]) { self.answers = Mutex(answers) }
        func recognize(imageData: Data) async throws(RecognitionError) -> RecognizedText {
            calls.add(1, ordering: .relaxed)
            return try answers.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] }.get()
        }
    }

    static let first = RecognizedText(plainText: "FIRST ENGINE")
    static let second = RecognizedText(plainText: "SECOND ENGINE")

    @Test func theFirstEngineReadsWhenItCan() async throws {
        let primary = Scripted([.success(Self.first)]), fallback = Scripted([.success(Self.second)])
        let reader = FallbackTextRecognizer(primary: primary, fallback: fallback)
        #expect(try await reader.recognize(imageData: Data([1])) == Self.first)
        #expect(fallback.calls.load(ordering: .relaxed) == 0)
    }

    @Test func anEngineThatCannotStartIsReportedOnceAndLeftAlone() async throws {
        let primary = Scripted([.failure(.engineUnavailable("no python"))]), fallback = Scripted([.success(Self.second)])
        let reports = Mutex<[String]>([])
        let reader = FallbackTextRecognizer(primary: primary, fallback: fallback) { reason in reports.withLock { $0.append(reason) } }
        for _ in 0..<3 { #expect(try await reader.recognize(imageData: Data([1])) == Self.second) }
        #expect(reports.withLock { $0 } == ["no python"])
        #expect(primary.calls.load(ordering: .relaxed) == 1, "not tried again after it could not start")
        #expect(fallback.calls.load(ordering: .relaxed) == 3)
    }

    @Test func anImageTheFirstEngineFailsOnGoesToTheSecond() async throws {
        let primary = Scripted([.failure(.recognitionFailed("worker stopped")), .success(Self.first)])
        let fallback = Scripted([.success(Self.second)])
        let reader = FallbackTextRecognizer(primary: primary, fallback: fallback)
        #expect(try await reader.recognize(imageData: Data([1])) == Self.second)
        // Still the first engine for the next image.
        #expect(try await reader.recognize(imageData: Data([2])) == Self.first)
    }

    @Test func errorsAboutTheImageItselfAreTheAnswer() async {
        for error in [RecognitionError.unreadableImage, .imageTooLarge(width: 9000, height: 9000, maxPixels: 40_000_000)] {
            let fallback = Scripted([.success(Self.second)])
            let reader = FallbackTextRecognizer(primary: Scripted([.failure(error)]), fallback: fallback)
            await #expect(throws: error) { try await reader.recognize(imageData: Data([1])) }
            #expect(fallback.calls.load(ordering: .relaxed) == 0)
        }
    }
}
