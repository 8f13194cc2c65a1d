import Foundation
import NestoryDomain
import NestoryReports

/// The full inventory report as a PDF: a cover with totals and charts, a table per room or category
/// with subtotals, and totals by room and by category at the end. Rows are drawn as they arrive.
public final class InventoryPDFRenderer: InventoryReportSink {
    private let canvas: PDFCanvas
    private var options = InventoryReportOptions()
    private var header: ReportHeader?
    private var y: Double = 0
    private var currentGroup: ReportGroup?
    private var columns: [Column] = []
    private var rowIndex = 0
    /// Items valued from market prices, for the sources appendix (the first `appendixLimit`; the rest are counted).
    private var marketValued: [ValuationAppendix.Entry] = []
    private var marketOmitted = 0
    static let appendixLimit = 500

    /// Photos embedded so far (for tests and benchmarks).
    public var imageCount: Int { canvas.imageCount }
    public var pageCount: Int { canvas.pageNumber }

    enum ColumnKind { case photo, item, serial, purchased, condition, value, evidence }

    struct Column {
        let kind: ColumnKind
        let title: String
        let width: Double
        let align: Align
    }

    /// - Parameters:
    ///   - path: the PDF to write; nil for a layout pass that only counts the pages.
    ///   - totalPages: from a layout pass, for "Page 3 of 40" footers.
    public init(path: String?, paper: PaperSize, totalPages: Int? = nil) throws {
        let size = paper.points
        canvas = try PDFCanvas(path: path, width: size.width, height: size.height, title: "Home Inventory Report", footer: "",
                               totalPages: totalPages)
    }

    public func begin(_ cover: InventoryCover) throws {
        options = cover.options
        header = cover.header
        canvas.footer = "\(cover.header.householdName) · Home inventory report · Generated \(cover.header.generatedOn.iso)"
        let photo = options.includePhotos ? 54.0 : 0
        let fixed = 86.0 + 60 + 54 + 82 + 62
        columns = (options.includePhotos ? [Column(kind: .photo, title: "Photo", width: photo, align: .left)] : []) + [
            Column(kind: .item, title: "Item", width: canvas.contentWidth - fixed - photo, align: .left),
            Column(kind: .serial, title: "Serial", width: 86, align: .left),
            Column(kind: .purchased, title: "Purchased", width: 60, align: .left),
            Column(kind: .condition, title: "Condition", width: 54, align: .left),
            Column(kind: .value, title: "Value", width: 82, align: .right),
            Column(kind: .evidence, title: "Evidence", width: 62, align: .left),
        ]
        try canvas.newPage()
        drawCover(cover)
    }

    // MARK: - Cover

    private func drawCover(_ cover: InventoryCover) {
        let c = canvas
        let x = c.margin, w = c.contentWidth
        var y = c.contentTop
        c.fill(x: x, y: y, width: w, height: 4, color: .accent)
        y += 20
        y += c.text("HOME INVENTORY REPORT", x: x, y: y, width: w, font: .bold(10), color: .accent)
        y += 6
        y += c.text(cover.header.householdName, x: x, y: y, width: w, font: .bold(26), maxLines: 2)
        y += 4
        y += c.text("Generated \(cover.header.generatedOn.iso) · \(cover.options.summary)", x: x, y: y, width: w, font: .regular(9.5), color: .muted)
        y += 22

        // Three figures.
        let boxW = (w - 24) / 3, boxH = 74.0
        let value = ReportFormat.money(cover.total.value, preferred: cover.header.currency)
        let score = cover.score.percent.map { "\($0)%" } ?? "—"
        let stats: [(String, String, String)] = [
            ("Items", "\(cover.total.itemCount)", "\(cover.total.unitCount) pieces counting quantities"),
            ("Total value", value, cover.total.itemsWithoutValue == 0 ? "Price × quantity of every item"
                : "\(cover.total.itemsWithoutValue) item\(cover.total.itemsWithoutValue == 1 ? " has" : "s have") no value"),
            ("Documentation score", score, "\(cover.score.documented) of \(cover.score.total) items have photo, value, category and room"),
        ]
        for (index, stat) in stats.enumerated() {
            let bx = x + Double(index) * (boxW + 12)
            c.fill(x: bx, y: y, width: boxW, height: boxH, color: .band, radius: 8)
            c.text(stat.0.uppercased(), x: bx + 12, y: y + 10, width: boxW - 24, font: .bold(7.5), color: .muted)
            c.text(stat.1, x: bx + 12, y: y + 24, width: boxW - 24, font: .bold(stat.1.count > 14 ? 12 : 18), maxLines: 2)
            c.text(stat.2, x: bx + 12, y: y + 52, width: boxW - 24, font: .regular(7), color: .muted, maxLines: 2)
        }
        y += boxH + 26

        // Charts: value by category (donut) and items by room (bars).
        y += c.text("Value by category", x: x, y: y, width: w / 2, font: .bold(11))
        let chartTop = y + 8
        drawDonut(cover.valueByCategory.filter { $0.value.currency == cover.header.currency }, currency: cover.header.currency,
                  x: x, y: chartTop, width: w)
        var by = chartTop + 190
        by += c.text("Items by room", x: x, y: by, width: w, font: .bold(11))
        drawBars(cover.itemsByRoom, x: x, y: by + 8, width: w)

        // How to read the tables.
        let legendY = c.contentBottom - 40
        c.text("Evidence: P photo · R receipt · V value · S serial number (filled when present). Values are purchase price × quantity in the item's currency; totals are never converted between currencies.",
               x: x, y: legendY, width: w, font: .regular(7.5), color: .muted)
    }

    private func drawDonut(_ slices: [CategoryValue], currency: CurrencyCode, x: Double, y: Double, width: Double) {
        let c = canvas
        let entries = CategoryValue.slices(slices).map { ($0.name, $0.colorHex, $0.value.minorUnits) }
        let total = entries.reduce(Int64(0)) { $0 + $1.2 }
        guard total > 0 else {
            c.text("No item has a value yet.", x: x, y: y, width: width, font: .regular(9), color: .muted)
            return
        }
        let cx = x + 85, cy = y + 85
        var angle = 0.0
        for entry in entries {
            let sweep = Double(entry.2) / Double(total) * 2 * .pi
            c.ringSegment(cx: cx, cy: cy, outer: 80, inner: 48, from: angle, to: angle + sweep, color: RGB(hex: entry.1))
            angle += sweep
        }
        c.text(Money(uncheckedMinorUnits: total, currency: currency).formatted, x: cx - 46, y: cy - 6, width: 92, font: .bold(9), align: .center)
        var ly = y + 4
        let lx = x + 190
        for entry in entries {
            let percent = Double(entry.2) / Double(total) * 100
            c.fill(x: lx, y: ly + 2, width: 9, height: 9, color: RGB(hex: entry.1), radius: 2)
            c.text(entry.0, x: lx + 15, y: ly, width: 170, font: .regular(8.5), maxLines: 1)
            c.text("\(Money(uncheckedMinorUnits: entry.2, currency: currency).formatted) · \(String(format: "%.0f", percent))%",
                   x: lx + 190, y: ly, width: width - 190 - 190, font: .regular(8.5), color: .muted, align: .right)
            ly += 17
        }
    }

    private func drawBars(_ rooms: [RoomCount], x: Double, y: Double, width: Double) {
        let c = canvas
        let shown = RoomCount.bars(rooms)  // every item is in a bar
        guard let maximum = shown.map(\.itemCount).max(), maximum > 0 else { return }
        var by = y
        for room in shown {
            c.text(room.name, x: x, y: by, width: 120, font: .regular(8.5), maxLines: 1)
            let barW = max(2, Double(room.itemCount) / Double(maximum) * (width - 180))
            c.fill(x: x + 125, y: by + 1.5, width: barW, height: 10, color: .accent, radius: 2)
            c.text("\(room.itemCount)", x: x + 130 + barW, y: by, width: 50, font: .regular(8.5), color: .muted)
            by += 16
        }
    }

    // MARK: - Groups and rows

    public func beginGroup(_ group: ReportGroup, total: ReportTotal) throws {
        currentGroup = group
        rowIndex = 0
        try canvas.newPage()
        y = canvas.contentTop
        drawGroupHeading(group, total: total, continued: false)
        drawTableHeader()
    }

    private func drawGroupHeading(_ group: ReportGroup, total: ReportTotal, continued: Bool) {
        let c = canvas
        let label = options.grouping == .room ? "ROOM" : "CATEGORY"
        c.text(label, x: c.margin, y: y, width: 200, font: .bold(7.5), color: .accent)
        y += 11
        let title = continued ? "\(group.name) (continued)" : group.name
        let h = c.text(title, x: c.margin, y: y, width: c.contentWidth - 200, font: .bold(16), maxLines: 1)
        if !continued {
            let sub = "\(total.itemCount) item\(total.itemCount == 1 ? "" : "s") · \(ReportFormat.money(total.value, preferred: header?.currency ?? .usd))"
            c.text(sub, x: c.margin + c.contentWidth - 200, y: y + 4, width: 200, font: .regular(9), color: .muted, align: .right)
        }
        y += h + 8
    }

    private func drawTableHeader() {
        let c = canvas
        c.fill(x: c.margin, y: y, width: c.contentWidth, height: 16, color: .band)
        var x = c.margin
        for column in columns {
            c.text(column.title.uppercased(), x: x + 4, y: y + 4, width: column.width - 8, font: .bold(6.5), color: .muted, align: column.align)
            x += column.width
        }
        y += 18
    }

    public func row(_ row: ReportItem) throws {
        let c = canvas
        let item = row.item
        let itemColumn = columns.first { $0.kind == .item }!
        let brandModel = [item.brand, item.modelNumber].compactMap { $0 }.joined(separator: " · ")
        let nameHeight = c.measure(item.name, width: itemColumn.width - 8, font: .bold(8.5), maxLines: 2)
        let brandHeight = brandModel.isEmpty ? 0 : c.measure(brandModel, width: itemColumn.width - 8, font: .regular(7.5), maxLines: 1)
        let serialHeight = c.measure(item.serialNumber ?? "—", width: 86 - 8, font: .regular(7.5), maxLines: 2)
        let unitLine = item.quantity > 1 && item.totalValue != nil ? 30.0 : 0  // "6 × $200.00" under the value
        // The latest valuation under the price: "RCV $1,400.00 h", "ACV $700.00 h".
        let valueLines = [row.valuation?.replacementCost.map { "RCV \($0.value.formatted)" }, row.valuation?.actualCashValue.map { "ACV \($0.value.formatted)" }]
            .compactMap { $0 }.map { "\($0) \(ReportFormat.valuationMark(row.valuation!.method))" }
        let valueHeight = (unitLine > 0 ? 30.0 : 18) + Double(valueLines.count) * 10
        let rowHeight = max(options.includePhotos ? 46 : 22, nameHeight + brandHeight + 10, serialHeight + 10, unitLine, valueLines.isEmpty ? 0 : valueHeight)
        if let valuation = row.valuation, valuation.method == .market {
            if marketValued.count < Self.appendixLimit { marketValued.append(.init(label: item.name, valuation: valuation)) } else { marketOmitted += 1 }
        }
        if y + rowHeight > c.contentBottom {
            try c.newPage()
            y = c.contentTop
            if let group = currentGroup { drawGroupHeading(group, total: ReportTotal(name: group.name), continued: true) }
            drawTableHeader()
        }
        if rowIndex % 2 == 1 { c.fill(x: c.margin, y: y, width: c.contentWidth, height: rowHeight, color: RGB(0.98, 0.985, 0.99)) }
        rowIndex += 1
        var x = c.margin
        let top = y + 5
        for column in columns {
            let inner = column.width - 8
            switch column.kind {
            case .photo:
                if let photo = row.photos.first, c.photo(photo, x: x + 2, y: y + 3, width: column.width - 6, height: rowHeight - 6) {
                    break
                }
                c.stroke(x: x + 2, y: y + 3, width: column.width - 6, height: rowHeight - 6, color: .line, radius: 3)
                c.text("No photo", x: x + 2, y: y + rowHeight / 2 - 4, width: column.width - 6, font: .regular(6), color: .muted, align: .center)
            case .item:
                let h = c.text(item.name, x: x + 4, y: top, width: inner, font: .bold(8.5), maxLines: 2)
                if !brandModel.isEmpty { c.text(brandModel, x: x + 4, y: top + h + 1, width: inner, font: .regular(7.5), color: .muted, maxLines: 1) }
            case .serial:
                c.text(item.serialNumber ?? "—", x: x + 4, y: top, width: inner, font: .regular(7.5), color: item.serialNumber == nil ? .muted : .text, maxLines: 2)
            case .purchased:
                c.text(item.purchaseDate?.iso ?? "—", x: x + 4, y: top, width: inner, font: .regular(7.5), color: item.purchaseDate == nil ? .muted : .text)
            case .condition:
                c.text(item.condition.label, x: x + 4, y: top, width: inner, font: .regular(7.5))
            case .value:
                if let value = item.totalValue {
                    c.text(value.formatted, x: x + 4, y: top, width: inner, font: .bold(8.5), align: .right)
                    if item.quantity > 1, let unit = item.purchasePrice {
                        c.text("\(item.quantity) × \(unit.formatted)", x: x + 4, y: top + 12, width: inner, font: .regular(7), color: .muted, align: .right)
                    }
                } else {
                    c.text("No value", x: x + 4, y: top, width: inner, font: .regular(7.5), color: .warn, align: .right)
                }
                var lineY = top + (item.quantity > 1 && item.totalValue != nil ? 24 : 12)
                for line in valueLines {
                    c.text(line, x: x + 4, y: lineY, width: inner, font: .regular(7), color: .muted, align: .right, maxLines: 1)
                    lineY += 10
                }
            case .evidence:
                drawEvidence(row.documentation, x: x + 4, y: top)
            }
            x += column.width
        }
        y += rowHeight
        c.fill(x: c.margin, y: y - 0.4, width: c.contentWidth, height: 0.4, color: .line)
    }

    private func drawEvidence(_ status: DocumentationStatus, x: Double, y: Double) {
        let marks: [(String, Bool)] = [("P", status.hasPhoto), ("R", status.hasReceipt), ("V", status.hasValue), ("S", status.hasSerial)]
        for (index, mark) in marks.enumerated() {
            let bx = x + Double(index) * 13
            if mark.1 {
                canvas.fill(x: bx, y: y, width: 11, height: 11, color: .ok, radius: 2)
                canvas.text(mark.0, x: bx, y: y + 1.5, width: 11, font: .bold(6.5), color: .white, align: .center)
            } else {
                canvas.stroke(x: bx + 0.4, y: y + 0.4, width: 10.2, height: 10.2, color: .line, lineWidth: 0.8, radius: 2)
                canvas.text(mark.0, x: bx, y: y + 1.5, width: 11, font: .regular(6.5), color: .muted, align: .center)
            }
        }
    }

    public func endGroup(_ total: ReportTotal) throws {
        let c = canvas
        if y + 24 > c.contentBottom { try c.newPage(); y = c.contentTop }
        y += 4
        c.fill(x: c.margin, y: y, width: c.contentWidth, height: 20, color: .band)
        c.text("Subtotal \(total.name) · \(total.itemCount) item\(total.itemCount == 1 ? "" : "s")", x: c.margin + 6, y: y + 5,
               width: c.contentWidth / 2, font: .bold(8.5), maxLines: 1)
        c.text(ReportFormat.money(total.value, preferred: header?.currency ?? .usd), x: c.margin + c.contentWidth / 2, y: y + 5,
               width: c.contentWidth / 2 - 6, font: .bold(8.5), align: .right)
        y += 24
    }

    // MARK: - Totals

    public func end(_ totals: InventoryTotals) throws {
        let c = canvas
        try c.newPage()
        y = c.contentTop
        y += c.text("Totals", x: c.margin, y: y, width: c.contentWidth, font: .bold(18)) + 10
        try totalsTable("By room", totals.byRoom)
        y += 14
        try totalsTable("By category", totals.byCategory)
        y += 10
        if y + 40 > c.contentBottom { try c.newPage(); y = c.contentTop }
        c.fill(x: c.margin, y: y, width: c.contentWidth, height: 30, color: .accent, radius: 4)
        c.text("Total: \(totals.grand.itemCount) item\(totals.grand.itemCount == 1 ? "" : "s")", x: c.margin + 10, y: y + 8,
               width: c.contentWidth / 2, font: .bold(11), color: .white)
        c.text(ReportFormat.money(totals.grand.value, preferred: header?.currency ?? .usd), x: c.margin + c.contentWidth / 2, y: y + 8,
               width: c.contentWidth / 2 - 10, font: .bold(11), color: .white, align: .right)
        y += 38
        if totals.grand.itemsWithoutValue > 0 {
            y += c.text("\(totals.grand.itemsWithoutValue) item\(totals.grand.itemsWithoutValue == 1 ? " has" : "s have") no value and \(totals.grand.itemsWithoutValue == 1 ? "is" : "are") not in the total.",
                        x: c.margin, y: y, width: c.contentWidth, font: .regular(8), color: .muted) + 6
        }
        if totals.grand.valuedCount > 0 {
            let currency = header?.currency ?? .usd
            let rcv = totals.grand.replacementCost.isEmpty ? "—" : ReportFormat.money(totals.grand.replacementCost, preferred: currency)
            let acv = totals.grand.actualCashValue.isEmpty ? "—" : ReportFormat.money(totals.grand.actualCashValue, preferred: currency)
            if y + 40 > c.contentBottom { try c.newPage(); y = c.contentTop }
            y += c.text("Valued items (\(totals.grand.valuedCount) of \(totals.grand.itemCount)): replacement cost \(rcv) · actual cash value \(acv)",
                        x: c.margin, y: y, width: c.contentWidth, font: .bold(8.5)) + 4
            y += c.text(ReportFormat.valuationLegend, x: c.margin, y: y, width: c.contentWidth, font: .regular(7), color: .muted) + 10
            y = try ValuationAppendix.draw(marketValued, on: c, from: y, omitted: marketOmitted)
        }
        try c.finish()
    }

    private func totalsTable(_ title: String, _ rows: [ReportTotal]) throws {
        let c = canvas
        if y + 60 > c.contentBottom { try c.newPage(); y = c.contentTop }
        y += c.text(title, x: c.margin, y: y, width: c.contentWidth, font: .bold(12)) + 6
        let header = { [self] in
            c.fill(x: c.margin, y: y, width: c.contentWidth, height: 16, color: .band)
            c.text("NAME", x: c.margin + 6, y: y + 4, width: 200, font: .bold(6.5), color: .muted)
            c.text("ITEMS", x: c.margin + c.contentWidth - 260, y: y + 4, width: 60, font: .bold(6.5), color: .muted, align: .right)
            c.text("VALUE", x: c.margin + c.contentWidth - 190, y: y + 4, width: 184, font: .bold(6.5), color: .muted, align: .right)
            y += 18
        }
        header()
        for row in rows {
            if y + 16 > c.contentBottom { try c.newPage(); y = c.contentTop; header() }
            c.text(row.name, x: c.margin + 6, y: y + 2, width: c.contentWidth - 280, font: .regular(8.5), maxLines: 1)
            c.text("\(row.itemCount)", x: c.margin + c.contentWidth - 260, y: y + 2, width: 60, font: .regular(8.5), align: .right)
            c.text(ReportFormat.money(row.value, preferred: self.header?.currency ?? .usd), x: c.margin + c.contentWidth - 190, y: y + 2,
                   width: 184, font: .regular(8.5), align: .right)
            y += 15
            c.fill(x: c.margin, y: y - 0.4, width: c.contentWidth, height: 0.4, color: .line)
        }
    }
}
