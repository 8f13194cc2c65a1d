import Foundation

/// The photo formats Nestory accepts as uploads. Anything else is refused.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, Codable {
    case jpeg
    case png
    case heic
    case webp

    /// The media type to store and serve the original with.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .heic: "image/heic"
        case .webp: "image/webp"
        }
    }

    /// The usual file extension, without a dot.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .heic: "heic"
        case .webp: "webp"
        }
    }

    /// Recognises an accepted format from the file's first bytes (its signature), never from a
    /// name or a client-supplied content type. Returns `nil` for anything else, including AVIF
    /// (a HEIF container holding AV1 rather than HEVC).
    public static func sniff(_ bytes: some DataProtocol) -> ImageFormat? {
        let head = Array(bytes.prefix(64))
        if head.starts(with: [0xFF, 0xD8, 0xFF]) {
            return .jpeg
        }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return .png
        }
        if head.count >= 12, head[0..<4] == [0x52, 0x49, 0x46, 0x46], head[8..<12] == [0x57, 0x45, 0x42, 0x50] {
            return .webp  // "RIFF" size "WEBP"
        }
        if isHEIC(head) {
            return .heic
        }
        return nil
    }

    /// An ISO-BMFF `ftyp` box whose major or compatible brands name HEVC-coded HEIF.
    private static func isHEIC(_ head: [UInt8]) -> Bool {
        guard head.count >= 16, head[4..<8] == [0x66, 0x74, 0x79, 0x70] else { return false }  // "ftyp"
        let boxSize = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
        guard boxSize >= 16 else { return false }
        var brands: [String] = [String(decoding: head[8..<12], as: UTF8.self)]
        var offset = 16  // after the major brand and minor version
        while offset + 4 <= min(boxSize, head.count) {
            brands.append(String(decoding: head[offset..<offset + 4], as: UTF8.self))
            offset += 4
        }
        let hevcBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx"]
        let genericBrands: Set<String> = ["mif1", "msf1"]
        let av1Brands: Set<String> = ["avif", "avis"]
        if brands.contains(where: hevcBrands.contains) {
            return true
        }
        // A generic HEIF brand alone: accept unless it says AV1 (the decoder checks the codec again).
        return brands.contains(where: genericBrands.contains) && !brands.contains(where: av1Brands.contains)
    }
}
