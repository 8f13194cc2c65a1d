import Foundation
import NestoryDomain
import NestoryReports

/// The loss list as a PDF, on landscape pages: the incident, an adjuster-friendly table with totals,
/// then the items' photos, four to a page, captioned with the row number.
public final class LossListPDFRenderer: LossListSink {
    private let canvas: PDFCanvas
    private let landscape: (width: Double, height: Double)
    private var cover: LossListCover?
    private var y: Double = 0
    private var photoSlot = 0
    private var rowIndex = 0
    /// The valued rows, for the appendix after the table.
    private var valued: [ValuationAppendix.Entry] = []

    public var imageCount: Int { canvas.imageCount }
    public var pageCount: Int { canvas.pageNumber }

    struct Column {
        let title: String
        let width: Double
        let align: Align
    }

    /// The table's columns, at their widths on A4; scaled to the page's width (US Letter is narrower).
    private static let designed: [Column] = [
        Column(title: "#", width: 20, align: .right), Column(title: "Description", width: 112, align: .left),
        Column(title: "Brand", width: 58, align: .left), Column(title: "Model", width: 58, align: .left),
        Column(title: "Serial", width: 68, align: .left), Column(title: "Qty", width: 24, align: .right),
        Column(title: "Age", width: 38, align: .left), Column(title: "Condition", width: 46, align: .left),
        Column(title: "Purchased", width: 52, align: .left), Column(title: "Unit price", width: 56, align: .right),
        Column(title: "Total price", width: 58, align: .right), Column(title: "RCV", width: 62, align: .right),
        Column(title: "ACV", width: 62, align: .right), Column(title: "Room", width: 54, align: .left),
    ]

    /// - Parameters:
    ///   - path: the PDF to write; nil for a layout pass that only counts the pages.
    ///   - totalPages: from a layout pass, for "Page 3 of 40" footers.
    public init(path: String?, paper: PaperSize, totalPages: Int? = nil) throws {
        let size = paper.points
        landscape = (size.height, size.width)
        canvas = try PDFCanvas(path: path, width: landscape.width, height: landscape.height, title: "Loss List", footer: "",
                               totalPages: totalPages)
        let scale = min(1, canvas.contentWidth / Self.designed.reduce(0) { $0 + $1.width })
        columns = Self.designed.map { Column(title: $0.title, width: $0.width * scale, align: $0.align) }
    }

    private let columns: [Column]

    private var currency: CurrencyCode { cover?.header.currency ?? .usd }

    public func begin(_ cover: LossListCover) throws {
        self.cover = cover
        let incident = cover.options.incident
        canvas.footer = "\(cover.header.householdName) · Loss list: \(incident.type.label.lowercased()) on \(incident.date.iso) · Generated \(cover.header.generatedOn.iso)"
        try canvas.newPage()
        let c = canvas
        let x = c.margin, w = c.contentWidth
        y = c.contentTop
        c.fill(x: x, y: y, width: w, height: 4, color: .accent)
        y += 14
        y += c.text("LOSS LIST · INSURANCE CLAIM", x: x, y: y, width: w, font: .bold(9), color: .accent) + 4
        y += c.text(cover.header.householdName, x: x, y: y, width: w, font: .bold(20), maxLines: 1) + 8

        // Incident details beside the totals.
        let facts: [(String, String)] = [
            ("Date of loss", incident.date.iso), ("Type of loss", incident.type.label),
            ("Policy number", incident.policyNumber ?? "—"), ("Claim number", incident.claimNumber ?? "—"),
            ("Prepared", cover.header.generatedOn.iso),
        ]
        var fy = y
        for fact in facts {
            c.text(fact.0, x: x, y: fy, width: 90, font: .regular(8.5), color: .muted)
            c.text(fact.1, x: x + 95, y: fy, width: 220, font: .bold(8.5), maxLines: 1)
            fy += 14
        }
        let boxX = x + 340, boxW = w - 340
        c.fill(x: boxX, y: y, width: boxW, height: 66, color: .band, radius: 6)
        c.text("ITEMS", x: boxX + 12, y: y + 10, width: 100, font: .bold(7), color: .muted)
        c.text("\(cover.total.itemCount) (\(cover.total.unitCount) pieces)", x: boxX + 12, y: y + 24, width: 140, font: .bold(14))
        c.text("TOTAL PURCHASE PRICE", x: boxX + 170, y: y + 10, width: boxW - 182, font: .bold(7), color: .muted)
        c.text(ReportFormat.money(cover.total.value, preferred: currency), x: boxX + 170, y: y + 24, width: boxW - 182, font: .bold(14), maxLines: 2)
        if cover.total.itemsWithoutValue > 0 {
            c.text("\(cover.total.itemsWithoutValue) without a price", x: boxX + 170, y: y + 48, width: boxW - 182, font: .regular(7.5), color: .warn)
        }
        y = max(fy, y + 66) + 8
        if !incident.description.isEmpty {
            y += c.text("What happened", x: x, y: y, width: w, font: .bold(9)) + 2
            y += c.text(incident.description, x: x, y: y, width: w, font: .regular(8.5), maxLines: 6) + 10
        }
        drawTableHeader()
    }

    private func drawTableHeader() {
        let c = canvas
        c.fill(x: c.margin, y: y, width: c.contentWidth, height: 16, color: .band)
        var x = c.margin
        for column in columns {
            c.text(column.title.uppercased(), x: x + 3, y: y + 4, width: column.width - 6, font: .bold(6), color: .muted, align: column.align, maxLines: 1)
            x += column.width
        }
        y += 18
    }

    public func row(_ row: ReportItem, number: Int) throws {
        let c = canvas
        let item = row.item
        let asOf = cover?.options.incident.date ?? row.item.purchaseDate ?? CalendarDate(Date(), in: .current)
        let cells: [String] = [
            "\(number)", item.name, item.brand ?? "—", item.modelNumber ?? "—", item.serialNumber ?? "—", "\(item.quantity)",
            ReportFormat.age(from: item.purchaseDate, asOf: asOf) ?? "—", item.condition.label, item.purchaseDate?.iso ?? "—",
            item.purchasePrice?.formatted ?? "—", item.totalValue?.formatted ?? "—",
            Self.valueCell(row.valuation, \.replacementCost), Self.valueCell(row.valuation, \.actualCashValue), row.roomName ?? "—",
        ]
        if let valuation = row.valuation { valued.append(.init(label: "#\(number) \(item.name)", valuation: valuation)) }
        var height = 14.0
        for (index, column) in columns.enumerated() where cells[index].count > 6 {
            height = max(height, c.measure(cells[index], width: column.width - 6, font: index == 1 ? .bold(7.5) : .regular(7.5), maxLines: 3) + 6)
        }
        if y + height > c.contentBottom {
            try c.newPage()
            y = c.contentTop
            drawTableHeader()
        }
        if rowIndex % 2 == 1 { c.fill(x: c.margin, y: y, width: c.contentWidth, height: height, color: RGB(0.98, 0.985, 0.99)) }
        rowIndex += 1
        var x = c.margin
        for (index, column) in columns.enumerated() {
            let font: Font = index == 1 ? .bold(7.5) : .regular(7.5)
            c.text(cells[index], x: x + 3, y: y + 3, width: column.width - 6, font: font, color: cells[index] == "—" ? .muted : .text,
                   align: column.align, maxLines: 3)
            x += column.width
        }
        y += height
        c.fill(x: c.margin, y: y - 0.4, width: c.contentWidth, height: 0.4, color: .line)
    }

    /// "$1,400.00 h": the latest valuation's figure and how it was made (the legend under the table says).
    static func valueCell(_ valuation: Valuation?, _ figure: KeyPath<Valuation, ValueRange?>) -> String {
        guard let valuation, let range = valuation[keyPath: figure] else { return "—" }
        return "\(range.value.formatted) \(ReportFormat.valuationMark(valuation.method))"
    }

    public func endTable(_ total: ReportTotal) throws {
        let c = canvas
        if y + 40 > c.contentBottom { try c.newPage(); y = c.contentTop }
        y += 4
        c.fill(x: c.margin, y: y, width: c.contentWidth, height: 20, color: .accent, radius: 3)
        c.text("Total: \(total.itemCount) item\(total.itemCount == 1 ? "" : "s"), \(total.unitCount) piece\(total.unitCount == 1 ? "" : "s")",
               x: c.margin + 8, y: y + 5, width: 300, font: .bold(8.5), color: .white)
        c.text(ReportFormat.money(total.value, preferred: currency), x: c.margin + 300, y: y + 5, width: c.contentWidth - 308,
               font: .bold(8.5), color: .white, align: .right)
        y += 26
        if total.valuedCount > 0 {
            let rcv = total.replacementCost.isEmpty ? "—" : ReportFormat.money(total.replacementCost, preferred: currency)
            let acv = total.actualCashValue.isEmpty ? "—" : ReportFormat.money(total.actualCashValue, preferred: currency)
            y += c.text("Valued items (\(total.valuedCount) of \(total.itemCount)): replacement cost \(rcv) · actual cash value \(acv)",
                        x: c.margin, y: y, width: c.contentWidth, font: .bold(8)) + 4
        }
        y += c.text("Prices are what was paid (unit price × quantity), in each item's currency; currencies are never converted. Age is counted to the date of loss. "
                    + ReportFormat.valuationLegend, x: c.margin, y: y, width: c.contentWidth, font: .regular(7), color: .muted) + 10
        y = try ValuationAppendix.draw(valued, on: c, from: y)
    }

    public func photos(_ row: ReportItem, number: Int) throws {
        let c = canvas
        for (index, photo) in row.photos.enumerated() {
            if photoSlot % 4 == 0 {
                try c.newPage()
                c.text("Photos", x: c.margin, y: c.contentTop, width: 200, font: .bold(12))
            }
            let slot = photoSlot % 4
            let cellW = (c.contentWidth - 16) / 2
            let cellH = (c.contentBottom - c.contentTop - 24 - 16) / 2
            let cx = c.margin + Double(slot % 2) * (cellW + 16)
            let cy = c.contentTop + 24 + Double(slot / 2) * (cellH + 16)
            c.fill(x: cx, y: cy, width: cellW, height: cellH - 24, color: .band, radius: 4)
            if !c.photo(photo, x: cx + 4, y: cy + 4, width: cellW - 8, height: cellH - 32) {
                c.text("This photo's format cannot be embedded; it is kept in Nestory.", x: cx + 8, y: cy + cellH / 2 - 20,
                       width: cellW - 16, font: .regular(8), color: .muted, align: .center)
            }
            let caption = "#\(number) \(row.item.name)" + (row.photos.count > 1 ? " (photo \(index + 1) of \(row.photos.count))" : "")
                + (row.item.serialNumber.map { " · Serial \($0)" } ?? "")
            c.text(caption, x: cx, y: cy + cellH - 20, width: cellW, font: .regular(8), maxLines: 1)
            photoSlot += 1
        }
    }

    public func end() throws {
        try canvas.finish()
    }
}
