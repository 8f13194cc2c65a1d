import NestoryBarcodes
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns a QR code's bytes into text. QR codes rarely say their character set: like other readers, take
/// valid UTF-8 as UTF-8, then Shift_JIS when the bytes read as Japanese, and ISO-8859-1 (QR's default) otherwise.
enum TextDecoding {
    static func decode(_ bytes: [UInt8]) -> String {
        if let utf8 = String(validating: bytes, as: UTF8.self) { return utf8 }
        if looksLikeShiftJIS(bytes), let text = iconvDecode(bytes, from: "CP932") { return text }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    /// Whether the bytes are well-formed Shift_JIS with Japanese in them (a double-byte character or
    /// half-width katakana), rather than Latin-1 text with a few accents.
    static func looksLikeShiftJIS(_ bytes: [UInt8]) -> Bool {
        var index = 0, japanese = 0
        while index < bytes.count {
            let b = bytes[index]
            switch b {
            case 0x00...0x7F:
                index += 1
            case 0xA1...0xDF:
                japanese += 1
                index += 1
            case 0x81...0x9F, 0xE0...0xFC:
                guard index + 1 < bytes.count else { return false }
                let trail = bytes[index + 1]
                guard (0x40...0x7E).contains(trail) || (0x80...0xFC).contains(trail) else { return false }
                japanese += 1
                index += 2
            default:
                return false
            }
        }
        return japanese > 0
    }

    static func iconvDecode(_ bytes: [UInt8], from encoding: String) -> String? {
        let converter = iconv_open("UTF-8", encoding)
        guard let converter, Int(bitPattern: converter) != -1 else { return nil }
        defer { iconv_close(converter) }
        var input = bytes.map { CChar(bitPattern: $0) }
        var output = [CChar](repeating: 0, count: bytes.count * 4 + 4)
        let ok = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                var inPointer: UnsafeMutablePointer<CChar>? = inBuffer.baseAddress
                var outPointer: UnsafeMutablePointer<CChar>? = outBuffer.baseAddress
                var inLeft = inBuffer.count, outLeft = outBuffer.count
                let result = iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft)
                return result != -1 && inLeft == 0 ? outBuffer.count - outLeft : nil
            }
        }
        guard let ok else { return nil }
        return String(validating: output.prefix(ok).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
