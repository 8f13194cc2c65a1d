import Foundation
import NestoryStore
import NestoryStoreInterfaces
import Testing
@testable import NestoryProducts

@Suite("Catalogue files")
struct CatalogFileTests {
    @Test("products-off-sample and Open Food Facts field names; bad lines skipped with their numbers; a last line without a break")
    func reads() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-\(UUID()).jsonl")
        defer { try? FileManager.default.removeItem(at: url) }
        let text = """
            {"barcode": "0000000011150", "product_name": "Baguette Lyonnais &quot;Petit prix&quot;", "image_url": null}

            not json
            {"code": "12", "product_name": "too short a code"}
            {"code": 4006381333931, "name": "Highlighter", "brands": "Stabilo, Schwan", "categories": "Office, Pens"}
            {"barcode": "5000112548167"}
            {"barcode": "036000291452", "product_name": "Last line"}
            """
        try Data(text.utf8).write(to: url)
        var batches: [[ProductRecord]] = []
        let summary = try CatalogFile.read(url, batch: 2) { batches.append($0) }
        #expect(summary.imported == 3)
        #expect(batches.map(\.count) == [2, 1])
        let products = batches.flatMap { $0 }
        #expect(products.map(\.name) == ["Baguette Lyonnais \"Petit prix\"", "Highlighter", "Last line"])
        #expect(products[1].code == "4006381333931" && products[1].brand == "Stabilo" && products[1].category == "Office")
        #expect(summary.skipped.map(\.line) == [3, 4, 6])
    }
}
