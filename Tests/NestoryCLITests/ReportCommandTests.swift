import Foundation
import Testing

@Suite(.serialized) struct ReportCommandTests {
    @Test func reportInventoryLossListAndExports() throws {
        let folder = CLI.Folder()
        #expect(try CLI.run(["demo", "--data", folder.path, "--items", "80", "--seed", "2"]).status == 0)
        let pdf = folder.path + "/inventory.pdf"
        let inventory = try CLI.run(["report", "inventory", "--data", folder.path, "--out", pdf, "--photos", "--undocumented",
                                     "--group", "category", "--paper", "letter"])
        #expect(inventory.status == 0, "\(inventory.stderr)")
        #expect(inventory.stdout.contains("80 items") && inventory.stdout.contains("pages"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: pdf)).starts(with: Data("%PDF".utf8)))

        let loss = folder.path + "/loss.pdf"
        let lossList = try CLI.run(["report", "loss", "--data", folder.path, "--out", loss, "--room", "kitchen", "--date", "2025-01-02",
                                    "--type", "water", "--description", "Flooded", "--claim", "C-1"])
        #expect(lossList.status == 0, "\(lossList.stderr)")
        #expect(FileManager.default.fileExists(atPath: loss))

        let none = try CLI.run(["report", "loss", "--data", folder.path, "--out", loss, "--date", "2025-01-02", "--type", "fire"])
        #expect(none.status != 0 && none.stderr.contains("No items chosen"))
        let badType = try CLI.run(["report", "loss", "--data", folder.path, "--out", loss, "--date", "2025-01-02", "--type", "meteor", "--room", "Kitchen"])
        #expect(badType.status != 0)

        let csv = try CLI.run(["export", "csv", folder.path + "/items.csv", "--data", folder.path])
        #expect(csv.status == 0 && csv.stdout.contains("Wrote 80 items"), "\(csv.stderr)")
        let json = try CLI.run(["export", "json", folder.path + "/items.json", "--data", folder.path])
        #expect(json.status == 0, "\(json.stderr)")
        let root = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.path + "/items.json"))) as? [String: Any]
        #expect((root?["items"] as? [Any])?.count == 80)
    }
}
