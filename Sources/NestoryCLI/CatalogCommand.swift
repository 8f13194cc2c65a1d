import ArgumentParser
import Foundation
import NestoryDomain
import NestoryProducts
import NestoryReportsLive
import NestoryStore

/// `nestory catalog ...`: the local product catalogue that barcode lookups search.
struct CatalogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "The local product catalogue barcode lookups search (before any online provider).",
        subcommands: [Import.self, Lookup.self])

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add products from a JSON Lines file (barcode/code, product_name/name, brands, categories, image_url).",
            discussion: "Products already in the catalogue are replaced. Lines without a barcode or a name are skipped and counted.")

        @OptionGroup var data: DataOptions

        @Argument(help: "The .jsonl file.")
        var file: String

        func run() async throws {
            let url = try InputFile.url(file, .stream)
            try await data.withDatabase(.readCurrent) { database in
                let products = database.stores.products
                let started = Date()
                let summary: CatalogFile.Summary
                do {
                    // The file is read on a thread of its own, which waits for each batch to be written.
                    summary = try await ReportCommand.offThePool {
                        try CatalogFile.read(url) { batch in _ = try Waiting.wait { try await products.importCatalog(batch, now: Date()) } }
                    }
                } catch let error as CatalogError {
                    throw CLIError(error.description)
                }
                print("Imported \(summary.imported) product\(summary.imported == 1 ? "" : "s") in \(String(format: "%.1f", Date().timeIntervalSince(started))) s; the catalogue has \(try await products.catalogCount()).")
                if !summary.skipped.isEmpty {
                    let shown = summary.skipped.prefix(5).map { "line \($0.line): \($0.reason)" }.joined(separator: "; ")
                    print("Skipped \(summary.skipped.count) lines (\(shown)\(summary.skipped.count > 5 ? "; …" : "")).")
                }
            }
        }
    }

    struct Lookup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Look a code up as the app does (your items, the catalogue, then online providers if the household allows), as JSON.")

        @OptionGroup var data: DataOptions

        @Option(help: "The household's name or id (not needed when there is only one).")
        var household: String?

        @Argument(help: "The code, in any form (UPC-A, UPC-E, EAN-13, EAN-8).")
        var code: String

        func run() async throws {
            let result = try await data.withDatabase(.readCurrent) { database in
                let target = try await resolveHousehold(database.stores.accounts, household)
                return try await ProductLookup(items: database.stores.items, store: database.stores.products).lookup(code, household: target.id)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(result), as: UTF8.self))
            if result.match == nil { throw ExitCode(1) }
        }
    }
}
