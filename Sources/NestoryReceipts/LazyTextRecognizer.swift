import Foundation

/// Starts the real recogniser on first use, so a server that is not reading receipts does not pay
/// for the OCR engine's memory (tesseract's English model is loaded per worker).
public final class LazyTextRecognizer: TextRecognizer, @unchecked Sendable {
    private let make: @Sendable () -> any TextRecognizer
    private let lock = NSLock()
    private var started: (any TextRecognizer)?

    public init(make: @escaping @Sendable () -> any TextRecognizer) {
        self.make = make
    }

    private func recognizer() -> any TextRecognizer {
        lock.withLock {
            if let started { return started }
            let made = make()
            started = made
            return made
        }
    }

    public func recognize(imageData: Data) async throws(RecognitionError) -> RecognizedText {
        try await recognizer().recognize(imageData: imageData)
    }
}

extension LazyTextRecognizer: LineRereader {
    /// Reads lines again with the real recogniser, when it can (`LineRereader`); started on first use as well.
    public func reread(imageData: Data, boxes: [TextBox]) async throws(RecognitionError) -> [RecognizedLine] {
        guard let rereader = recognizer() as? any LineRereader else {
            throw .engineUnavailable("this recogniser does not read single lines.")
        }
        return try await rereader.reread(imageData: imageData, boxes: boxes)
    }
}
