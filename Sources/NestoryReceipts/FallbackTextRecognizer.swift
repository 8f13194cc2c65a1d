import Foundation

/// Reads with `primary`, and with `fallback` where `primary` cannot: when its engine cannot be started (from
/// then on, with the reason reported once through `onUnavailable`) or when it fails on an image. Errors about
/// the image itself (not an image, too large) are the answer, not a reason to try again.
public final class FallbackTextRecognizer: TextRecognizer, @unchecked Sendable {
    private let primary: any TextRecognizer
    private let fallback: any TextRecognizer
    private let onUnavailable: @Sendable (String) -> Void
    private let lock = NSLock()
    private var primaryUnavailable = false

    public init(primary: any TextRecognizer, fallback: any TextRecognizer, onUnavailable: @escaping @Sendable (String) -> Void = { _ in }) {
        self.primary = primary
        self.fallback = fallback
        self.onUnavailable = onUnavailable
    }

    public func recognize(imageData: Data) async throws(RecognitionError) -> RecognizedText {
        if lock.withLock({ primaryUnavailable }) { return try await fallback.recognize(imageData: imageData) }
        do {
            return try await primary.recognize(imageData: imageData)
        } catch .engineUnavailable(let reason) {
            let first = lock.withLock { () -> Bool in
                defer { primaryUnavailable = true }
                return !primaryUnavailable
            }
            if first { onUnavailable(reason) }
            return try await fallback.recognize(imageData: imageData)
        } catch .recognitionFailed {
            return try await fallback.recognize(imageData: imageData)
        }
    }
}
