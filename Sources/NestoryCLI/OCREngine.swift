import Foundation
import NestoryOCR
import NestoryReceipts

/// Which engine reads receipts, for the server and `nestory receipt read`. RapidOCR reads this kind of receipt
/// far better than tesseract (BENCHMARKS.md, Receipts) and is used when it is installed (`scripts/install-ocr.sh`
/// puts it in `.venv-ocr`), with tesseract behind it for whatever it cannot read; tesseract alone otherwise.
///
/// `NESTORY_OCR_ENGINE`: `auto` (the default), `rapidocr` or `tesseract`. `NESTORY_OCR_PYTHON`: the Python that has
/// RapidOCR installed (default `.venv-ocr/bin/python` in the working folder).
enum OCREngine {
    static var python: String {
        ProcessInfo.processInfo.environment["NESTORY_OCR_PYTHON"].flatMap { $0.isEmpty ? nil : $0 } ?? ".venv-ocr/bin/python"
    }

    /// Whether receipts are read with RapidOCR first.
    static var usesRapidOCR: Bool {
        switch ProcessInfo.processInfo.environment["NESTORY_OCR_ENGINE"]?.lowercased() {
        case "tesseract": return false
        case "rapidocr": return true
        default: return FileManager.default.isExecutableFile(atPath: python)
        }
    }

    /// A recogniser with `workers` engines and room for `maxQueued` more receipts; each engine starts on the
    /// first receipt, so an idle server holds no OCR model in memory.
    static func recognizer(workers: Int, maxQueued: Int, report: @escaping @Sendable (String) -> Void) -> any TextRecognizer {
        // OpenMP inside tesseract only contends with the other workers and the web app.
        setenv("OMP_THREAD_LIMIT", "1", 0)
        let tesseract = LazyTextRecognizer { TesseractRecognizer(configuration: .init(workers: workers, maxQueued: maxQueued)) }
        guard usesRapidOCR else { return tesseract }
        let python = python
        let rapid = LazyTextRecognizer { RapidOCRRecognizer(configuration: .init(workers: workers, maxQueued: maxQueued, python: python)) }
        return FallbackTextRecognizer(primary: rapid, fallback: tesseract) { reason in
            report("RapidOCR is not available, reading receipts with tesseract: \(reason)")
        }
    }
}
