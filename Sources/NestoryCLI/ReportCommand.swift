import ArgumentParser
import Foundation
import NestoryDomain
import NestoryReports
import NestoryReportsLive
import NestoryServices
import NestoryStore

/// `nestory report inventory|loss`: the same PDFs the Reports tab makes.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report", abstract: "Make a report PDF: the full inventory or a loss list.",
        subcommands: [InventoryReportCommand.self, LossReportCommand.self])
}

extension ReportGrouping: ExpressibleByArgument {}
extension PaperSize: ExpressibleByArgument {}
extension IncidentType: ExpressibleByArgument {}

struct InventoryReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "inventory", abstract: "The full inventory report.")

    @OptionGroup var data: DataOptions
    @Option(help: "The household's name or id (not needed when there is only one).") var household: String?
    @Option(help: "Where to write the PDF.") var out: String
    @Option(help: "Group by room or category.") var group: ReportGrouping = .room
    @Flag(help: "Show each item's primary photo.") var photos = false
    @Flag(help: "Also list items that are not fully documented (photo, value, category and room).") var undocumented = false
    @Option(help: "a4 or letter.") var paper: PaperSize = .a4
    @Flag(help: "Print nothing but errors.") var quiet = false

    func run() async throws {
        let out = try OutputFile.url(out)
        try await data.withDatabase(.readCurrent) { database in
            let target = try await resolveHousehold(database.stores.accounts, household)
            let start = Date()
            let options = InventoryReportOptions(grouping: group, includePhotos: photos, includeUndocumented: undocumented, paper: paper)
            let maker = database.stores.reportMaker(folder: data.folder)
            let result = try await ReportCommand.offThePool { try maker.inventory(target.id, options: options, to: out, now: start) }
            if !quiet { print(ReportCommand.summary(result, path: self.out, seconds: Date().timeIntervalSince(start))) }
        }
    }
}

struct LossReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loss", abstract: "A loss list for an incident, from chosen items or a search.")

    @OptionGroup var data: DataOptions
    @Option(help: "The household's name or id (not needed when there is only one).") var household: String?
    @Option(help: "Where to write the PDF.") var out: String
    @Option(name: .customLong("item"), help: "An item id to include (repeat for more).") var items: [String] = []
    @Option(help: "Include every item matching this search (name, brand, serial, notes, receipts…).") var search: String?
    @Option(help: "Include every item in this room (its name).") var room: String?
    @Option(help: "The date of the loss, YYYY-MM-DD.") var date: String
    @Option(help: "fire, theft, water or other.") var type: IncidentType
    @Option(help: "What happened.") var description: String = ""
    @Option(help: "The insurance policy number.") var policy: String?
    @Option(help: "The claim number.") var claim: String?
    @Flag(help: "Leave out the photo pages.") var noPhotos = false
    @Option(help: "a4 or letter.") var paper: PaperSize = .a4
    @Flag(help: "Print nothing but errors.") var quiet = false

    func run() async throws {
        let out = try OutputFile.url(out)
        try await data.withDatabase(.readCurrent) { database in
            let stores = database.stores
            let target = try await resolveHousehold(stores.accounts, household)
            var ids: [ItemID] = []
            for text in items {
                guard let id = ItemID(string: text) else { throw CLIError("\(text) is not an item id.") }
                ids.append(id)
            }
            if search != nil || room != nil {
                var filter = ItemFilter()
                if let room {
                    guard let match = try await stores.items.rooms(target.id).first(where: { Text.foldKey($0.name) == Text.foldKey(room) }) else {
                        throw CLIError("There is no room called \(room).")
                    }
                    filter.roomID = match.id
                }
                var cursor: PageCursor?
                repeat {
                    let page = try await stores.items.items(target.id, ItemQuery(search: search ?? "", filter: filter, limit: ItemQuery.maxLimit, after: cursor))
                    ids += page.elements.map(\.item.id)
                    cursor = page.nextCursor
                } while cursor != nil
            }
            guard !ids.isEmpty else { throw CLIError("No items chosen: pass --item ID, --search TEXT or --room NAME.") }
            let start = Date()
            let incident = try Incident(date: CalendarDate(iso: date), type: type, description: description, policyNumber: policy,
                                        claimNumber: claim).validated(today: target.day(at: start))
            let options = LossListOptions(incident: incident, itemIDs: ids, includePhotos: !noPhotos, paper: paper)
            let maker = stores.reportMaker(folder: data.folder)
            let result = try await ReportCommand.offThePool { try maker.lossList(target.id, options: options, to: out, now: start) }
            if !quiet { print(ReportCommand.summary(result, path: self.out, seconds: Date().timeIntervalSince(start))) }
        }
    }
}

extension ReportCommand {
    /// Runs a report's rendering on a thread of its own: the generator waits there for the stores, which it must not do on
    /// Swift's cooperative pool (an async command's body runs there).
    static func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await BlockingPool(label: "nestory.report", width: 1).run(body)
    }

    static func summary(_ result: RenderedReport, path: String, seconds: Double) -> String {
        "Wrote \(path): \(result.items) item\(result.items == 1 ? "" : "s"), \(result.pages) page\(result.pages == 1 ? "" : "s"), "
            + "\(result.images) photo\(result.images == 1 ? "" : "s"), \(ByteCount.text(result.byteCount)) in \(String(format: "%.2f", seconds)) s."
    }
}

/// `nestory export csv|json FILE`: the whole inventory as a spreadsheet or as documented JSON.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Export every item as CSV (spreadsheet-safe) or JSON.")

    enum Format: String, ExpressibleByArgument { case csv, json }

    @OptionGroup var data: DataOptions
    @Option(help: "The household's name or id (not needed when there is only one).") var household: String?
    @Argument(help: "csv or json.") var format: Format
    @Argument(help: "The file to write, or - for standard output.") var file: String

    func run() async throws {
        // `-`: standard output, for a pipe (`nestory export csv - | gzip`); what it says then goes to standard error.
        let url = file == "-" ? nil : try OutputFile.url(file, dash: true), format = format
        try await data.withDatabase(.readCurrent) { database in
            let target = try await resolveHousehold(database.stores.accounts, household)
            let generator = database.stores.reportMaker(folder: data.folder)
            let count = try await ReportCommand.offThePool {
                if let url {
                    return format == .csv ? try generator.exportCSV(target.id, to: url) : try generator.exportJSON(target.id, to: url, now: Date())
                }
                let write: (Data) throws -> Void = { data in try FileHandle.standardOutput.write(contentsOf: data) }
                return format == .csv ? try generator.exportCSV(target.id, into: write) : try generator.exportJSON(target.id, into: write, now: Date())
            }
            let said = "Wrote \(count) item\(count == 1 ? "" : "s") to \(url == nil ? "standard output" : file).\n"
            (url == nil ? FileHandle.standardError : FileHandle.standardOutput).write(Data(said.utf8))
        }
    }
}
