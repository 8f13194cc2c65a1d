import Foundation
import NestoryDomain
import NestoryReports

/// "How values were reached": for each valued item of a report, its method, day and confidence, the offline
/// formula with its inputs, and the market prices it was made from (title, amount, address, when fetched), so an
/// adjuster can follow every figure. Shared by the loss list and the full inventory.
struct ValuationAppendix {
    struct Entry {
        let label: String
        let valuation: Valuation
    }

    /// Draws the entries from `y` on, starting new pages as needed; returns the new `y`.
    static func draw(_ entries: [Entry], on c: PDFCanvas, from start: Double, omitted: Int = 0) throws -> Double {
        guard !entries.isEmpty else { return start }
        var y = start
        func room(_ height: Double) throws {
            if y + height > c.contentBottom { try c.newPage(); y = c.contentTop }
        }
        try room(60)
        y += c.text("How values were reached", x: c.margin, y: y, width: c.contentWidth, font: .bold(12)) + 6
        for entry in entries {
            let v = entry.valuation
            let figures = [v.replacementCost.map { "RCV \($0.formatted)" }, v.actualCashValue.map { "ACV \($0.formatted)" }].compactMap { $0 }
            let heading = "\(entry.label) — \(v.method.label), for \(v.valuedOn.iso), \(v.confidence.rawValue) confidence: \(figures.joined(separator: "; "))"
            try room(30)
            y += c.text(heading, x: c.margin, y: y, width: c.contentWidth, font: .bold(7.5), maxLines: 3) + 2
            if let explanation = v.explanation {
                try room(20)
                y += c.text(explanation, x: c.margin + 10, y: y, width: c.contentWidth - 10, font: .regular(7), color: .muted, maxLines: 8) + 2
            }
            for source in v.sources {
                try room(14)
                let line = "\(source.title) — \(source.amount.formatted) — \(source.url) (fetched \(source.fetchedAt.formatted(.iso8601)))"
                y += c.text(line, x: c.margin + 10, y: y, width: c.contentWidth - 10, font: .regular(7), maxLines: 3) + 1
            }
            y += 6
        }
        if omitted > 0 {
            try room(14)
            y += c.text("\(omitted) more valued item\(omitted == 1 ? "" : "s") are not listed here; the JSON export (Reports → Export data) has every item's valuation with its sources.",
                        x: c.margin, y: y, width: c.contentWidth, font: .regular(7), color: .muted)
        }
        return y
    }
}
