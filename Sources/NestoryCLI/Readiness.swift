import Foundation
import Logging
import Synchronization
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
                guard let free = folder.freeBytes else { return "cannot read the free space of \(folder.path)" }
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

extension Readiness {
    /// With files in an object store: the bucket answers this server's signed requests (a HEAD of a key that is never
    /// stored: 404 is ready; 403, a server error or no answer is not, in the store's words). Nothing for the data folder.
    static func blobStorage(_ backend: any BlobBackend) -> [Operations.Check] {
        guard !(backend is LocalBlobBackend) else { return [] }
        return [Operations.Check(name: "blobs") {
            // The request blocks: on a thread of its own, never one of Swift's cooperative threads.
            await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    do {
                        _ = try backend.exists(String(repeating: "0", count: 64))
                        continuation.resume(returning: nil)
                    } catch {
                        continuation.resume(returning: "\(error)")
                    }
                }
            }
        }]
    }
}

/// SQLite's structural check of the whole file, run once after the server answers: it reads every page, so
/// at a million items it takes seconds, and nothing that grows with the database may stand between starting
/// and the first answered request. Requests are served meanwhile; `/health/ready` says how it went (a
/// corrupt file makes the server not ready) and the log says so once.
final class BackgroundIntegrityCheck: Sendable {
    enum State: Sendable, Equatable {
        case pending
        case passed(seconds: Double)
        case failed(String)
    }

    private let state = Mutex(State.pending)

    var current: State { state.withLock { $0 } }

    /// Starts the check on its own thread (a read transaction: writers go on).
    func start(_ database: AppDatabase, logger: Logger) {
        Thread.detachNewThread { [self] in
            let started = DispatchTime.now().uptimeNanoseconds
            let outcome: State
            do {
                try database.checkIntegrity()
                outcome = .passed(seconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
            } catch {
                outcome = .failed("\(error)")
            }
            state.withLock { $0 = outcome }
            switch outcome {
            case .passed(let seconds):
                logger.info("database integrity check passed", metadata: ["seconds": .string(String(format: "%.1f", seconds))])
            case .failed(let problem):
                logger.critical("database integrity check failed: \(problem)")
            case .pending: break
            }
        }
    }

    /// Still running counts as ready: the file was opened and migrated, and requests are answered.
    var check: Operations.Check {
        Operations.Check(name: "integrity") { [self] in
            if case .failed(let problem) = current { return problem }
            return nil
        }
    }
}
