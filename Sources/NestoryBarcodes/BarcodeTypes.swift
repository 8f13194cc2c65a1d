import Foundation
import NestoryDomain

/// The symbologies Nestory reads.
public enum BarcodeFormat: String, Sendable, Hashable, Codable, CaseIterable {
    case ean13, ean8, upcA, upcE, code128, qr

    /// The name printed for people ("EAN-13", "QR Code").
    public var displayName: String {
        switch self {
        case .ean13: return "EAN-13"
        case .ean8: return "EAN-8"
        case .upcA: return "UPC-A"
        case .upcE: return "UPC-E"
        case .code128: return "Code 128"
        case .qr: return "QR Code"
        }
    }

    /// Whether the code carries a GTIN (a retail product number).
    public var isProductCode: Bool { gtinFormat != nil }

    /// The ``GTIN/Format`` this symbology prints, for product codes.
    public var gtinFormat: GTIN.Format? {
        switch self {
        case .ean13: return .ean13
        case .ean8: return .ean8
        case .upcA: return .upcA
        case .upcE: return .upcE
        case .code128, .qr: return nil
        }
    }
}

/// A part of the picture to look in, as fractions of its width and height (0...1) from the top left: the
/// scan area a live camera frame was aimed with. Independent of the frame's resolution.
public struct BarcodeRegion: Sendable, Hashable, Codable {
    public let x: Double
    public let y: Double
    public let width: Double
    public let height: Double

    /// A region, clamped to the picture. Nil when it is empty or not finite.
    public init?(x: Double, y: Double, width: Double, height: Double) {
        guard [x, y, width, height].allSatisfy(\.isFinite) else { return nil }
        let x0 = max(0, min(1, x)), y0 = max(0, min(1, y))
        let x1 = max(0, min(1, x + width)), y1 = max(0, min(1, y + height))
        guard x1 > x0, y1 > y0 else { return nil }
        self.x = x0
        self.y = y0
        self.width = x1 - x0
        self.height = y1 - y0
    }

    /// The whole picture.
    public static let whole = BarcodeRegion(x: 0, y: 0, width: 1, height: 1)!

    /// `x,y,width,height` as fractions of the picture (`0.1,0.3,0.8,0.4`), as the CLI and the API take it.
    public init?(parsing text: String) {
        let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, let x = parts[0], let y = parts[1], let w = parts[2], let h = parts[3] else { return nil }
        self.init(x: x, y: y, width: w, height: h)
    }
}

/// How much to trust a read.
public enum BarcodeConfidence: String, Sendable, Hashable, Codable, Comparable {
    /// One pass saw the code once, with nothing to confirm it (the reader drops these by default).
    case low
    /// One decoder read the code (on several scan lines, or in several passes), with nothing independent reading the
    /// same digits, or another code was read at the same spot: uncertain, the person checks the digits.
    case medium
    /// Error-corrected (QR), or the same digits read by both decoders (zxing and zbar), or, for EAN-13, UPC-A and
    /// Code 128, by zbar at two scales.
    case high

    private var rank: Int { self == .low ? 0 : self == .medium ? 1 : 2 }
    public static func < (lhs: BarcodeConfidence, rhs: BarcodeConfidence) -> Bool { lhs.rank < rhs.rank }
}

/// A pixel rectangle in the uploaded picture (not the region): where a code was seen.
public struct PixelBounds: Sendable, Hashable, Codable {
    public let x: Int
    public let y: Int
    public let width: Int
    public let height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The smallest bounds holding every one of `points` (nil without points).
    public init?(enclosing points: [(x: Int, y: Int)]) {
        guard let first = points.first else { return nil }
        var x0 = first.x, y0 = first.y, x1 = first.x, y1 = first.y
        for p in points { x0 = min(x0, p.x); y0 = min(y0, p.y); x1 = max(x1, p.x); y1 = max(y1, p.y) }
        self.init(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
    }
}

/// One code found in a picture.
public struct DecodedBarcode: Sendable, Hashable {
    public let format: BarcodeFormat
    /// The text as encoded: the digits of a product code (12 for UPC-A, 8 for UPC-E), a QR code's text.
    public let text: String
    /// The product number, for EAN/UPC codes (its ``GTIN/key`` is what to store and look up).
    public let gtin: GTIN?
    public let confidence: BarcodeConfidence
    /// The decoding pass that found it first (`"original"`, `"downscaled-2x"`, `"sharpened"`...).
    public let pass: String
    /// How many passes read exactly this code.
    public let agreeingPasses: Int
    /// The passes that read exactly this code, in the order they ran (for measuring and debugging).
    public let passes: [String]
    /// Where it was seen, when the decoder reports it.
    public let bounds: PixelBounds?

    /// Whether the read is not sure enough to use without asking: a product code or Code 128 that only one decoder
    /// read, with nothing independent (the other decoder, or the same one at another scale) reading the same digits.
    /// The app shows it and asks the person to check the digits against the label.
    public var isUncertain: Bool { confidence < .high }

    public init(format: BarcodeFormat, text: String, gtin: GTIN?, confidence: BarcodeConfidence, pass: String, agreeingPasses: Int, passes: [String] = [], bounds: PixelBounds?) {
        self.passes = passes.isEmpty ? [pass] : passes
        self.format = format
        self.text = text
        self.gtin = gtin
        self.confidence = confidence
        self.pass = pass
        self.agreeingPasses = agreeingPasses
        self.bounds = bounds
    }
}

extension DecodedBarcode {
    /// One code as the CLI prints it and the API returns it: the format, the text as encoded and,
    /// for product codes, the GTIN forms.
    public struct JSON: Codable, Sendable, Hashable {
        public let format: String
        public let text: String
        /// The canonical GTIN-14 key (what Nestory stores and looks up).
        public let gtin: String?
        public let gtin13: String?
        public let confidence: String
        /// True when the read is not sure (see ``DecodedBarcode/isUncertain``): ask the person to check the digits.
        public let uncertain: Bool
        public let pass: String

        public init(_ code: DecodedBarcode) {
            uncertain = code.isUncertain
            format = code.format.displayName
            text = code.text
            gtin = code.gtin?.key
            gtin13 = code.gtin?.gtin13
            confidence = code.confidence.rawValue
            pass = code.pass
        }
    }
}

/// Why a picture could not be searched for codes. "No code found" is not an error: it is an empty result.
public enum BarcodeReaderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The upload had no bytes.
    case emptyFile
    /// The bytes are not an image format the reader knows (PNG, JPEG, WebP, HEIC, TIFF, GIF).
    case notAnImage
    /// An image, but truncated or corrupt.
    case unreadableImage(String)
    /// More pixels than the reader accepts.
    case imageTooLarge(String)

    /// A message safe to show to people.
    public var message: String {
        switch self {
        case .emptyFile: return "The file is empty."
        case .notAnImage: return "The file is not an image (a PNG or JPEG photo of the barcode is needed)."
        case .unreadableImage: return "The image is damaged or incomplete and could not be read."
        case .imageTooLarge: return "The image is too large to scan; send a smaller photo."
        }
    }

    public var description: String {
        switch self {
        case .unreadableImage(let detail), .imageTooLarge(let detail): return "\(message) (\(detail))"
        default: return message
        }
    }
}

/// Finds barcodes in pictures: the interface the web layer and the CLI call.
public protocol BarcodeDecoding: Sendable {
    /// Every code found in an encoded picture (PNG, JPEG...), optionally only inside `region`.
    /// Throws ``BarcodeReaderError`` for an empty file, a non-image or a corrupt image; returns `[]` when the
    /// picture has no readable code.
    func decode(imageData: Data, region: BarcodeRegion?) throws(BarcodeReaderError) -> [DecodedBarcode]
}
