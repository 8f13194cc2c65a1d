import Foundation

/// A rectangle on the image, in pixels, origin at the top left.
public struct TextBox: Hashable, Sendable, Codable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var midY: Int { y + height / 2 }

    /// The smallest box holding both.
    public func union(_ other: TextBox) -> TextBox {
        let minX = min(x, other.x), minY = min(y, other.y)
        return TextBox(x: minX, y: minY, width: max(maxX, other.maxX) - minX, height: max(maxY, other.maxY) - minY)
    }
}

/// One recognised word with its box and the recogniser's confidence (0–1).
public struct RecognizedWord: Hashable, Sendable, Codable {
    public var text: String
    public var box: TextBox?
    public var confidence: Double?

    public init(text: String, box: TextBox? = nil, confidence: Double? = nil) {
        self.text = text
        self.box = box
        self.confidence = confidence
    }
}

/// One line of recognised text. Lines from plain text have no box, words or confidence.
public struct RecognizedLine: Hashable, Sendable, Codable {
    public var text: String
    public var box: TextBox?
    public var confidence: Double?
    public var words: [RecognizedWord]

    public init(text: String, box: TextBox? = nil, confidence: Double? = nil, words: [RecognizedWord] = []) {
        self.text = text
        self.box = box
        self.confidence = confidence
        self.words = words
    }
}

/// What a recogniser read from an image: the lines top to bottom, with layout where known.
public struct RecognizedText: Hashable, Sendable, Codable {
    public var lines: [RecognizedLine]
    /// The recogniser's mean word confidence (0–1), or nil for text that did not come from an image.
    public var confidence: Double?
    /// The image's size in pixels, when the text came from an image.
    public var imageWidth: Int?
    public var imageHeight: Int?

    public init(lines: [RecognizedLine], confidence: Double? = nil, imageWidth: Int? = nil, imageHeight: Int? = nil) {
        self.lines = lines
        self.confidence = confidence
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
    }

    /// Plain text, one line per line break, with no layout.
    public init(plainText: String) {
        self.init(lines: plainText.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .map { RecognizedLine(text: String($0)) })
    }

    /// The text as read, one line per line.
    public var text: String { lines.map(\.text).joined(separator: "\n") }

    public var isEmpty: Bool { lines.allSatisfy { $0.text.allSatisfy(\.isWhitespace) } }
}

/// Reads the text on an image (the live implementation is tesseract, in NestoryOCR).
public protocol TextRecognizer: Sendable {
    /// Recognises the text of an encoded image (JPEG, PNG, TIFF, …).
    func recognize(imageData: Data) async throws(RecognitionError) -> RecognizedText
}

/// Why an image could not be read.
public enum RecognitionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bytes are not an image this recogniser can decode (or are empty or truncated).
    case unreadableImage
    /// The image is larger than the recogniser accepts.
    case imageTooLarge(width: Int, height: Int, maxPixels: Int)
    /// The engine could not be started (missing language data, for instance).
    case engineUnavailable(String)
    /// The engine failed on this image.
    case recognitionFailed(String)

    public var description: String {
        switch self {
        case .unreadableImage:
            return "The file is not an image that can be read (it may be empty, truncated or another kind of file)."
        case let .imageTooLarge(width, height, maxPixels):
            return "The image is too large to read (\(width)×\(height) pixels; at most \(maxPixels / 1_000_000) megapixels)."
        case let .engineUnavailable(detail):
            return "Text recognition is unavailable: \(detail)"
        case let .recognitionFailed(detail):
            return "Text recognition failed: \(detail)"
        }
    }
}
