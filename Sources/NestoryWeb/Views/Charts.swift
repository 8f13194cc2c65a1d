import Foundation
import NestoryDomain

/// Charts drawn on the server as SVG: they scale, work without JavaScript, follow dark mode through
/// CSS (`currentColor`), and carry a text alternative for screen readers. Each card's title comes first, as on the
/// cards around it.
enum Charts {
    /// Value by category as a donut with a legend; only amounts in `currency` (others are listed apart).
    static func donut(_ values: [CategoryValue], currency: CurrencyCode) -> HTML {
        let legendEntries: [(String, String, Money)] = CategoryValue.slices(values.filter { $0.value.currency == currency })
            .map { ($0.name, $0.colorHex, $0.value) }
        let total = legendEntries.reduce(Int64(0)) { $0 + $1.2.minorUnits }
        guard total > 0 else { return "<p class=\"muted\">Add values to your items to see where the value is.</p>" }
        let radius = 15.915_494_309  // circumference 100, so percentages are dash lengths
        var offset = 25.0
        var arcs: [HTML] = []
        for (name, color, value) in legendEntries {
            let share = Double(value.minorUnits) / Double(total) * 100
            let f = { (x: Double) in String(format: "%.3f", x) }
            arcs.append("""
                <circle r="\(String(format: "%.6f", radius))" cx="21" cy="21" fill="transparent" stroke="\(color)" stroke-width="6" \
                stroke-dasharray="\(f(share)) \(f(100 - share))" stroke-dashoffset="\(f(offset))"><title>\(name): \(value.formatted)</title></circle>
                """)
            offset = (offset - share).truncatingRemainder(dividingBy: 100)
        }
        let description = legendEntries.map { "\($0.0) \($0.2.formatted) (\(Int((Double($0.2.minorUnits) / Double(total) * 100).rounded()))%)" }
            .joined(separator: "; ")
        let legend: [HTML] = legendEntries.map { name, color, value in
            let percent = Int((Double(value.minorUnits) / Double(total) * 100).rounded())
            return "<li><span class=\"swatch\" style=\"--c:\(color)\"></span><span class=\"name\">\(name)</span><span class=\"value\">\(value.formatted) · \(percent)%</span></li>"
        }
        return """
            <figure class="chart donut">
              <figcaption>Value by category</figcaption>
              <svg viewBox="0 0 42 42" role="img" aria-labelledby="donut-title donut-desc">
                <title id="donut-title">Value by category</title>
                <desc id="donut-desc">\(description)</desc>
                <circle r="\(String(format: "%.6f", radius))" cx="21" cy="21" fill="transparent" stroke="currentColor" stroke-opacity="0.12" stroke-width="6"></circle>
                \(arcs)
                <text x="21" y="22.5" text-anchor="middle" class="donut-total">\(Money(uncheckedMinorUnits: total, currency: currency).formatted)</text>
              </svg>
              <ul class="legend">\(legend)</ul>
            </figure>
            """
    }

    /// Items by room as horizontal bars, most first (RoomCount.bars: every item is in a bar).
    static func bars(_ rooms: [RoomCount]) -> HTML {
        let shown = RoomCount.bars(rooms)
        guard let maximum = shown.map(\.itemCount).max(), maximum > 0 else { return .empty }
        let rowHeight = 22
        let height = shown.count * rowHeight
        let bars: [HTML] = shown.enumerated().map { index, room in
            let width = max(2, Double(room.itemCount) / Double(maximum) * 170)
            let y = index * rowHeight
            let label = room.name.count > 18 ? String(room.name.prefix(17)) + "…" : room.name
            return """
                <g><text x="0" y="\(y + 15)" class="bar-label">\(label)</text>\
                <rect x="112" y="\(y + 4)" width="\(String(format: "%.1f", width))" height="14" rx="3" class="bar"></rect>\
                <text x="\(String(format: "%.1f", 116 + width))" y="\(y + 15)" class="bar-value">\(room.itemCount)</text></g>
                """
        }
        let description = shown.map { "\($0.name): \($0.itemCount)" }.joined(separator: "; ")
        return """
            <figure class="chart bars">
              <figcaption>Items by room</figcaption>
              <svg viewBox="0 0 330 \(height)" role="img" aria-labelledby="bars-title bars-desc">
                <title id="bars-title">Items by room</title>
                <desc id="bars-desc">\(description)</desc>
                \(bars)
              </svg>
            </figure>
            """
    }
}
