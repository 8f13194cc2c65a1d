// Receipt field accuracy on a folder of labelled receipts (the SROIE layout: NAME.jpg, NAME.json with
// `vendor`, `address`, `date_iso`, `total_amount`, and NAME.ocr.txt with the printed lines).
//
//   nestory-receipts-bench DIR [--workers N] [--threads N] [--psm 4|6|11|3] [--upscale WIDTH] [--otsu] [--deskew] [--luminance]
//                              [--normalize] [--sharpen] [--cache DIR] [--limit N] [--text-only] [--misses FILE]
//                              [--date-order dmy|mdy] [--readings FILE] [--part working|held-out|all] [--reread|--no-reread]
//                              [--packaged-models]
//
// Prints a table: the share of receipts whose vendor, address, date and total were read right, from the
// image (tesseract + extraction) and from the dataset's perfect text (extraction alone), plus seconds per
// receipt and peak memory.
//
// The stores are split by the first word of the store's name in NAME.json (FNV-1a hashed; a quarter of the
// stores held out), so rules can be worked out on one part and checked on stores they were not made from:
// `--part working` or `--part held-out` reads only that part; every run prints both parts' scores, and the
// vendor's mean per store (each store's share of receipts read right, averaged over stores, so a store with one
// receipt counts as much as one with forty).
import Foundation
import NestoryDomain
import NestoryOCR
import NestoryReceipts
import Synchronization

struct Options {
    var folder = ""
    var workers = ProcessInfo.processInfo.activeProcessorCount
    /// RapidOCR's threads per worker (nil: the server's default, the cores shared among the workers).
    var threads: Int?
    /// RapidOCR with the models the package ships instead of scripts/rapidocr-models.py's (the server's default).
    var packagedModels = false
    var psm = PageSegmentation.singleColumn
    var preparation = ImagePreparation.standard
    var cache: String?
    var limit = Int.max
    var textOnly = false
    var misses: String?
    /// Every image field as read (name, field, value, confidence, right or not), for comparing engines.
    var readings: String?
    var dateOrder = DateOrder.dayFirst
    /// `tesseract` (the default) or `rapidocr` (needs `--python` with rapidocr-onnxruntime installed).
    var engine = "tesseract"
    var python = "python3"
    /// `all`, or only the `working` or `held-out` part of the stores (see `StoreSplit`).
    var part = "all"
    /// Read the doubtful header lines again with tesseract (`RereadingRecognizer`, `SecondReading`): by default with
    /// RapidOCR, as the server does (`--no-reread` to measure without it).
    var rereadChoice: Bool?
    var reread: Bool { rereadChoice ?? (engine == "rapidocr") }

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--workers": workers = Int(iterator.next() ?? "") ?? workers
            case "--threads": threads = Int(iterator.next() ?? "")
            case "--packaged-models": packagedModels = true
            case "--psm": psm = PageSegmentation(rawValue: UInt32(iterator.next() ?? "") ?? 4) ?? .singleColumn
            case "--upscale": preparation.minimumWidth = Int(iterator.next() ?? "") ?? 0
            case "--otsu": preparation.adaptiveThreshold = true
            case "--deskew": preparation.deskew = true
            case "--darkest": preparation.darkestChannel = true
            case "--luminance": preparation.darkestChannel = false
            case "--normalize": preparation.normalizeBackground = true
            case "--sharpen": preparation.sharpen = true
            case "--threshold": preparation.thresholdingMethod = Int(iterator.next() ?? "") ?? 0
            case "--cache": cache = iterator.next()
            case "--limit": limit = Int(iterator.next() ?? "") ?? limit
            case "--text-only": textOnly = true
            case "--misses": misses = iterator.next()
            case "--readings": readings = iterator.next()
            case "--date-order": dateOrder = DateOrder(rawValue: iterator.next() ?? "") ?? .dayFirst
            case "--engine": engine = iterator.next() ?? engine
            case "--python": python = iterator.next() ?? python
            case "--part": part = iterator.next() ?? part
            case "--reread": rereadChoice = true
            case "--no-reread": rereadChoice = false
            default: folder = argument
            }
        }
    }

    var configurationKey: String {
        if engine == "rapidocr" { return "rapidocr" }
        return "psm\(psm.rawValue)-up\(preparation.minimumWidth)\(preparation.adaptiveThreshold ? "-otsu" : "")\(preparation.deskew ? "-deskew" : "")\(preparation.darkestChannel ? "-darkest" : "")\(preparation.thresholdingMethod != 0 ? "-th\(preparation.thresholdingMethod)" : "")\(preparation.normalizeBackground ? "-bgnorm" : "")\(preparation.sharpen ? "-sharpen" : "")"
    }
}

struct Labels: Decodable {
    let vendor: String?
    let address: String?
    let date_iso: String?
    let total_amount: String?
}

struct Sample {
    let name: String
    let image: URL
    let text: URL
    let labels: Labels
}

enum Field: String, CaseIterable { case vendor, address, date, total }

/// Upper-case letters and digits only: case, spaces and punctuation ignored.
func normalized(_ text: String?) -> String {
    (text ?? "").uppercased().filter { ($0.isLetter || $0.isNumber) && $0.isASCII }
}

func cents(_ text: String?) -> Int64? {
    guard let text, let money = try? Money.parse(text.replacingOccurrences(of: ",", with: ""), currency: .usd) else { return nil }
    return money.minorUnits
}

func correct(_ field: Field, _ reading: ReceiptReading, _ labels: Labels) -> Bool {
    switch field {
    case .vendor: return !normalized(labels.vendor).isEmpty && normalized(reading.vendor?.value) == normalized(labels.vendor)
    case .address: return !normalized(labels.address).isEmpty && normalized(reading.address?.value) == normalized(labels.address)
    case .date: return reading.purchaseDate?.value.iso == labels.date_iso
    case .total:
        guard let expected = cents(labels.total_amount), let total = reading.total?.value else { return false }
        return ReceiptExtractorBench.cents(total) == expected
    }
}

enum ReceiptExtractorBench {
    static func cents(_ money: Money) -> Int64 {
        switch money.currency.minorUnitDigits {
        case 0: return money.minorUnits * 100
        case 1: return money.minorUnits * 10
        default: return money.minorUnits
        }
    }
}

func peakMemoryMiB() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_maxrss) / 1024
}

func childrenPeakMemoryMiB() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
    return Double(usage.ru_maxrss) / 1024
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let index = min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))
    return sorted[index]
}

/// The working and held-out parts of a set of receipts, by store: the first word of the labelled store name
/// (letters and digits, upper case; `AEON CO. BHD` and `AEON CO. SDN BHD` are one store), FNV-1a 64 hashed, and a
/// remainder of 1 modulo 4 held out (about a quarter of the stores). `scripts/rapidocr-options.py` splits the same way.
enum StoreSplit {
    static func part(vendor: String?) -> String {
        let first = (vendor ?? "").uppercased().split(whereSeparator: { !(($0.isLetter || $0.isNumber) && $0.isASCII) }).first.map(String.init) ?? ""
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in first.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return hash % 4 == 1 ? "held-out" : "working"
    }

    /// The store a receipt is from, as its label names it (case, spaces and punctuation ignored).
    static func store(_ labels: Labels) -> String { normalized(labels.vendor) }
}

func loadSamples(_ folder: String, limit: Int, part: String) throws -> [Sample] {
    let url = URL(fileURLWithPath: folder)
    let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }.sorted()
    var samples: [Sample] = []
    for name in names where samples.count < limit {
        let base = String(name.dropLast(5))
        let labels = try JSONDecoder().decode(Labels.self, from: Data(contentsOf: url.appendingPathComponent(name)))
        if part != "all", StoreSplit.part(vendor: labels.vendor) != part { continue }
        let image = ["jpg", "jpeg", "png"].map { url.appendingPathComponent(base + "." + $0) }
            .first { FileManager.default.fileExists(atPath: $0.path) } ?? url.appendingPathComponent(base + ".jpg")
        samples.append(Sample(name: base, image: image, text: url.appendingPathComponent(base + ".ocr.txt"), labels: labels))
    }
    return samples
}

let options = Options(CommandLine.arguments)
// As the server does (OCREngine.recognizer): the RapidOCR worker starts before tesseract's engine and inherits it.
TesseractRecognizer.limitOpenMPThreads()
guard !options.folder.isEmpty else {
    FileHandle.standardError.write(Data("usage: nestory-receipts-bench DIR [--workers N] [--threads N] [--psm N] [--upscale W] [--otsu] [--deskew] [--cache DIR] [--limit N] [--text-only] [--packaged-models]\n".utf8))
    exit(2)
}
let samples: [Sample]
do { samples = try loadSamples(options.folder, limit: options.limit, part: options.part) } catch {
    FileHandle.standardError.write(Data("cannot read \(options.folder): \(error)\n".utf8))
    exit(1)
}
guard !samples.isEmpty else {
    FileHandle.standardError.write(Data("no labelled receipts (NAME.json) in \(options.folder)\n".utf8))
    exit(1)
}

let extractor = ReceiptExtractor()
// As the app would: the household's date order, and today as the day the receipts were captured.
let hints = ReceiptHints(dateOrder: options.dateOrder, capturedOn: CalendarDate(Date(), in: .current))
var missLog = ""
var readingLog = "name\tfield\tvalue\tconfidence\tright\ttext_confidence\n"

// Which fields of which receipt were read right (by receipt name), from the text and from the image.
var textRight: [String: Set<Field>] = [:]
var imageRight: [String: Set<Field>] = [:]

// From the perfect text: extraction alone.
var textScores: [Field: Int] = [:]
for sample in samples {
    guard let text = try? String(contentsOf: sample.text, encoding: .utf8) else { continue }
    let reading = extractor.extract(text: text, hints: hints)
    for field in Field.allCases {
        if correct(field, reading, sample.labels) { textScores[field, default: 0] += 1; textRight[sample.name, default: []].insert(field) } else {
            let got: String = switch field {
            case .vendor: reading.vendor?.value ?? "-"
            case .address: reading.address?.value ?? "-"
            case .date: reading.purchaseDate?.value.iso ?? "-"
            case .total: reading.total?.value.plainAmount ?? "-"
            }
            let want: String = switch field {
            case .vendor: sample.labels.vendor ?? ""
            case .address: sample.labels.address ?? ""
            case .date: sample.labels.date_iso ?? ""
            case .total: sample.labels.total_amount ?? ""
            }
            missLog += "text\t\(sample.name)\t\(field.rawValue)\tgot: \(got)\twant: \(want)\n"
        }
    }
}

// From the image: OCR (cached per configuration when --cache is given) and extraction.
var imageScores: [Field: Int] = [:]
var seconds: [Double] = []
/// The second reading's seconds per receipt it read lines of (`--reread`), counted in `seconds` too when the first
/// reading was fresh.
var secondSeconds: [Double] = []
var failures = 0
var meanConfidence: [Double] = []
let started = Date()
/// Which models the workers said they read with (their ready line), for the report.
let workerModels = Mutex<Set<String>>([])
/// The RapidOCR workers' settings, as the server makes them (its threads printed below are the ones the workers got).
let rapidConfiguration = RapidOCRRecognizer.Configuration(
    workers: options.workers, python: options.python, threadsPerWorker: options.threads, rewrittenModels: !options.packagedModels,
    log: { line in
        guard line.hasPrefix(RapidOCRRecognizer.readyMessage) else { return }
        workerModels.withLock { _ = $0.insert(String(line.dropFirst(RapidOCRRecognizer.readyMessage.count))) }
    })
if !options.textOnly {
    let recognizer: any TextRecognizer
    let shutdown: () -> Void
    if options.engine == "rapidocr" {
        let rapid = RapidOCRRecognizer(configuration: rapidConfiguration)
        recognizer = rapid
        shutdown = rapid.shutdown
    } else {
        let tesseract = TesseractRecognizer(configuration: .init(workers: options.workers, pageSegmentation: options.psm,
                                                                 preparation: options.preparation))
        recognizer = tesseract
        shutdown = tesseract.shutdown
    }
    let cacheFolder = options.cache.map { URL(fileURLWithPath: $0).appendingPathComponent(options.configurationKey) }
    if let cacheFolder { try? FileManager.default.createDirectory(at: cacheFolder, withIntermediateDirectories: true) }
    // The second reading: tesseract on the doubtful lines, cached apart from the first engine's output (by line box),
    // so a change to which lines are doubtful reads only the lines not read before.
    let rereader: TesseractRecognizer? = options.reread ? TesseractRecognizer(configuration: .init(workers: options.workers)) : nil
    let rereadFolder = options.reread ? options.cache.map { URL(fileURLWithPath: $0).appendingPathComponent("tesseract-lines") } : nil
    if let rereadFolder { try? FileManager.default.createDirectory(at: rereadFolder, withIntermediateDirectories: true) }
    struct CachedLine: Codable { let box: TextBox; let line: RecognizedLine }
    /// The first reading with its doubtful lines read again and merged; the seconds the second reading took (0 when
    /// every line came from the cache).
    @Sendable func secondReading(_ text: RecognizedText, _ sample: Sample) async -> (RecognizedText, Double) {
        guard let rereader else { return (text, 0) }
        let doubtful = SecondReading.doubtfulLines(text)
        guard !doubtful.isEmpty else { return (text, 0) }
        let cached = rereadFolder?.appendingPathComponent(sample.name + ".json")
        var known = (cached.flatMap { try? Data(contentsOf: $0) }.flatMap { try? JSONDecoder().decode([CachedLine].self, from: $0) }) ?? []
        let missing = doubtful.compactMap { text.lines[$0].box }.filter { box in !known.contains { $0.box == box } }
        var elapsed = 0.0
        if !missing.isEmpty, let data = try? Data(contentsOf: sample.image) {
            let clock = ContinuousClock.now
            if let lines = try? await rereader.reread(imageData: data, boxes: missing), lines.count == missing.count {
                let time = ContinuousClock.now - clock
                elapsed = Double(time.components.seconds) + Double(time.components.attoseconds) / 1e18
                known += zip(missing, lines).map { CachedLine(box: $0, line: $1) }
                if let cached, let encoded = try? JSONEncoder().encode(known) { try? encoded.write(to: cached) }
            }
        }
        var readings: [Int: RecognizedLine] = [:]
        for index in doubtful { if let box = text.lines[index].box, let line = known.first(where: { $0.box == box })?.line { readings[index] = line } }
        return (SecondReading.merged(text, readings: readings), elapsed)
    }

    struct Outcome: Sendable {
        let index: Int; let text: RecognizedText?; let seconds: Double?; let error: String?
        /// The second reading's own seconds, when it read lines (not from the cache).
        var secondSeconds: Double? = nil
    }
    let outcomes: [Outcome] = await withTaskGroup(of: Outcome.self) { group in
        var results: [Outcome] = []
        var next = 0
        func submit(_ index: Int) {
            let sample = samples[index]
            group.addTask {
                let cached = cacheFolder?.appendingPathComponent(sample.name + ".json")
                if let cached, let data = try? Data(contentsOf: cached),
                   let text = try? JSONDecoder().decode(RecognizedText.self, from: data) {
                    let (merged, secondSeconds) = await secondReading(text, sample)
                    return Outcome(index: index, text: merged, seconds: nil, error: nil, secondSeconds: secondSeconds > 0 ? secondSeconds : nil)
                }
                guard let data = try? Data(contentsOf: sample.image) else {
                    return Outcome(index: index, text: nil, seconds: nil, error: "missing image")
                }
                let clock = ContinuousClock.now
                do {
                    let text = try await recognizer.recognize(imageData: data)
                    let firstDone = ContinuousClock.now
                    if let cached, let encoded = try? JSONEncoder().encode(text) { try? encoded.write(to: cached) }
                    let (merged, secondSeconds) = await secondReading(text, sample)
                    let extracting = ContinuousClock.now
                    _ = extractor.extract(merged, hints: hints)
                    let elapsed = (firstDone - clock) + (ContinuousClock.now - extracting)
                    return Outcome(index: index, text: merged,
                                   seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18 + secondSeconds, error: nil,
                                   secondSeconds: secondSeconds > 0 ? secondSeconds : nil)
                } catch {
                    return Outcome(index: index, text: nil, seconds: nil, error: "\(error)")
                }
            }
        }
        // Keep exactly as many images in flight as there are workers, so each time is one receipt's own.
        while next < min(options.workers, samples.count) { submit(next); next += 1 }
        while let outcome = await group.next() {
            results.append(outcome)
            if next < samples.count { submit(next); next += 1 }
            if results.count % 50 == 0 { FileHandle.standardError.write(Data("  \(results.count)/\(samples.count) images\n".utf8)) }
        }
        return results
    }
    for outcome in outcomes.sorted(by: { $0.index < $1.index }) {
        let sample = samples[outcome.index]
        if let time = outcome.seconds { seconds.append(time) }
        if let time = outcome.secondSeconds { secondSeconds.append(time) }
        guard let text = outcome.text else {
            failures += 1
            missLog += "image\t\(sample.name)\terror\t\(outcome.error ?? "")\n"
            continue
        }
        if let confidence = text.confidence { meanConfidence.append(confidence) }
        let reading = extractor.extract(text, hints: hints)
        for field in Field.allCases {
            let (value, confidence): (String, Double?) = switch field {
            case .vendor: (reading.vendor?.value ?? "", reading.vendor?.confidence)
            case .address: (reading.address?.value ?? "", reading.address?.confidence)
            case .date: (reading.purchaseDate?.value.iso ?? "", reading.purchaseDate?.confidence)
            case .total: (reading.total?.value.plainAmount ?? "", reading.total?.confidence)
            }
            readingLog += "\(sample.name)\t\(field.rawValue)\t\(value.replacingOccurrences(of: "\t", with: " "))\t\(confidence.map { String(format: "%.3f", $0) } ?? "")\t\(correct(field, reading, sample.labels) ? 1 : 0)\t\(text.confidence.map { String(format: "%.3f", $0) } ?? "")\n"
            if correct(field, reading, sample.labels) { imageScores[field, default: 0] += 1; imageRight[sample.name, default: []].insert(field) } else {
                let got: String = switch field {
                case .vendor: reading.vendor?.value ?? "-"
                case .address: reading.address?.value ?? "-"
                case .date: reading.purchaseDate?.value.iso ?? "-"
                case .total: reading.total?.value.plainAmount ?? "-"
                }
                let want: String = switch field {
                case .vendor: sample.labels.vendor ?? ""
                case .address: sample.labels.address ?? ""
                case .date: sample.labels.date_iso ?? ""
                case .total: sample.labels.total_amount ?? ""
                }
                missLog += "image\t\(sample.name)\t\(field.rawValue)\tgot: \(got)\twant: \(want)\n"
            }
        }
    }
    shutdown()
    rereader?.shutdown()
    if options.engine == "rapidocr" {
        // Let the worker processes exit so their peak memory is counted below.
        try? await Task.sleep(for: .seconds(2))
    }
}
let wall = Date().timeIntervalSince(started)

func percent(_ count: Int?, _ total: Int) -> String {
    String(format: "%5.1f%%", 100 * Double(count ?? 0) / Double(max(total, 1)))
}
let targets: [Field: (String, String)] = [.date: ("≥ 95%", "≥ 98%"), .total: ("≥ 90%", "≥ 97%"), .vendor: ("≥ 80%", "≥ 90%"), .address: ("—", "—")]
let n = samples.count
print("Receipts: \(n) in \(options.folder)")
if options.engine == "rapidocr" {
    print("OCR: RapidOCR (rapidocr-onnxruntime 1.4.4, PP-OCRv4 on ONNX Runtime), \(options.workers) worker process(es), \(rapidConfiguration.threadsPerWorker) thread(s) each; models: \(workerModels.withLock { $0.isEmpty ? "no worker started (all read from the cache)" : $0.sorted().joined(separator: ", ") })")
} else {
    print("OCR: tesseract 5.3 (eng), PSM \(options.psm.rawValue), preparation: \(options.configurationKey), \(options.workers) worker(s)")
}
print("")
print("| Field   | From the image | Target | From perfect text | Target |")
print("|---------|---------------:|-------:|------------------:|-------:|")
for field in [Field.date, .total, .vendor, .address] {
    let image = options.textOnly ? "     —" : percent(imageScores[field], n)
    print("| \(field.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) | \(image.padding(toLength: 14, withPad: " ", startingAt: 0)) | \(targets[field]!.0.padding(toLength: 6, withPad: " ", startingAt: 0)) | \(percent(textScores[field], n).padding(toLength: 17, withPad: " ", startingAt: 0)) | \(targets[field]!.1.padding(toLength: 6, withPad: " ", startingAt: 0)) |")
}
if !options.textOnly {
    let fieldMean = Field.allCases.map { Double(imageScores[$0] ?? 0) }.reduce(0, +) / Double(4 * n)
    let textMean = Field.allCases.map { Double(textScores[$0] ?? 0) }.reduce(0, +) / Double(4 * n)
    print(String(format: "| mean of 4 | %13.1f%% |        | %16.1f%% |        |", 100 * fieldMean, 100 * textMean))
    print("")
    if seconds.isEmpty {
        print("Seconds per receipt: all \(n) read from the OCR cache (run without --cache for timings).")
    } else {
        print(String(format: "Seconds per receipt (OCR + extraction, %d freshly read): p50 %.2f s, p95 %.2f s, max %.2f s; wall %.0f s with %d worker(s)",
                     seconds.count, percentile(seconds, 0.5), percentile(seconds, 0.95), seconds.max() ?? 0, wall, options.workers))
    }
    if options.reread {
        print(String(format: "Second reading (tesseract, doubtful header lines): %d receipts read again, p50 %.2f s, p95 %.2f s, max %.2f s a receipt",
                     secondSeconds.count, percentile(secondSeconds, 0.5), percentile(secondSeconds, 0.95), secondSeconds.max() ?? 0))
    }
    print(String(format: "Peak memory (max RSS of the process): %.0f MiB; unreadable images: %d; mean word confidence %.2f",
                 peakMemoryMiB(), failures, meanConfidence.isEmpty ? 0 : meanConfidence.reduce(0, +) / Double(meanConfidence.count)))
    let children = childrenPeakMemoryMiB()
    if children > 0 { print(String(format: "Peak memory of one worker process (max RSS of the children): %.0f MiB", children)) }
}

// Both parts of the stores, and the vendor's mean per store.
func partRow(_ label: String, _ right: [String: Set<Field>], _ part: String) -> String? {
    let chosen = samples.filter { part == "all" || StoreSplit.part(vendor: $0.labels.vendor) == part }
    guard !chosen.isEmpty else { return nil }
    func share(_ field: Field) -> Double {
        Double(chosen.filter { right[$0.name]?.contains(field) == true }.count) / Double(chosen.count)
    }
    var stores: [String: (right: Int, count: Int)] = [:]
    for sample in chosen {
        let key = StoreSplit.store(sample.labels)
        let ok = right[sample.name]?.contains(.vendor) == true
        stores[key, default: (0, 0)] = (stores[key, default: (0, 0)].right + (ok ? 1 : 0), stores[key, default: (0, 0)].count + 1)
    }
    let perStore = stores.values.map { Double($0.right) / Double($0.count) }.reduce(0, +) / Double(stores.count)
    let fields = [Field.date, .total, .vendor, .address].map(share)
    let mean = fields.reduce(0, +) / 4
    let shares = (fields + [mean, perStore]).map { String(format: "%.1f%%", 100 * $0) }.joined(separator: " | ")
    return "| \(label) | \(part) | \(chosen.count) | \(stores.count) | \(shares) |"
}
print("")
print("| From | Part | Receipts | Stores | date | total | vendor | address | mean of 4 | vendor, mean per store |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for part in ["all", "working", "held-out"] {
    if !options.textOnly, let row = partRow("image", imageRight, part) { print(row) }
}
for part in ["all", "working", "held-out"] {
    if let row = partRow("text", textRight, part) { print(row) }
}

if let path = options.misses { try? missLog.write(toFile: path, atomically: true, encoding: .utf8) }
if let path = options.readings { try? readingLog.write(toFile: path, atomically: true, encoding: .utf8) }
