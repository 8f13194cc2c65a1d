import Foundation
import Logging
import NestoryOCR
import NestoryReceipts

/// Which engine reads receipts, for the server and `nestory receipt read`. RapidOCR reads this kind of receipt
/// far better than tesseract (BENCHMARKS.md, Receipts) and is used when it is installed (`scripts/install-ocr.sh`
/// puts it in `.venv-ocr`), with tesseract behind it for whatever it cannot read; tesseract alone otherwise.
///
/// The engine is `auto` (the default), `rapidocr` or `tesseract` (setting `ocr.engine`, `NESTORY_OCR_ENGINE`); the
/// Python that has RapidOCR is `ocr.python` (`NESTORY_OCR_PYTHON`, default `.venv-ocr/bin/python`).
enum OCREngine {
    static let defaultPython = ".venv-ocr/bin/python"

    /// The engine and Python as the environment says, for the commands that take no settings file.
    static var fromEnvironment: (engine: String, python: String) {
        let environment = ProcessInfo.processInfo.environment
        return (environment["NESTORY_OCR_ENGINE"]?.lowercased() ?? "auto",
                environment["NESTORY_OCR_PYTHON"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultPython)
    }

    /// Whether receipts are read with RapidOCR first.
    static func usesRapidOCR(engine: String, python: String) -> Bool {
        switch engine {
        case "tesseract": return false
        case "rapidocr": return true
        default: return FileManager.default.isExecutableFile(atPath: python)
        }
    }

    /// A recogniser with `workers` engines and room for `maxQueued` more receipts; each engine starts on the
    /// first receipt, so an idle server holds no OCR model in memory. `report` hears what the engines say: a RapidOCR
    /// worker's start at `.info`, what it writes to its standard error and a fall back to tesseract at `.warning`.
    static func recognizer(engine: String, python: String, workers: Int, maxQueued: Int, threads: Int? = nil,
                           timeout: TimeInterval = 120, report: @escaping @Sendable (Logger.Level, String) -> Void) -> any TextRecognizer {
        // Before the RapidOCR worker starts (it is started first, and inherits it), as tesseract's engine does itself.
        TesseractRecognizer.limitOpenMPThreads()
        let tesseract = LazyTextRecognizer {
            TesseractRecognizer(configuration: .init(workers: workers, maxQueued: maxQueued, timeout: timeout))
        }
        guard usesRapidOCR(engine: engine, python: python) else { return tesseract }
        let rapid = LazyTextRecognizer {
            RapidOCRRecognizer(configuration: .init(workers: workers, maxQueued: maxQueued, python: python, threadsPerWorker: threads,
                                                    timeout: timeout, log: { line in
                report(line.hasPrefix(RapidOCRRecognizer.readyMessage) ? .info : .warning, line)
            }))
        }
        // tesseract reads again the header lines RapidOCR read doubtfully (the store's name and address; BENCHMARKS.md,
        // Receipts, 2026-11-27), on the same lazily started workers as the fallback.
        return FallbackTextRecognizer(primary: RereadingRecognizer(primary: rapid, rereader: tesseract), fallback: tesseract) { reason in
            report(.warning, "RapidOCR is not available, reading receipts with tesseract: \(reason)")
        }
    }
}
