import Foundation
import NestoryChildProcess
import NestoryDemo
import NestoryDomain
import NestoryImagingLive
import NestoryReports
import Testing
@testable import NestoryPDF

/// Runs a poppler tool (pdftotext, pdfimages, pdfinfo) and returns its standard output.
func poppler(_ tool: String, _ arguments: [String]) throws -> String {
    let finished = try ChildProcess.run("/usr/bin/\(tool)", arguments)
    #expect(finished.exitCode == 0, "\(tool) failed")
    return finished.outputText
}

/// A temporary folder for one test.
final class Scratch {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-pdf-\(UUID().uuidString)")
    init() { try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: url) }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// JPEG files made with libvips from the demo pictures, each with distinct bytes.
func makeJPEGs(_ count: Int, in scratch: Scratch) async throws -> [ReportPhoto] {
    let imaging = try LibvipsImageProcessor()
    var photos: [ReportPhoto] = []
    for index in 0..<count {
        let jpeg = try await imaging.derive(from: DemoImages.photo(variant: index, width: 120, height: 90)).display.data
        #expect(jpeg.starts(with: [0xFF, 0xD8]))
        let path = scratch.path("photo-\(index).jpg")
        #expect(FileManager.default.createFile(atPath: path, contents: jpeg))
        photos.append(ReportPhoto(url: URL(fileURLWithPath: path), contentType: "image/jpeg", sha256: "photo-\(index)"))
    }
    return photos
}

/// The test household: names in several scripts, exact amounts, three currencies, gaps in the evidence.
func householdItems(photos: [ReportPhoto]) -> [ReportItem] {
    let names = ["Café Sofa €", "日本の花瓶", "Ωμέγα Watch", "Привет Lamp", "Zebra Rug", "Old Radio"]
    let prices = ["1234.56", "80.10", "999.99", "45.05", "0.01", nil]
    return names.enumerated().map { index, name in
        let row = reportItem(name, price: prices[index], quantity: index == 1 ? 3 : 1, room: index < 3 ? "Living Room" : "Office",
                             category: index == 5 ? nil : (index % 2 == 0 ? "Furniture" : "Art & Decor"), photo: false,
                             serial: index == 2 ? "SN-ΩΩ-42" : nil, purchased: "2020-02-29")
        return ReportItem(item: row.item, roomName: row.roomName, categoryName: row.categoryName, photoCount: index < 4 ? 1 : 0,
                          receiptCount: 0, photos: index < 4 ? [photos[index]] : [])
    } + [reportItem("Yen Teapot ¥", price: "5000", currency: .jpy, room: "Office", category: "Kitchenware", photo: false)]
}

func renderInventory(_ items: [ReportItem], options: InventoryReportOptions, to path: String) throws -> InventoryPDFRenderer {
    let source = MemorySource(rooms: ["Living Room", "Office"], categories: ["Furniture", "Art & Decor", "Kitchenware"], items: items)
    let renderer = try InventoryPDFRenderer(path: path, paper: options.paper)
    try ReportBuilder(source: source, header: header).buildInventory(options, into: renderer)
    return renderer
}

@Suite(.serialized) struct InventoryPDFTests {
    @Test func textMatchesTheDataToTheCentWithUnicodeIntact() async throws {
        let scratch = Scratch()
        let photos = try await makeJPEGs(4, in: scratch)
        let path = scratch.path("inventory.pdf")
        let renderer = try renderInventory(householdItems(photos: photos), options: InventoryReportOptions(includePhotos: true), to: path)
        let text = try poppler("pdftotext", ["-layout", path, "-"])
        for name in ["Café Sofa €", "日本の花瓶", "Ωμέγα Watch", "Привет Lamp", "Zebra Rug", "Old Radio", "Yen Teapot ¥", "SN-ΩΩ-42"] {
            #expect(text.contains(name), "missing \(name)")
        }
        // 1234.56 + 3 × 80.10 + 999.99 + 45.05 + 0.01 = 2519.91, and the yen separately.
        #expect(text.contains("$2,519.91 + ¥5,000"))
        #expect(text.contains("$240.30") && text.contains("3 × $80.10"))
        #expect(text.contains("Subtotal Living Room · 3 items"))
        #expect(text.contains("$2,474.85"))  // Living Room: 1234.56 + 240.30 + 999.99
        #expect(text.contains("Totals") && text.contains("By room") && text.contains("By category"))
        #expect(text.contains("The Smiths · Home inventory report · Generated 2025-11-22"))
        #expect(text.contains("Page 1") && text.contains("Page \(renderer.pageCount)"))
        let info = try poppler("pdfinfo", [path])
        #expect(info.contains("Page size:       595.276 x 841.89 pts (A4)"))
        let fonts = try poppler("pdffonts", [path])
        let fontLines = fonts.split(separator: "\n").dropFirst(2)
        #expect(fonts.contains("DejaVuSans") && fontLines.allSatisfy { $0.contains(" yes yes ") }, "every font embedded")
    }

    /// The cover's items-by-room chart counts every item (RoomCount.bars): with 13 rooms and items without one, eight
    /// rooms, "No room" and the five with fewest items together.
    @Test func theCoversRoomBarsCountEveryItem() throws {
        let scratch = Scratch()
        let rooms = (1...13).map { "Room \($0)" }
        var items = rooms.enumerated().flatMap { index, room in
            (0..<(14 - index - 1)).map { reportItem("Thing \(index)-\($0)", price: "1", room: room, photo: false) }
        }
        items += [reportItem("Loose", price: "1", room: nil, photo: false), reportItem("Stray", price: "1", room: nil, photo: false)]
        let path = scratch.path("rooms.pdf")
        let source = MemorySource(rooms: rooms, categories: ["Appliances"], items: items)
        let renderer = try InventoryPDFRenderer(path: path, paper: .a4)
        try ReportBuilder(source: source, header: header).buildInventory(InventoryReportOptions(includePhotos: false), into: renderer)
        let cover = try poppler("pdftotext", ["-layout", "-f", "1", "-l", "1", path, "-"])
        #expect(cover.contains("5 other rooms") && cover.contains("No room") && cover.contains("Room 8") && !cover.contains("Room 9 "), "\(cover)")
    }

    @Test func photosArePassedThroughAsTheirJPEGBytes() async throws {
        let scratch = Scratch()
        let photos = try await makeJPEGs(4, in: scratch)
        let path = scratch.path("inventory.pdf")
        let renderer = try renderInventory(householdItems(photos: photos), options: InventoryReportOptions(includePhotos: true), to: path)
        #expect(renderer.imageCount == 4)
        let list = try poppler("pdfimages", ["-list", path]).split(separator: "\n").dropFirst(2)
        #expect(list.count == 4)
        #expect(list.allSatisfy { $0.split(separator: " ", omittingEmptySubsequences: true)[8] == "jpeg" })
        // Extracted as-is (-j writes DCT streams unchanged): byte for byte the files we gave.
        _ = try poppler("pdfimages", ["-j", path, scratch.path("out")])
        let extracted = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).filter { $0.hasPrefix("out-") }.sorted()
        let originals = Set(try photos.map { try Data(contentsOf: $0.url) })
        #expect(extracted.count == 4)
        for file in extracted { #expect(originals.contains(try Data(contentsOf: URL(fileURLWithPath: scratch.path(file))))) }
    }

    @Test func optionsChangeWhatIsDrawn() async throws {
        let scratch = Scratch()
        let items = householdItems(photos: try await makeJPEGs(4, in: scratch))
        let plain = scratch.path("plain.pdf")
        _ = try renderInventory(items, options: InventoryReportOptions(grouping: .category, includePhotos: false, includeUndocumented: false,
                                                                       paper: .letter), to: plain)
        let text = try poppler("pdftotext", ["-layout", plain, "-"])
        #expect(try poppler("pdfimages", ["-list", plain]).split(separator: "\n").count == 2, "no images")
        #expect(try poppler("pdfinfo", [plain]).contains("612 x 792 pts (letter)"))
        #expect(text.contains("CATEGORY") && text.contains("Grouped by category · without photos · documented items only · US Letter"))
        #expect(text.contains("Café Sofa €") && !text.contains("Zebra Rug") && !text.contains("Old Radio"))
        #expect(!text.contains("PHOTO"))
    }

    /// The layout test: word boxes from pdftotext show a table whose columns line up and whose rows
    /// do not overlap. A broken table (a column drifting, rows drawn over each other) fails it.
    @Test func theTableLinesUp() async throws {
        let scratch = Scratch()
        let path = scratch.path("layout.pdf")
        let items = (0..<40).map { index in
            reportItem(String(format: "Item %02d", index) + (index % 7 == 0 ? " with a much longer name that has to wrap onto a second line" : ""),
                       price: "\(index * 3 + 1).25", room: "Living Room", photo: false, serial: "SER\(1000 + index)", purchased: "2021-03-04")
        }
        _ = try renderInventory(items, options: InventoryReportOptions(includePhotos: false), to: path)
        let html = try poppler("pdftotext", ["-bbox", "-f", "2", "-l", "2", path, "-"])
        struct Word { let x0, y0, x1, y1: Double; let text: String }
        let pattern = try NSRegularExpression(pattern: #"<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>"#)
        let words = pattern.matches(in: html, range: NSRange(html.startIndex..., in: html)).map { m -> Word in
            let s = { (i: Int) in String(html[Range(m.range(at: i), in: html)!]) }
            return Word(x0: Double(s(1))!, y0: Double(s(2))!, x1: Double(s(3))!, y1: Double(s(4))!, text: s(5))
        }
        let serials = words.filter { $0.text.hasPrefix("SER1") }
        let dates = words.filter { $0.text == "2021-03-04" }
        let amounts = words.filter { $0.text.hasPrefix("$") && $0.text.hasSuffix(".25") }
        #expect(serials.count >= 20, "a page holds at least 20 rows")
        #expect(serials.count == dates.count && dates.count == amounts.count, "\(serials.count) serials, \(dates.count) dates, \(amounts.count) amounts: \(amounts.map(\.text))")
        // Columns: left edges of serials and dates, right edges of amounts, each within half a point.
        for column in [serials.map(\.x0), dates.map(\.x0), amounts.map(\.x1)] {
            #expect(column.max()! - column.min()! < 0.5, "a column drifts: \(column.min()!)…\(column.max()!)")
        }
        #expect(serials[0].x0 < dates[0].x0 && dates[0].x0 < amounts[0].x0, "columns in order")
        // Rows: one serial per row, strictly below the previous one, never overlapping.
        let rows = serials.sorted { $0.y0 < $1.y0 }
        for (above, below) in zip(rows, rows.dropFirst()) { #expect(below.y0 >= above.y1, "rows overlap") }
        // Every amount sits on its serial's row.
        for serial in serials { #expect(amounts.contains { abs($0.y0 - serial.y0) < 1 }) }
    }

    /// Names as households write them: every character has a glyph (emoji sequences and flags included, with the fonts
    /// `make test-deps` installs), and a right-to-left name starts at the column's left edge like the others.
    @Test func namesInEveryScriptDrawWithoutBoxesAndKeepTheirColumn() throws {
        let names = ["Zebra", "שולחן", "مصباح", "می\u{200C}خواهم", "花瓶", "Ωμέγα", "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}",
                     "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}", "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", "e\u{0301}"]
        let scratch = Scratch()
        let canvas = try PDFCanvas(path: nil, width: 595, height: 842, title: "Glyphs", footer: "")
        for name in names { #expect(canvas.missingGlyphs(name, font: .bold(9)) == 0, "no font draws \(name.unicodeScalars.map { String($0.value, radix: 16) })") }

        let path = scratch.path("scripts.pdf")
        let columnNames = ["Zebra", "שולחן", "مصباح", "花瓶", "Ωμέγα"]
        let items = columnNames.map { reportItem($0, price: "10.00", room: "Living Room", photo: false, serial: "SER1") }
        _ = try renderInventory(items, options: InventoryReportOptions(includePhotos: false), to: path)
        let html = try poppler("pdftotext", ["-bbox", "-f", "2", "-l", "2", path, "-"])
        let pattern = try NSRegularExpression(pattern: #"<word xMin="([\d.]+)" yMin="[\d.]+" xMax="[\d.]+" yMax="[\d.]+">([^<]*)</word>"#)
        let left = Dictionary(pattern.matches(in: html, range: NSRange(html.startIndex..., in: html)).map { m in
            (String(html[Range(m.range(at: 2), in: html)!]), Double(html[Range(m.range(at: 1), in: html)!])!)
        }, uniquingKeysWith: min)
        let zebra = try #require(left["Zebra"], "\(html)")
        for name in columnNames.dropFirst() {
            // pdftotext may cut a right-to-left word into its letters: the name's left edge is its leftmost piece's.
            let x = try #require(left.filter { !$0.key.isEmpty && $0.key.allSatisfy(name.contains) }.values.min(),
                                 "\(name) is not on page 2: \(left.keys.sorted())")
            #expect(abs(x - zebra) < 0.5, "\(name) starts at \(x), Zebra at \(zebra)")
        }
    }

    @Test func aLargeReportStaysFlatAndReportsProgress() throws {
        let scratch = Scratch()
        let path = scratch.path("large.pdf")
        let items = (0..<2000).map { reportItem("Item \($0)", price: "\($0).99", room: $0 % 2 == 0 ? "Living Room" : "Office", photo: false) }
        let source = MemorySource(rooms: ["Living Room", "Office"], categories: ["Appliances"], items: items)
        let renderer = try InventoryPDFRenderer(path: path, paper: .a4)
        var progress: [Int] = []
        let start = Date()
        try ReportBuilder(source: source, header: header).buildInventory(InventoryReportOptions(includePhotos: false), into: renderer) { done, _ in
            progress.append(done)
        }
        #expect(Date().timeIntervalSince(start) < 60)
        #expect(progress.last == 2000 && progress.count > 30)
        #expect(renderer.pageCount > 50)
        let text = try poppler("pdftotext", [path, "-"])
        // Σ (i + 0.99) for i < 2000 = 1,999,000 + 1,980.00
        #expect(text.contains("$2,000,980.00"))
        #expect(text.contains("Item 1999") && text.contains("Item 0"))
    }
}

/// A page as pixels, through pdftoppm's PPM output (P6: a text header, then RGB bytes).
struct PageImage {
    let width: Int, height: Int
    let pixels: [UInt8]

    init(pdf: String, page: Int, dpi: Int, scratch: Scratch) throws {
        let prefix = scratch.path("page")
        _ = try poppler("pdftoppm", ["-r", "\(dpi)", "-f", "\(page)", "-l", "\(page)", "-singlefile", pdf, prefix])
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: prefix + ".ppm")))
        var fields: [String] = [], index = 0, current = ""
        while fields.count < 4 {
            let byte = data[index]; index += 1
            if byte == 0x20 || byte == 0x0A { if !current.isEmpty { fields.append(current); current = "" } } else { current.append(Character(UnicodeScalar(byte))) }
        }
        width = Int(fields[1])!
        height = Int(fields[2])!
        pixels = Array(data[index...])
    }

    func rgb(_ x: Int, _ y: Int) -> (Int, Int, Int) {
        let i = (y * width + x) * 3
        return (Int(pixels[i]), Int(pixels[i + 1]), Int(pixels[i + 2]))
    }
}

@Suite struct PageImageTests {
    /// At a glance, as pixels: the cover's accent bar, a donut with the categories' colours, and bars.
    @Test func theCoverDrawsItsChartsAsVectorShapes() async throws {
        let scratch = Scratch()
        let path = scratch.path("cover.pdf")
        let categories = Defaults.categories.prefix(6).map(\.name)
        let items = categories.enumerated().map { index, name in
            reportItem("Thing \(index)", price: "\(100 * (index + 1)).00", room: index % 2 == 0 ? "Living Room" : "Office", category: name, photo: false)
        }
        let source = MemorySource(rooms: ["Living Room", "Office"], categories: categories, items: items)
        let renderer = try InventoryPDFRenderer(path: path, paper: .a4)
        try ReportBuilder(source: source, header: header).buildInventory(InventoryReportOptions(includePhotos: false), into: renderer)
        let page = try PageImage(pdf: path, page: 1, dpi: 36, scratch: scratch)
        #expect(page.width == 298 && page.height == 421)
        // The accent bar across the top (teal #0F766E-ish).
        let bar = page.rgb(page.width / 2, 19)
        #expect(bar.0 < 60 && bar.1 > 90 && bar.2 > 80, "accent bar: \(bar)")
        // The donut: each category's colour appears in its area.
        var colours = Set<String>()
        for y in 120..<240 { for x in 15..<110 {
            let (r, g, b) = page.rgb(x, y)
            if max(r, g, b) - min(r, g, b) > 60 { colours.insert("\(r / 32),\(g / 32),\(b / 32)") }
        } }
        for seed in Defaults.categories.prefix(6) {
            let colour = RGB(hex: seed.colorHex)
            let key = "\(Int(colour.r * 255) / 32),\(Int(colour.g * 255) / 32),\(Int(colour.b * 255) / 32)"
            #expect(colours.contains(key), "no \(seed.name) slice (\(seed.colorHex))")
        }
    }
}

@Suite struct LossListPDFTests {
    @Test func theLossListHasTheIncidentTableTotalsAndPhotoPages() async throws {
        let scratch = Scratch()
        let photos = try await makeJPEGs(4, in: scratch)
        let items = householdItems(photos: photos)
        let source = MemorySource(rooms: ["Living Room", "Office"], categories: [], items: items)
        let incident = Incident(date: try CalendarDate(iso: "2025-09-30"), type: .water, description: "Burst pipe in the ceiling — 水害.",
                                policyNumber: "HO-12", claimNumber: "CLM-7")
        let chosen = items.prefix(4).map(\.item.id) + [items[5].item.id]
        let path = scratch.path("loss.pdf")
        let renderer = try LossListPDFRenderer(path: path, paper: .letter)
        try ReportBuilder(source: source, header: header).buildLossList(LossListOptions(incident: incident, itemIDs: chosen, paper: .letter),
                                                                        into: renderer)
        let text = try poppler("pdftotext", ["-layout", path, "-"])
        for expected in ["Water damage", "2025-09-30", "HO-12", "CLM-7", "Burst pipe in the ceiling — 水害.", "Café Sofa €", "日本の花瓶",
                         "SN-ΩΩ-42", "Old Radio", "5 (7 pieces)", "$2,519.90", "5 yrs", "#1 ", "Photos"] {
            #expect(text.contains(expected), "missing \(expected)")
        }
        #expect(!text.contains("Zebra Rug") && !text.contains("Yen Teapot"))
        #expect(try poppler("pdfinfo", [path]).contains("792 x 612 pts"), "landscape letter")
        #expect(renderer.imageCount == 4)
        #expect(renderer.pageCount == 2)
    }
}
