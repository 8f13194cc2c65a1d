import CTesseract
import CTesseractLoader
import Foundation
import NestoryReceipts

/// One tesseract engine. Not thread-safe: each worker thread owns one and reuses it for every image
/// (initialising takes about 0.1 s; recognising reuses the loaded model).
final class TesseractEngine {
    private let handle: OpaquePointer

    init(dataPath: String?, language: String, thresholdingMethod: Int = 0) throws(RecognitionError) {
        // tesseract is loaded here, on the first engine, not at process start (CTesseractLoader).
        var loadError = [CChar](repeating: 0, count: 512)
        guard nt_tesseract_load(&loadError, loadError.count) == 0 else {
            throw .engineUnavailable(String(decoding: loadError.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        guard let handle = TessBaseAPICreate() else { throw .engineUnavailable("tesseract could not be created.") }
        // Without this, tesseract prints notes ("Estimating resolution…") on stderr for every image.
        _ = TessBaseAPISetVariable(handle, "debug_file", "/dev/null")
        let status = TessBaseAPIInit3(handle, dataPath, language)
        guard status == 0 else {
            TessBaseAPIDelete(handle)
            throw .engineUnavailable("tesseract has no '\(language)' language data (install tesseract-ocr-\(language)).")
        }
        _ = TessBaseAPISetVariable(handle, "thresholding_method", String(thresholdingMethod))
        self.handle = handle
    }

    deinit {
        TessBaseAPIEnd(handle)
        TessBaseAPIDelete(handle)
    }

    /// Recognises a prepared image. `scale` is how much the image was enlarged, so boxes are reported
    /// in the original image's pixels.
    /// tesseract stops at `deadline` (its monitor's deadline) and reports what it read by then: a hung or
    /// endless page never holds a worker. With `rectangle` (in the prepared image's pixels), only that part is read.
    func recognize(_ pix: UnsafeMutablePointer<PIX>, pageSegmentation: PageSegmentation, scale: Double,
                   originalWidth: Int, originalHeight: Int, deadline: TimeInterval,
                   rectangle: TextBox? = nil) throws(RecognitionError) -> RecognizedText {
        TessBaseAPIClear(handle)
        TessBaseAPISetPageSegMode(handle, TessPageSegMode(rawValue: pageSegmentation.rawValue))
        TessBaseAPISetImage2(handle, pix)
        TessBaseAPISetSourceResolution(handle, 300)
        if let rectangle {
            TessBaseAPISetRectangle(handle, Int32(rectangle.x), Int32(rectangle.y), Int32(rectangle.width), Int32(rectangle.height))
        }
        let monitor = TessMonitorCreate()
        defer { if let monitor { TessMonitorDelete(monitor) } }
        if let monitor { TessMonitorSetDeadlineMSecs(monitor, Int32(clamping: Int(deadline * 1000))) }
        guard TessBaseAPIRecognize(handle, monitor) == 0 else {
            TessBaseAPIClear(handle)
            throw .recognitionFailed("tesseract could not recognise this image.")
        }
        defer { TessBaseAPIClear(handle) }
        var lines: [RecognizedLine] = []
        var confidences: [Double] = []
        guard let iterator = TessBaseAPIGetIterator(handle) else {
            return RecognizedText(lines: [], confidence: 0, imageWidth: originalWidth, imageHeight: originalHeight)
        }
        defer { TessResultIteratorDelete(iterator) }
        let page = TessResultIteratorGetPageIterator(iterator)

        func box(_ level: TessPageIteratorLevel) -> TextBox? {
            var left: Int32 = 0, top: Int32 = 0, right: Int32 = 0, bottom: Int32 = 0
            guard TessPageIteratorBoundingBox(page, level, &left, &top, &right, &bottom) != 0 else { return nil }
            let s = scale > 0 ? scale : 1
            return TextBox(x: Int(Double(left) / s), y: Int(Double(top) / s),
                           width: Int(Double(right - left) / s), height: Int(Double(bottom - top) / s))
        }
        func text(_ level: TessPageIteratorLevel) -> String? {
            guard let pointer = TessResultIteratorGetUTF8Text(iterator, level) else { return nil }
            defer { TessDeleteText(pointer) }
            return String(cString: pointer)
        }

        var current: RecognizedLine?
        repeat {
            if TessPageIteratorIsAtBeginningOf(page, RIL_TEXTLINE) != 0 {
                if let line = current, !line.words.isEmpty { lines.append(line) }
                let lineConfidence = Double(TessResultIteratorConfidence(iterator, RIL_TEXTLINE)) / 100
                current = RecognizedLine(text: "", box: box(RIL_TEXTLINE), confidence: max(0, min(1, lineConfidence)), words: [])
            }
            guard let word = text(RIL_WORD)?.trimmingCharacters(in: .whitespacesAndNewlines), !word.isEmpty else { continue }
            let confidence = max(0, min(1, Double(TessResultIteratorConfidence(iterator, RIL_WORD)) / 100))
            confidences.append(confidence)
            if current == nil { current = RecognizedLine(text: "", box: box(RIL_TEXTLINE), confidence: nil, words: []) }
            current!.words.append(RecognizedWord(text: word, box: box(RIL_WORD), confidence: confidence))
            current!.text = current!.text.isEmpty ? word : current!.text + " " + word
        } while TessResultIteratorNext(iterator, RIL_WORD) != 0
        if let line = current, !line.words.isEmpty { lines.append(line) }
        let mean = confidences.isEmpty ? 0 : confidences.reduce(0, +) / Double(confidences.count)
        return RecognizedText(lines: lines, confidence: mean, imageWidth: originalWidth, imageHeight: originalHeight)
    }
}
