import Foundation
import NestoryDemo
import NestoryDomain
import NestoryReports
import NestoryReportsLive
import NestoryStore

// `bench-reports`: the data and the reference input for `make bench-reports`.
//
//   bench-reports seed --data DIR --items 5000 --photos A.jpg B.jpg ...
//       a demo household whose every item has its own JPEG (the given photos, each copy made distinct
//       by a comment segment, so no two items share a file and nothing is deduplicated)
//   bench-reports html --data DIR --out FILE.html [--photos]
//       the same report content as HTML for a reference renderer (WeasyPrint), built by the same
//       report builder from the same items

func argument(_ name: String) -> String? {
    let args = CommandLine.arguments
    guard let index = args.firstIndex(of: name), index + 1 < args.count else { return nil }
    return args[index + 1]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

let command = CommandLine.arguments.dropFirst().first ?? ""
guard let dataPath = argument("--data") else { fail("usage: bench-reports seed|html --data DIR ...") }

switch command {
case "seed":
    let count = Int(argument("--items") ?? "5000") ?? 5000
    let start = CommandLine.arguments.firstIndex(of: "--photos").map { $0 + 1 } ?? CommandLine.arguments.count
    let photoPaths = CommandLine.arguments[start...].prefix { !$0.hasPrefix("--") }
    let photos = photoPaths.map { path -> Data in
        guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
        return data
    }
    guard !photos.isEmpty else { fail("give at least one JPEG after --photos") }
    let database = try AppDatabase.open(DataFolder(path: dataPath))
    let now = Date()
    let household = try database.createHousehold(name: "Bench Household", currency: .usd, now: now)
    let today = CalendarDate(now, in: TimeZone(identifier: "UTC")!)
    let generator = DemoGenerator(seed: 7, currency: .usd, today: today, rooms: try database.rooms(household.id),
                                  categories: try database.categories(household.id))
    var written = 0
    while written < count {
        let upper = min(count, written + 500)
        let batch = try generator.items(written..<upper).enumerated().map { offset, demo -> NewItem in
            let index = written + offset
            // A COM segment right after the SOI marker: a distinct file with the same picture.
            var jpeg = photos[index % photos.count]
            let comment = Array("nestory bench photo \(index)".utf8)
            let length = comment.count + 2
            jpeg.insert(contentsOf: [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)] + comment, at: 2)
            let attachment = try database.storeAttachment(jpeg, contentType: "image/jpeg", now: now)
            return NewItem(id: demo.id, draft: demo.draft, createdAt: demo.createdAt, photos: [attachment])
        }
        try database.insertItems(household.id, batch, today: today)
        written = upper
    }
    print("Seeded \(count) items with a photo each in \(dataPath).")

case "html":
    guard let out = argument("--out") else { fail("--out FILE.html is needed") }
    let database = try AppDatabase.open(DataFolder(path: dataPath), mode: .readCurrent)
    guard let household = try database.allHouseholds().first else { fail("no household in \(dataPath)") }
    let options = InventoryReportOptions(grouping: .room, includePhotos: CommandLine.arguments.contains("--photos"),
                                         includeUndocumented: true, paper: .a4)
    guard FileManager.default.createFile(atPath: out, contents: nil), let handle = FileHandle(forWritingAtPath: out) else {
        fail("cannot write \(out)")
    }
    let sink = HTMLReportSink(options: options) { try handle.write(contentsOf: Data($0.utf8)) }
    let now = Date()
    let header = ReportHeader(householdName: household.name, currency: household.currency, generatedAt: now,
                              generatedOn: CalendarDate(now, in: .current))
    try ReportBuilder(source: ReportGenerator.sqlite(database).source(household.id), header: header)
        .buildInventory(options, into: sink)
    try sink.flush()
    try handle.close()
    print("Wrote \(out).")

default:
    fail("usage: bench-reports seed|html --data DIR ...")
}

/// The inventory report as HTML + CSS paged media: the same cover figures, group tables with the same
/// columns, photos, subtotals and totals as the PDF renderer draws.
final class HTMLReportSink: InventoryReportSink {
    let options: InventoryReportOptions
    let write: (String) throws -> Void
    var buffer = ""
    var currency = CurrencyCode.usd

    init(options: InventoryReportOptions, write: @escaping (String) throws -> Void) {
        self.options = options
        self.write = write
    }

    func emit(_ text: String) throws {
        buffer += text
        if buffer.utf8.count > 256 * 1024 { try flush() }
    }

    func flush() throws {
        try write(buffer)
        buffer = ""
    }

    func esc(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    func begin(_ cover: InventoryCover) throws {
        currency = cover.header.currency
        let footer = esc("\(cover.header.householdName) · Home inventory report · Generated \(cover.header.generatedOn.iso)")
        try emit("""
            <!doctype html><html><head><meta charset="utf-8"><style>
            @page { size: A4; margin: 36pt 36pt 62pt; @bottom-left { content: "\(footer)"; font: 7.5pt "DejaVu Sans"; color: #6b7280; }
              @bottom-right { content: "Page " counter(page); font: 7.5pt "DejaVu Sans"; color: #6b7280; } }
            body { font-family: "DejaVu Sans"; font-size: 8pt; color: #111827; }
            h1 { font-size: 26pt; margin: 0 } h2 { font-size: 16pt; margin: 0 0 6pt; break-before: page; }
            table { width: 100%; border-collapse: collapse; } th { background: #f1f5f9; font-size: 6.5pt; text-align: left; color: #6b7280; }
            td { border-bottom: 0.4pt solid #dcdfe4; padding: 4pt; vertical-align: top; } .num { text-align: right; }
            .stat { display: inline-block; width: 30%; background: #f1f5f9; padding: 10pt; margin-right: 2%; border-radius: 8pt; }
            .big { font-size: 18pt; font-weight: bold; } .muted { color: #6b7280; } img { width: 48pt; height: 36pt; object-fit: contain; }
            .bar { background: #0f766e; height: 10pt; display: inline-block; } .sub td { background: #f1f5f9; font-weight: bold; }
            .ok { background: #15803d; color: white; padding: 0 2pt; } .no { border: 0.8pt solid #dcdfe4; color: #6b7280; padding: 0 2pt; }
            </style></head><body>
            <p class="muted">HOME INVENTORY REPORT</p><h1>\(esc(cover.header.householdName))</h1>
            <p class="muted">Generated \(cover.header.generatedOn.iso) · \(esc(cover.options.summary))</p>
            <div class="stat">ITEMS<div class="big">\(cover.total.itemCount)</div></div>
            <div class="stat">TOTAL VALUE<div class="big">\(esc(ReportFormat.money(cover.total.value, preferred: currency)))</div></div>
            <div class="stat">DOCUMENTATION SCORE<div class="big">\(cover.score.percent.map { "\($0)%" } ?? "—")</div></div>
            <h3>Value by category</h3><table>
            """)
        let maximum = max(1, cover.valueByCategory.map(\.value.minorUnits).max() ?? 1)
        for slice in cover.valueByCategory.prefix(9) {
            try emit("<tr><td>\(esc(slice.name))</td><td><span class=\"bar\" style=\"width:\(Double(slice.value.minorUnits) / Double(maximum) * 200)pt\"></span></td><td class=\"num\">\(esc(slice.value.formatted))</td></tr>")
        }
        try emit("</table><h3>Items by room</h3><table>")
        let most = max(1, cover.itemsByRoom.map(\.itemCount).max() ?? 1)
        for room in cover.itemsByRoom.prefix(10) {
            try emit("<tr><td>\(esc(room.name))</td><td><span class=\"bar\" style=\"width:\(Double(room.itemCount) / Double(most) * 200)pt\"></span> \(room.itemCount)</td></tr>")
        }
        try emit("</table>")
    }

    func beginGroup(_ group: ReportGroup, total: ReportTotal) throws {
        try emit("""
            <h2>\(esc(group.name)) <span class="muted" style="font-size:9pt">\(total.itemCount) items · \(esc(ReportFormat.money(total.value, preferred: currency)))</span></h2>
            <table><thead><tr>\(options.includePhotos ? "<th>PHOTO</th>" : "")<th>ITEM</th><th>SERIAL</th><th>PURCHASED</th><th>CONDITION</th><th class="num">VALUE</th><th>EVIDENCE</th></tr></thead><tbody>
            """)
    }

    func row(_ row: ReportItem) throws {
        let item = row.item
        let photo = options.includePhotos ? "<td>\(row.photos.first.map { "<img src=\"file://\($0.url.path)\">" } ?? "No photo")</td>" : ""
        let brand = [item.brand, item.modelNumber].compactMap { $0 }.joined(separator: " · ")
        let status = row.documentation
        let marks = [("P", status.hasPhoto), ("R", status.hasReceipt), ("V", status.hasValue), ("S", status.hasSerial)]
            .map { "<span class=\"\($0.1 ? "ok" : "no")\">\($0.0)</span>" }.joined(separator: " ")
        try emit("""
            <tr>\(photo)<td><b>\(esc(item.name))</b><br><span class="muted">\(esc(brand))</span></td><td>\(esc(item.serialNumber ?? "—"))</td>\
            <td>\(item.purchaseDate?.iso ?? "—")</td><td>\(item.condition.label)</td><td class="num"><b>\(esc(item.totalValue?.formatted ?? "No value"))</b></td><td>\(marks)</td></tr>
            """)
    }

    func endGroup(_ total: ReportTotal) throws {
        try emit("<tr class=\"sub\"><td colspan=\"\(options.includePhotos ? 5 : 4)\">Subtotal \(esc(total.name)) · \(total.itemCount) items</td><td class=\"num\" colspan=\"2\">\(esc(ReportFormat.money(total.value, preferred: currency)))</td></tr></tbody></table>")
    }

    func end(_ totals: InventoryTotals) throws {
        try emit("<h2>Totals</h2>")
        for (title, rows) in [("By room", totals.byRoom), ("By category", totals.byCategory)] {
            try emit("<h3>\(title)</h3><table><tr><th>NAME</th><th class=\"num\">ITEMS</th><th class=\"num\">VALUE</th></tr>")
            for row in rows {
                try emit("<tr><td>\(esc(row.name))</td><td class=\"num\">\(row.itemCount)</td><td class=\"num\">\(esc(ReportFormat.money(row.value, preferred: currency)))</td></tr>")
            }
            try emit("</table>")
        }
        try emit("<p class=\"big\">Total: \(totals.grand.itemCount) items · \(esc(ReportFormat.money(totals.grand.value, preferred: currency)))</p></body></html>\n")
    }
}
