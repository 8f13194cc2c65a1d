import Foundation
import NestoryChildProcess
import Testing

/// `nestory receipt read IMAGE`, run as a person would: the built binary, beside the test bundle.
@Suite struct ReceiptCommandTests {
    /// Both engines: RapidOCR (installed by scripts/install-ocr.sh into .venv-ocr, used when it is there) and
    /// tesseract. Without RapidOCR the first falls back to tesseract and says so; with it, says nothing.
    @Test(arguments: ["rapidocr", "tesseract"])
    func printsTheFieldsAsJSON(engine: String) throws {
        let image = try fixtureReceiptPNG()
        defer { try? FileManager.default.removeItem(at: image.deletingLastPathComponent()) }
        let result = try CLI.run(["receipt", "read", image.path, "--date-order", "dmy"], environment: ["NESTORY_OCR_ENGINE": engine])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        if engine == "rapidocr", !FileManager.default.isExecutableFile(atPath: ".venv-ocr/bin/python") {
            #expect(result.stderr.contains("reading receipts with tesseract"))
        }
        // A worker that started is no news on a terminal (the server logs it at info).
        #expect(!result.stderr.contains("worker: ready"), "stderr: \(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let total = try #require(json["total"] as? [String: Any])
        #expect(total["amount"] as? String == "23.50")
        #expect(total["currency"] as? String == "MYR")
        #expect((total["confidence"] as? Double).map { (0...1).contains($0) } == true)
        let date = try #require(json["purchaseDate"] as? [String: Any])
        #expect(date["value"] as? String == "2018-05-03")
        let vendor = try #require(json["vendor"] as? [String: Any])
        #expect(vendor["value"] as? String == "SINAR JAYA TRADING SDN BHD")
        #expect((json["rawText"] as? String)?.contains("TOTAL") == true)
        #expect(json.keys.contains("tax"))
    }

    @Test func theDateOrderFlagDecidesAnAmbiguousDate() throws {
        let image = try fixtureReceiptPNG()
        defer { try? FileManager.default.removeItem(at: image.deletingLastPathComponent()) }
        let result = try CLI.run(["receipt", "read", image.path, "--date-order", "mdy"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect((json["purchaseDate"] as? [String: Any])?["value"] as? String == "2018-03-05")
    }

    @Test func aMissingOrUnreadableFileIsAClearError() throws {
        let missing = try CLI.run(["receipt", "read", "/nonexistent/receipt.jpg"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("There is no file"))

        let garbage = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-not-an-image-\(getpid()).jpg")
        try Data("this is not an image".utf8).write(to: garbage)
        defer { try? FileManager.default.removeItem(at: garbage) }
        let unreadable = try CLI.run(["receipt", "read", garbage.path])
        #expect(unreadable.status != 0)
        #expect(unreadable.stderr.contains("not an image"))
    }

    @Test func aBadDateOrderIsRefused() throws {
        let result = try CLI.run(["receipt", "read", "x.png", "--date-order", "ymd"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("dmy or mdy"))
    }
}

/// A Malaysian receipt rendered with `vips text` (libvips-tools), black on white, alone in a new temporary folder (the
/// caller removes it).
private func fixtureReceiptPNG() throws -> URL {
    // One folder per call: the tests run in parallel.
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-cli-receipt-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let png = folder.appendingPathComponent("receipt.png")
    let text = """
        SINAR JAYA TRADING SDN BHD
        (654321-K)
        LOT 5, JALAN BUNGA RAYA,
        50000 KUALA LUMPUR
        TEL: 03-2222 3333
        03/05/2018 10:15
        RICE 5KG                18.50
        COOKING OIL              5.00
        TOTAL               RM 23.50
        CASH                RM 30.00
        CHANGE               RM 6.50
        """
    let raw = folder.appendingPathComponent("text.v").path, framed = folder.appendingPathComponent("framed.v").path
    for arguments in [["text", raw, text, "--font", "DejaVu Sans Mono 10", "--dpi", "300"],
                      ["embed", raw, framed, "60", "60", "1400", "1600"],
                      ["invert", framed, png.path]] {
        guard try ChildProcess.run("/usr/bin/env", ["vips"] + arguments).exitCode == 0 else { throw CocoaError(.fileWriteUnknown) }
    }
    return png
}
