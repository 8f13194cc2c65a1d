import Foundation

/// Checks and derives uploaded photos: the interface the web layer depends on.
///
/// The live implementation is `LibvipsImageProcessor` in `NestoryImagingLive`; tests use
/// ``ImageProcessingMock``. Originals are never modified: callers store the uploaded bytes as they
/// came and keep only the derived images from here.
public protocol ImageProcessing: Sendable {
    /// The limits this processor enforces.
    var limits: ImagingLimits { get }

    /// Reads the file's header only (no pixel is decoded) and tells its format and size.
    ///
    /// Throws ``ImagingError/empty``, ``ImagingError/fileTooLarge(byteCount:limit:)`` (checked before
    /// anything is read), ``ImagingError/unsupportedFormat``, ``ImagingError/unreadable(detail:)``
    /// (a header that cannot be parsed), or ``ImagingError/tooManyPixels(format:width:height:limit:)``
    /// (a decompression bomb is refused here, from its header).
    func probe(_ original: Data) async throws(ImagingError) -> ImageInfo

    /// Probes the file, then makes the thumbnail and the display image: upright (EXIF orientation
    /// applied), sRGB, alpha flattened on white, every piece of metadata (EXIF, GPS, XMP, IPTC, ICC)
    /// stripped. Throws what ``probe(_:)`` throws, and ``ImagingError/unreadable(detail:)`` for a
    /// truncated or corrupt image.
    func derive(from original: Data) async throws(ImagingError) -> DerivedImages
}

/// What an image's header says. Width and height are as stored; ``orientedWidth`` and
/// ``orientedHeight`` are as the photo is meant to be seen (after its EXIF orientation).
public struct ImageInfo: Sendable, Hashable, Codable {
    public var format: ImageFormat
    public var width: Int
    public var height: Int
    /// EXIF orientation, 1...8 (1 means upright as stored).
    public var orientation: Int
    public var hasAlpha: Bool
    public var byteCount: Int

    public init(format: ImageFormat, width: Int, height: Int, orientation: Int = 1, hasAlpha: Bool = false, byteCount: Int) {
        self.format = format
        self.width = width
        self.height = height
        self.orientation = orientation
        self.hasAlpha = hasAlpha
        self.byteCount = byteCount
    }

    public var pixelCount: Int { width * height }

    /// Orientations 5...8 turn the image a quarter, swapping width and height.
    public var orientedWidth: Int { (5...8).contains(orientation) ? height : width }
    public var orientedHeight: Int { (5...8).contains(orientation) ? width : height }
}

/// Upload limits, checked before any pixel is decoded.
public struct ImagingLimits: Sendable, Hashable, Codable {
    /// Largest accepted width × height.
    public var maxPixels: Int
    /// Largest accepted file, in bytes.
    public var maxFileBytes: Int

    /// 60 megapixels and 40 MB: above any phone camera today, far below a decompression bomb.
    public init(maxPixels: Int = 60_000_000, maxFileBytes: Int = 40 * 1024 * 1024) {
        self.maxPixels = maxPixels
        self.maxFileBytes = maxFileBytes
    }

    /// The limit a header breaks, if any.
    public func violation(for info: ImageInfo) -> ImagingError? {
        if info.byteCount > maxFileBytes {
            return .fileTooLarge(byteCount: info.byteCount, limit: maxFileBytes)
        }
        // Multiplying two huge header values could overflow: compare without multiplying.
        if info.width > 0, info.height > maxPixels / info.width {
            return .tooManyPixels(format: info.format, width: info.width, height: info.height, limit: maxPixels)
        }
        return nil
    }
}

/// Encoders for derived images.
public enum DerivedImageFormat: String, Sendable, Hashable, Codable {
    case jpeg
    case webp

    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .webp: "image/webp"
        }
    }

    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .webp: "webp"
        }
    }
}

/// Sizes and encoding of the derived images.
public struct DerivativeSettings: Sendable, Hashable, Codable {
    /// Long side of the thumbnail (list cells, grid cards), in pixels.
    public var thumbnailMaxSize: Int
    /// Long side of the display image (item detail, carousel, PDFs), in pixels.
    public var displayMaxSize: Int
    public var thumbnailQuality: Int
    public var displayQuality: Int
    public var format: DerivedImageFormat

    public init(
        thumbnailMaxSize: Int = 320,
        displayMaxSize: Int = 1600,
        thumbnailQuality: Int = 80,
        displayQuality: Int = 82,
        format: DerivedImageFormat = .jpeg
    ) {
        self.thumbnailMaxSize = thumbnailMaxSize
        self.displayMaxSize = displayMaxSize
        self.thumbnailQuality = thumbnailQuality
        self.displayQuality = displayQuality
        self.format = format
    }
}

/// One derived image: encoded bytes with no metadata, and its pixel size.
public struct DerivedImage: Sendable, Hashable {
    public var data: Data
    public var width: Int
    public var height: Int
    public var format: DerivedImageFormat

    public init(data: Data, width: Int, height: Int, format: DerivedImageFormat) {
        self.data = data
        self.width = width
        self.height = height
        self.format = format
    }
}

/// The images derived from one upload, and what its header said.
public struct DerivedImages: Sendable, Hashable {
    public var original: ImageInfo
    public var thumbnail: DerivedImage
    public var display: DerivedImage

    public init(original: ImageInfo, thumbnail: DerivedImage, display: DerivedImage) {
        self.original = original
        self.thumbnail = thumbnail
        self.display = display
    }
}
