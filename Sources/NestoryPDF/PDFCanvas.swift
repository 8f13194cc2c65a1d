import CPangoCairo
import CPangoCairoLoader
import Foundation
import NestoryReports

/// Why a PDF could not be written.
public enum PDFError: Error, Equatable, Sendable, CustomStringConvertible {
    /// cairo reported an error (a file that cannot be written, no memory).
    case cairo(String)

    public var description: String {
        switch self {
        case .cairo(let message): return "The PDF could not be written: \(message)."
        }
    }

    /// cairo's status in words; a failed write (cairo does not say why) names the usual causes.
    static func failure(_ status: cairo_status_t) -> PDFError {
        if status == CAIRO_STATUS_WRITE_ERROR { return .cairo("writing the file failed (is the disk full, or the folder not writable?)") }
        return .cairo(String(cString: cairo_status_to_string(status)))
    }
}

/// A colour as red, green, blue in 0...1.
struct RGB {
    let r, g, b: Double

    init(_ r: Double, _ g: Double, _ b: Double) { (self.r, self.g, self.b) = (r, g, b) }

    /// `#RRGGBB`; grey when malformed.
    init(hex: String) {
        let digits = hex.dropFirst()
        guard hex.count == 7, let value = UInt32(digits, radix: 16) else { self.init(0.58, 0.64, 0.72); return }
        self.init(Double((value >> 16) & 0xFF) / 255, Double((value >> 8) & 0xFF) / 255, Double(value & 0xFF) / 255)
    }

    static let text = RGB(0.07, 0.09, 0.15)
    static let muted = RGB(0.42, 0.45, 0.50)
    static let line = RGB(0.86, 0.88, 0.91)
    static let band = RGB(0.95, 0.96, 0.97)
    static let accent = RGB(0.06, 0.46, 0.43)
    static let ok = RGB(0.08, 0.50, 0.24)
    static let warn = RGB(0.71, 0.33, 0.04)
    static let white = RGB(1, 1, 1)
}

/// A font: DejaVu Sans (any script it lacks, such as CJK, falls back through fontconfig).
struct Font: Hashable {
    let size: Double
    let bold: Bool

    static func regular(_ size: Double) -> Font { Font(size: size, bold: false) }
    static func bold(_ size: Double) -> Font { Font(size: size, bold: true) }
}

enum Align { case left, right, center }

/// A page-by-page PDF on a cairo PDF surface: text through pango (shaped, wrapped, any script,
/// fonts embedded as subsets), vector shapes, and photos. Pages are written to the file as they are
/// finished, so memory does not grow with the page count.
final class PDFCanvas {
    private let surface: OpaquePointer
    let cr: OpaquePointer
    private(set) var width: Double
    private(set) var height: Double
    let margin: Double = 36
    let footerHeight: Double = 26
    private(set) var pageNumber = 0
    private var pageOpen = false
    /// Footer text, left of the page number.
    var footer: String
    private var layouts: [Font: OpaquePointer] = [:]
    private var fonts: [Font: OpaquePointer] = [:]
    private(set) var imageCount = 0
    /// Set for a layout pass: pages are laid out and counted, nothing is drawn or written.
    let dryRun: Bool
    /// The page count, when a layout pass has found it: the footer then says "Page 3 of 40".
    let totalPages: Int?

    /// `path` nil makes a layout pass (see `dryRun`).
    init(path: String?, width: Double, height: Double, title: String, footer: String, totalPages: Int? = nil) throws {
        dryRun = path == nil
        self.totalPages = totalPages
        // cairo and pango are loaded on the first PDF, not at process start (CPangoCairoLoader).
        var loadError = [CChar](repeating: 0, count: 512)
        guard np_pangocairo_load(&loadError, loadError.count) == 0 else {
            throw PDFError.cairo(String(decoding: loadError.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        let created = path.map { cairo_pdf_surface_create($0, width, height) } ?? cairo_pdf_surface_create_for_stream(nil, nil, width, height)
        guard let surface = created else { throw PDFError.cairo("no surface") }
        if cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS {
            let error = PDFError.failure(cairo_surface_status(surface))
            cairo_surface_destroy(surface)
            throw error
        }
        self.surface = surface
        cr = cairo_create(surface)
        self.width = width
        self.height = height
        self.footer = footer
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, title)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "Nestory")
    }

    deinit {
        for layout in layouts.values { g_object_unref(UnsafeMutableRawPointer(layout)) }
        for font in fonts.values { pango_font_description_free(font) }
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
    }

    var contentTop: Double { margin }
    var contentBottom: Double { height - margin - footerHeight }
    var contentWidth: Double { width - 2 * margin }

    /// Ends the current page (if any) and starts the next, of the given size, with its footer.
    func newPage(width: Double? = nil, height: Double? = nil) throws {
        if pageOpen { cairo_show_page(cr) }
        try check()
        if let width, let height, width != self.width || height != self.height {
            self.width = width
            self.height = height
            cairo_pdf_surface_set_size(surface, width, height)
        }
        pageNumber += 1
        pageOpen = true
        drawFooter()
    }

    private func drawFooter() {
        let y = height - margin - 10
        fill(x: margin, y: y - 6, width: contentWidth, height: 0.6, color: .line)
        text(footer, x: margin, y: y, width: contentWidth - 90, font: .regular(7.5), color: .muted, maxLines: 1)
        text(totalPages.map { "Page \(pageNumber) of \($0)" } ?? "Page \(pageNumber)", x: width - margin - 90, y: y, width: 90,
             font: .regular(7.5), color: .muted, align: .right)
    }

    /// Finishes the document and closes the file.
    func finish() throws {
        if !pageOpen { try newPage() }
        cairo_show_page(cr)
        pageOpen = false
        cairo_surface_finish(surface)
        try check()
    }

    private func check() throws {
        let status = cairo_surface_status(surface)
        if status != CAIRO_STATUS_SUCCESS { throw PDFError.failure(status) }
        let crStatus = cairo_status(cr)
        if crStatus != CAIRO_STATUS_SUCCESS { throw PDFError.failure(crStatus) }
    }

    // MARK: - Text

    private func layout(_ font: Font) -> OpaquePointer {
        if let layout = layouts[font] { return layout }
        let layout = pango_cairo_create_layout(cr)!
        // Sizes are in PDF points: 72 units per inch, not the 96 pango assumes for screens.
        pango_cairo_context_set_resolution(pango_layout_get_context(layout), 72)
        pango_layout_context_changed(layout)
        let description = pango_font_description_from_string("DejaVu Sans\(font.bold ? " Bold" : "") \(font.size)")!
        fonts[font] = description
        pango_layout_set_font_description(layout, description)
        // Every paragraph left to right, so a cell's alignment holds for any script: by default pango gives each
        // paragraph its first strong letter's direction, and a Hebrew or Arabic name sat at the right edge of a
        // left-aligned column. The letters of a right-to-left name are still ordered right to left.
        pango_layout_set_auto_dir(layout, 0)
        layouts[font] = layout
        return layout
    }

    private func prepare(_ text: String, width: Double, font: Font, align: Align, maxLines: Int?) -> OpaquePointer {
        let layout = layout(font)
        pango_layout_set_width(layout, Int32(max(1, width) * Double(PANGO_SCALE)))
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        if let maxLines {
            pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
            pango_layout_set_height(layout, Int32(-maxLines))
        } else {
            pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_NONE)
            pango_layout_set_height(layout, -1)
        }
        switch align {
        case .left: pango_layout_set_alignment(layout, PANGO_ALIGN_LEFT)
        case .right: pango_layout_set_alignment(layout, PANGO_ALIGN_RIGHT)
        case .center: pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER)
        }
        pango_layout_set_text(layout, text, -1)
        return layout
    }

    /// The height `text` takes when drawn with these settings.
    func measure(_ text: String, width: Double, font: Font, maxLines: Int? = nil) -> Double {
        guard !text.isEmpty else { return 0 }
        let layout = prepare(text, width: width, font: font, align: .left, maxLines: maxLines)
        var w: Int32 = 0, h: Int32 = 0
        pango_layout_get_size(layout, &w, &h)
        return Double(h) / Double(PANGO_SCALE)
    }

    /// How many of `text`'s characters no installed font has (drawn as boxes with their code inside).
    func missingGlyphs(_ text: String, font: Font) -> Int {
        Int(pango_layout_get_unknown_glyphs_count(prepare(text, width: 10_000, font: font, align: .left, maxLines: nil)))
    }

    /// Draws `text` with its top-left corner at (x, y), wrapped to `width`; returns the height used.
    @discardableResult
    func text(_ text: String, x: Double, y: Double, width: Double, font: Font, color: RGB = .text, align: Align = .left,
              maxLines: Int? = nil) -> Double {
        guard !text.isEmpty else { return 0 }
        let layout = prepare(text, width: width, font: font, align: align, maxLines: maxLines)
        var w: Int32 = 0, h: Int32 = 0
        pango_layout_get_size(layout, &w, &h)
        if !dryRun {
            setColor(color)
            cairo_move_to(cr, x, y)
            pango_cairo_show_layout(cr, layout)
        }
        return Double(h) / Double(PANGO_SCALE)
    }

    // MARK: - Shapes

    func setColor(_ color: RGB) { cairo_set_source_rgb(cr, color.r, color.g, color.b) }

    func fill(x: Double, y: Double, width: Double, height: Double, color: RGB, radius: Double = 0) {
        setColor(color)
        roundedRect(x: x, y: y, width: width, height: height, radius: radius)
        cairo_fill(cr)
    }

    func stroke(x: Double, y: Double, width: Double, height: Double, color: RGB, lineWidth: Double = 0.8, radius: Double = 0) {
        setColor(color)
        cairo_set_line_width(cr, lineWidth)
        roundedRect(x: x, y: y, width: width, height: height, radius: radius)
        cairo_stroke(cr)
    }

    func roundedRect(x: Double, y: Double, width: Double, height: Double, radius: Double) {
        guard radius > 0 else { cairo_rectangle(cr, x, y, width, height); return }
        let r = min(radius, width / 2, height / 2)
        cairo_new_sub_path(cr)
        cairo_arc(cr, x + width - r, y + r, r, -.pi / 2, 0)
        cairo_arc(cr, x + width - r, y + height - r, r, 0, .pi / 2)
        cairo_arc(cr, x + r, y + height - r, r, .pi / 2, .pi)
        cairo_arc(cr, x + r, y + r, r, .pi, 3 * .pi / 2)
        cairo_close_path(cr)
    }

    /// A ring segment (for the donut chart), angles in radians clockwise from 12 o'clock.
    func ringSegment(cx: Double, cy: Double, outer: Double, inner: Double, from start: Double, to end: Double, color: RGB) {
        setColor(color)
        cairo_new_path(cr)
        cairo_arc(cr, cx, cy, outer, start - .pi / 2, end - .pi / 2)
        cairo_arc_negative(cr, cx, cy, inner, end - .pi / 2, start - .pi / 2)
        cairo_close_path(cr)
        cairo_fill(cr)
    }

    // MARK: - Photos

    /// Draws a photo fitted inside the box (centred, aspect kept). JPEGs are embedded as their own
    /// bytes (no decoding, no re-encoding); PNGs are decoded and stored losslessly. Returns false when
    /// the file cannot be shown (missing, another format).
    @discardableResult
    func photo(_ photo: ReportPhoto, x: Double, y: Double, width: Double, height: Double) -> Bool {
        if dryRun { return true }  // a photo's box has a fixed size: the layout does not depend on it
        guard let data = FileManager.default.contents(atPath: photo.url.path) else { return false }
        if let size = JPEGInfo.size(of: data) {
            let (w, h) = fit(Double(size.width), Double(size.height), in: width, height)
            // A surface the size of the box in points carries the JPEG as its MIME data: the PDF
            // surface writes the bytes unchanged (DCTDecode) and scales them into the surface's extent.
            let pw = max(1, Int32(w.rounded())), ph = max(1, Int32(h.rounded()))
            guard let image = cairo_image_surface_create(CAIRO_FORMAT_RGB24, pw, ph) else { return false }
            defer { cairo_surface_destroy(image) }
            let buffer = malloc(data.count)!
            data.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: data.count) }
            cairo_surface_set_mime_data(image, "image/jpeg", buffer.assumingMemoryBound(to: UInt8.self), UInt(data.count),
                                        { free($0) }, buffer)
            // The same photo used twice is embedded once.
            let unique = strdup(photo.sha256)!
            cairo_surface_set_mime_data(image, "application/x-cairo.uuid", UnsafeMutableRawPointer(unique).assumingMemoryBound(to: UInt8.self),
                                        UInt(strlen(unique)), { free($0) }, unique)
            let ox = x + (width - Double(pw)) / 2, oy = y + (height - Double(ph)) / 2
            cairo_save(cr)
            cairo_set_source_surface(cr, image, ox, oy)
            cairo_rectangle(cr, ox, oy, Double(pw), Double(ph))
            cairo_fill(cr)
            cairo_restore(cr)
            imageCount += 1
            return true
        }
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            guard let image = cairo_image_surface_create_from_png(photo.url.path) else { return false }
            defer { cairo_surface_destroy(image) }
            guard cairo_surface_status(image) == CAIRO_STATUS_SUCCESS else { return false }
            let iw = Double(cairo_image_surface_get_width(image)), ih = Double(cairo_image_surface_get_height(image))
            guard iw > 0, ih > 0 else { return false }
            let (w, h) = fit(iw, ih, in: width, height)
            let ox = x + (width - w) / 2, oy = y + (height - h) / 2
            cairo_save(cr)
            cairo_translate(cr, ox, oy)
            cairo_scale(cr, w / iw, h / ih)
            cairo_set_source_surface(cr, image, 0, 0)
            cairo_paint(cr)
            cairo_restore(cr)
            imageCount += 1
            return true
        }
        return false
    }

    private func fit(_ w: Double, _ h: Double, in boxW: Double, _ boxH: Double) -> (Double, Double) {
        let scale = min(boxW / w, boxH / h)
        return (w * scale, h * scale)
    }
}

/// The pixel size of a JPEG from its frame header, without decoding it.
enum JPEGInfo {
    static func size(of data: Data) -> (width: Int, height: Int)? {
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> (Int, Int)? in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
            var i = 2
            while i + 9 < bytes.count {
                guard bytes[i] == 0xFF else { return nil }
                let marker = bytes[i + 1]
                if marker == 0xFF { i += 1; continue }
                if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
                let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
                // Start-of-frame markers (baseline, extended, progressive, lossless), not DHT/JPG/DAC.
                if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                    let height = Int(bytes[i + 5]) << 8 | Int(bytes[i + 6])
                    let width = Int(bytes[i + 7]) << 8 | Int(bytes[i + 8])
                    return width > 0 && height > 0 ? (width, height) : nil
                }
                if marker == 0xDA { return nil }
                i += 2 + length
            }
            return nil
        }
    }
}
