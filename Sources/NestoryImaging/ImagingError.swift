/// Why an upload cannot become a photo. The web layer maps these to HTTP statuses; ``code`` is
/// stable (for the JSON API) and ``message`` is safe to show to the person uploading.
public enum ImagingError: Error, Sendable, Hashable {
    /// The upload has no bytes.
    case empty
    /// Bigger than ``ImagingLimits/maxFileBytes``; refused before anything is read.
    case fileTooLarge(byteCount: Int, limit: Int)
    /// Not JPEG, PNG, HEIC or WebP (judged from the bytes, never from a name or content type).
    case unsupportedFormat
    /// The header announces more pixels than ``ImagingLimits/maxPixels``: refused before decoding.
    case tooManyPixels(format: ImageFormat, width: Int, height: Int, limit: Int)
    /// Truncated or corrupt. `detail` is libvips' message, for logs (not for people).
    case unreadable(detail: String)
    /// The image read fine but could not be processed (an encoder or library failure).
    /// `detail` is for logs.
    case processingFailed(detail: String)

    /// A stable machine-readable code.
    public var code: String {
        switch self {
        case .empty: "image_empty"
        case .fileTooLarge: "image_file_too_large"
        case .unsupportedFormat: "image_unsupported_format"
        case .tooManyPixels: "image_too_many_pixels"
        case .unreadable: "image_unreadable"
        case .processingFailed: "image_processing_failed"
        }
    }

    /// A message for the person uploading. It never includes library detail.
    public var message: String {
        switch self {
        case .empty:
            return "The file is empty."
        case .fileTooLarge(let byteCount, let limit):
            return "The file is \(Self.megabytes(byteCount)); photos can be at most \(Self.megabytes(limit))."
        case .unsupportedFormat:
            return "This file is not a photo Nestory can use. Upload a JPEG, PNG, HEIC or WebP image."
        case .tooManyPixels(_, let width, let height, let limit):
            let megapixels = Double(width) * Double(height) / 1_000_000
            return "The image is \(width) × \(height) pixels (\(Self.oneDecimal(megapixels)) megapixels); "
                + "photos can be at most \(Self.oneDecimal(Double(limit) / 1_000_000)) megapixels."
        case .unreadable:
            return "The image could not be read: it may be damaged or incomplete. Try uploading it again."
        case .processingFailed:
            return "The image could not be processed. Try again, or try another photo."
        }
    }

    private static func megabytes(_ bytes: Int) -> String {
        "\(oneDecimal(Double(bytes) / 1_048_576)) MB"
    }

    private static func oneDecimal(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0
            ? String(Int(tenths / 10)) : String(tenths / 10)
    }
}
