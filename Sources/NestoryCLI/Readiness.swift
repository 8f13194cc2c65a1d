import Foundation
import NestoryImaging
import NestoryReceipts
import NestoryStore
import NestoryWeb

/// What /health/ready checks besides the database: room on disk, the native libraries (loaded on the first
/// check, as on a first photo), and the OCR engine's files.
enum Readiness {
    /// A 1×1 PNG: probing it starts libvips.
    static let tinyPNG = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")!

    static func checks(folder: DataFolder, minFreeBytes: Int64, imaging: any ImageProcessing, recognizer: any TextRecognizer,
                       ocrEngine: String, ocrPython: String) -> [Operations.Check] {
        [
            Operations.Check(name: "disk") {
                var stats = statvfs()
                guard statvfs(folder.path, &stats) == 0 else { return "cannot read the free space of \(folder.path)" }
                let free = Int64(stats.f_bavail) * Int64(stats.f_frsize)
                return free >= minFreeBytes ? nil : "only \(free / 1_000_000) MB free in the data folder (wanted \(minFreeBytes / 1_000_000) MB)"
            },
            Operations.Check(name: "imaging") {
                do { _ = try await imaging.probe(tinyPNG); return nil } catch { return "libvips: \(error)" }
            },
            Operations.Check(name: "ocr") {
                // Starting an engine costs seconds and, for RapidOCR, a gigabyte: check what it needs instead.
                if OCREngine.usesRapidOCR(engine: ocrEngine, python: ocrPython) && !FileManager.default.isExecutableFile(atPath: ocrPython) {
                    return "RapidOCR's Python \(ocrPython) is missing (receipts fall back to tesseract)"
                }
                let tessdata = ["/usr/share/tesseract-ocr/5/tessdata/eng.traineddata", "/usr/share/tesseract-ocr/4.00/tessdata/eng.traineddata"]
                return tessdata.contains(where: FileManager.default.fileExists) ? nil : "tesseract's English data is not installed"
            },
        ]
    }
}
