import Foundation

/// Reads a receipt photo: recognises its text, then extracts the fields.
///
/// The web layer and the CLI hold one reader (with a live recogniser such as NestoryOCR's
/// `TesseractRecognizer`) and call `read` for each upload; tests pass a recogniser of their own.
public struct ReceiptReader: Sendable {
    public let recognizer: any TextRecognizer
    public let extractor: ReceiptExtractor

    public init(recognizer: any TextRecognizer, extractor: ReceiptExtractor = ReceiptExtractor()) {
        self.recognizer = recognizer
        self.extractor = extractor
    }

    /// Recognises and extracts. Throws only when the image cannot be read at all; a readable image with
    /// no receipt on it gives a reading with missing fields and low confidences.
    public func read(imageData: Data, hints: ReceiptHints = ReceiptHints()) async throws(RecognitionError) -> ReceiptReading {
        let text = try await recognizer.recognize(imageData: imageData)
        return extractor.extract(text, hints: hints)
    }
}
