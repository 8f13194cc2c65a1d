import NestoryBarcodes
import CZBar
import CZBarLoader
import Foundation

/// One symbol as zbar reported it, in the coordinates of the picture it scanned.
struct RawSymbol: Sendable {
    let format: BarcodeFormat
    let text: String
    /// zbar's count of scan lines that decoded the same symbol (1D codes); 1 for QR.
    let quality: Int
    let points: [(x: Int, y: Int)]
    /// The lines zbar read a 1D code along (`both` when it cannot say); nil for zxing's reads and QR codes. zbar's
    /// points are where its scan lines left the code, so a read on one line is one point at one end of the code, and
    /// its length cannot be told from them; zxing's points are the code's ends.
    var lines: ZBarScanner.Lines? = nil

    /// The scan lines that cross the code's bars: the lines zbar read it along, or those along its points' longer side.
    var linesAcross: ZBarScanner.Lines { lines ?? ZBarScanner.Lines(across: points) }

    /// The same read with its lines as they lie in the picture turned a quarter back (rows become columns).
    var turnedAQuarter: RawSymbol {
        var turned = self
        turned.lines = lines.map { $0 == .rows ? .columns : $0 == .columns ? .rows : .both }
        return turned
    }
}

/// A configured zbar image scanner, for one pass over one picture (see ``BarcodeReader``). Not thread-safe.
final class ZBarScanner: @unchecked Sendable {
    /// nil when zbar could not be loaded (it is loaded on the first scanner, not at process start):
    /// scans then find nothing, and the reason is printed once on stderr.
    private let scanner: OpaquePointer?

    /// `Y800`: zbar's four-cc for 8-bit grey (`zbar_fourcc` is a C macro Swift cannot call).
    static let fourccY800: UInt = {
        let bytes = Array("Y800".utf8).map(UInt.init)
        return bytes[0] | bytes[1] << 8 | bytes[2] << 16 | bytes[3] << 24
    }()

    /// Which scan lines zbar follows: rows cross the bars of a code lying across the picture, columns those of one
    /// standing up.
    enum Lines: Sendable, Hashable {
        case rows, columns, both

        /// The lines that cross a 1D code within `bounds`: rows when its extreme points are more than 1.3 times as far
        /// apart across the picture as up it, columns the other way round, else both.
        init(crossing bounds: PixelBounds) {
            let width = bounds.width - 1, height = bounds.height - 1
            self = width * 10 > height * 13 ? .rows : height * 10 > width * 13 ? .columns : .both
        }

        /// The lines that cross a 1D code whose ends are at `points` (both without points).
        init(across points: [(x: Int, y: Int)]) {
            self = PixelBounds(enclosing: points).map(Self.init(crossing:)) ?? .both
        }
    }

    init(formats: Set<BarcodeFormat>, density: Int = 1, lines: Lines = .both) {
        guard let scanner = Self.loadError == nil ? zbar_image_scanner_create() : nil else {
            self.scanner = nil
            return
        }
        self.scanner = scanner
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        for format in formats {
            zbar_image_scanner_set_config(scanner, Self.symbolType(format), ZBAR_CFG_ENABLE, 1)
        }
        // UPC-A is otherwise reported as an EAN-13 with a leading zero; the GTIN key makes both equal anyway.
        if formats.contains(.upcA) { zbar_image_scanner_set_config(scanner, ZBAR_UPCA, ZBAR_CFG_ENABLE, 1) }
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_POSITION, 1)
        // zbar's X density is its columns' spacing, Y its rows' (0: none).
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_X_DENSITY, lines == .rows ? 0 : Int32(density))
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, lines == .columns ? 0 : Int32(density))
        // QR bytes come back raw: zbar's own guess of their character set garbles UTF-8 and Shift_JIS text.
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
    }

    deinit {
        if let scanner { zbar_image_scanner_destroy(scanner) }
    }

    /// Why zbar could not be loaded, or nil once it is (CZBarLoader; reported once on stderr).
    static let loadError: String? = {
        var message = [CChar](repeating: 0, count: 512)
        guard nz_zbar_load(&message, message.count) != 0 else { return nil }
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        FileHandle.standardError.write(Data("nestory: barcodes cannot be read: \(text)\n".utf8))
        return text
    }()

    static func symbolType(_ format: BarcodeFormat) -> zbar_symbol_type_t {
        switch format {
        case .ean13: return ZBAR_EAN13
        case .ean8: return ZBAR_EAN8
        case .upcA: return ZBAR_UPCA
        case .upcE: return ZBAR_UPCE
        case .code128: return ZBAR_CODE128
        case .qr: return ZBAR_QRCODE
        }
    }

    static func format(_ type: zbar_symbol_type_t) -> BarcodeFormat? {
        switch type {
        case ZBAR_EAN13: return .ean13
        case ZBAR_EAN8: return .ean8
        case ZBAR_UPCA: return .upcA
        case ZBAR_UPCE: return .upcE
        case ZBAR_CODE128: return .code128
        case ZBAR_QRCODE: return .qr
        default: return nil
        }
    }

    func scan(_ image: GrayImage) -> [RawSymbol] {
        guard let scanner, image.width > 0, image.height > 0 else { return [] }
        guard let zimage = zbar_image_create() else { return [] }
        defer { zbar_image_destroy(zimage) }
        zbar_image_set_format(zimage, Self.fourccY800)
        zbar_image_set_size(zimage, UInt32(image.width), UInt32(image.height))
        return image.pixels.withUnsafeBufferPointer { buffer -> [RawSymbol] in
            // zbar only reads the buffer, and the image is destroyed before the buffer goes away.
            zbar_image_set_data(zimage, UnsafeRawPointer(buffer.baseAddress), UInt(buffer.count), nil)
            guard zbar_scan_image(scanner, zimage) > 0 else { return [] }
            var symbols: [RawSymbol] = []
            var symbol = zbar_image_first_symbol(zimage)
            while let current = symbol {
                defer { symbol = zbar_symbol_next(current) }
                guard let format = Self.format(zbar_symbol_get_type(current)), let data = zbar_symbol_get_data(current) else { continue }
                let length = Int(zbar_symbol_get_data_length(current))
                let bytes = data.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
                let text = format == .qr ? TextDecoding.decode(bytes) : String(decoding: bytes, as: UTF8.self)
                let count = zbar_symbol_get_loc_size(current)
                let points = (0..<count).map { (x: Int(zbar_symbol_get_loc_x(current, $0)), y: Int(zbar_symbol_get_loc_y(current, $0))) }
                // Upright or upside down: read along rows; turned a quarter either way: along columns.
                let orientation = zbar_symbol_get_orientation(current)
                let lines: Lines? = format == .qr ? nil
                    : orientation == ZBAR_ORIENT_UP || orientation == ZBAR_ORIENT_DOWN ? .rows
                    : orientation == ZBAR_ORIENT_RIGHT || orientation == ZBAR_ORIENT_LEFT ? .columns : .both
                symbols.append(RawSymbol(format: format, text: text, quality: Int(zbar_symbol_get_quality(current)), points: points, lines: lines))
            }
            return symbols
        }
    }
}
