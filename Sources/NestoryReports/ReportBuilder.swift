import Foundation
import NestoryDomain

/// Builds reports from a source into a sink in two passes over the items: the first adds up (so the
/// cover can show totals before the first row), the second hands rows to the sink. Neither pass keeps
/// rows, so memory does not grow with the number of items.
public struct ReportBuilder {
    public let source: any ReportItemSource
    public let header: ReportHeader

    public init(source: any ReportItemSource, header: ReportHeader) {
        self.source = source
        self.header = header
    }

    /// Progress: rows handed to the sink so far, out of the total.
    public typealias Progress = (_ done: Int, _ total: Int) -> Void

    /// The full inventory report.
    public func buildInventory(_ options: InventoryReportOptions, into sink: any InventoryReportSink,
                               progress: Progress = { _, _ in }) throws {
        let documentedOnly = !options.includeUndocumented
        let groups = try source.groups(by: options.grouping)

        // Pass 1: totals per group, room, category and currency, and the charts' figures.
        var grand = ReportTotal(name: "All items")
        var groupTotals: [ReportGroup: ReportTotal] = [:]
        var byRoom: [String: ReportTotal] = [:], roomOrder: [String] = []
        var byCategory: [String: ReportTotal] = [:], categoryOrder: [String] = []
        for group in groups {
            var total = ReportTotal(name: group.name)
            try source.forEachItem(in: group, grouping: options.grouping, documentedOnly: documentedOnly) { row in
                try total.add(row)
                try grand.add(row)
                let room = row.roomName ?? RoomCount.unassignedName
                if byRoom[room] == nil { byRoom[room] = ReportTotal(name: room); roomOrder.append(room) }
                try byRoom[room]!.add(row)
                let category = row.categoryName ?? CategoryValue.uncategorizedName
                if byCategory[category] == nil { byCategory[category] = ReportTotal(name: category); categoryOrder.append(category) }
                try byCategory[category]!.add(row)
            }
            groupTotals[group] = total
        }
        let shownGroups = groups.filter { (groupTotals[$0]?.itemCount ?? 0) > 0 }
        let cover = InventoryCover(
            header: header, options: options, total: grand,
            score: DocumentationScore(documented: grand.documentedCount, total: grand.itemCount),
            valueByCategory: categoryOrder.flatMap { name in
                byCategory[name]!.value.amounts(preferred: header.currency).map {
                    CategoryValue(categoryID: nil, name: name, colorHex: Self.color(for: name), value: $0, itemCount: byCategory[name]!.itemCount)
                }
            }.sorted { $0.value.minorUnits > $1.value.minorUnits },
            itemsByRoom: roomOrder.map { RoomCount(roomID: nil, name: $0, itemCount: byRoom[$0]!.itemCount) }
                .sorted { $0.itemCount > $1.itemCount },
            groupCount: shownGroups.count)

        // Pass 2: the rows, group by group.
        try sink.begin(cover)
        var done = 0
        progress(0, grand.itemCount)
        for group in shownGroups {
            let total = groupTotals[group]!
            try sink.beginGroup(group, total: total)
            try source.forEachItem(in: group, grouping: options.grouping, documentedOnly: documentedOnly) { row in
                try sink.row(row)
                done += 1
                if done % 50 == 0 { progress(done, grand.itemCount) }
            }
            try sink.endGroup(total)
        }
        let order = { (a: ReportTotal, b: ReportTotal) in a.itemCount != b.itemCount ? a.itemCount > b.itemCount : a.name < b.name }
        try sink.end(InventoryTotals(byRoom: roomOrder.map { byRoom[$0]! }.sorted(by: order),
                                     byCategory: categoryOrder.map { byCategory[$0]! }.sorted(by: order), grand: grand))
        progress(grand.itemCount, grand.itemCount)
    }

    /// The loss list for an incident.
    public func buildLossList(_ options: LossListOptions, into sink: any LossListSink, progress: Progress = { _, _ in }) throws {
        var total = ReportTotal(name: "Total")
        try source.forEachItem(ids: options.itemIDs) { row in try total.add(row) }
        guard total.itemCount > 0 else { throw DomainError.invalid(field: "items", message: "Choose at least one item for the loss list.") }
        try sink.begin(LossListCover(header: header, options: options, total: total))
        var number = 0
        try source.forEachItem(ids: options.itemIDs) { row in
            number += 1
            try sink.row(row, number: number)
        }
        try sink.endTable(total)
        if options.includePhotos {
            number = 0
            try source.forEachItem(ids: options.itemIDs) { row in
                number += 1
                if !row.photos.isEmpty { try sink.photos(row, number: number) }
                progress(number, total.itemCount)
            }
        }
        try sink.end()
        progress(total.itemCount, total.itemCount)
    }

    /// Chart colours for category names (the store's colours are not part of the model: stable by name).
    static func color(for name: String) -> String {
        if let seeded = Defaults.categories.first(where: { $0.name == name }) { return seeded.colorHex }
        if name == CategoryValue.uncategorizedName { return CategoryValue.uncategorizedColor }
        let palette = ["#0F766E", "#3B82F6", "#A16207", "#DB2777", "#7C3AED", "#EA580C", "#16A34A", "#DC2626"]
        let hash = name.unicodeScalars.reduce(UInt32(5381)) { ($0 &* 33) &+ $1.value }
        return palette[Int(hash % UInt32(palette.count))]
    }
}

/// Text forms shared by the PDF, CSV and web views.
public enum ReportFormat {
    /// "3 yrs", "7 mo", "< 1 mo" from the purchase date to `asOf`; nil without a purchase date.
    public static func age(from purchase: CalendarDate?, asOf: CalendarDate) -> String? {
        guard let purchase, purchase <= asOf else { return nil }
        var months = (asOf.year - purchase.year) * 12 + (asOf.month - purchase.month)
        if asOf.day < purchase.day { months -= 1 }
        if months >= 24 { return "\(months / 12) yrs" }
        if months >= 12 { return months == 12 ? "1 yr" : "1 yr \(months - 12) mo" }
        return months < 1 ? "< 1 mo" : "\(months) mo"
    }

    /// Several currencies side by side: "$1,234.56 + €80.00"; a dash for none.
    public static func money(_ totals: MoneyTotals, preferred: CurrencyCode) -> String {
        totals.isEmpty ? "—" : totals.amounts(preferred: preferred).map(\.formatted).joined(separator: " + ")
    }

}

extension ReportFormat {
    /// The short mark after a value in a report's table, explained by `valuationLegend`.
    public static func valuationMark(_ method: ValuationMethod) -> String {
        switch method {
        case .market: return "m"
        case .offline: return "d"
        case .manual: return "h"
        }
    }

    public static let valuationLegend = "Replacement cost (RCV) and actual cash value (ACV) are the latest valuation of each item: "
        + "m = market prices found (their sources are listed at the end), d = offline depreciation estimate (by category, age and condition), "
        + "h = entered by hand (an appraisal or a quote). They are kept apart from the purchase price, which is what was paid."
}
