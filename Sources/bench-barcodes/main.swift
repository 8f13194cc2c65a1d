// Accuracy benchmark: Nestory's barcode reader beside `zbarimg` on a folder of labelled photos.
//
// Layout (ZXing's blackbox layout): one folder per format (ean13, ean8, upca, upce, code128, qrcode), and
// per image `NAME.png` (or .jpg) with the expected text in `NAME.txt`. Product codes are compared after GTIN
// normalisation (UPC-A as 12 digits, UPC-E as 8, EAN-13 as 13 all become one key); other codes exactly.
// An image counts as decoded when one of the codes a decoder returned is the expected one (some photos
// show two real codes, e.g. a book's ISBN and its price code), as a wrong read when codes were returned
// but none is the expected one, and as a miss when nothing was returned.
//
// With `--manifest`, DIR is a generated corpus (scripts/barcode_corpus.py): pictures listed in DIR/manifest.jsonl
// with the expected code and the other codes really in the picture; any code returned that is in neither is a
// wrong read, and the tables are per format and per degradation.
//
// Time is measured against a reference in the same run: the same reader with the agreement rule from before issue 22
// (any two passes agreeing make a read sure; the time target is "not worse than" it), each photo read by both,
// in turns (`--no-reference` leaves it out).
//
// Usage: bench-barcodes [DIR] [--manifest] [--no-zbarimg] [--all-passes] [--passes a,b,c] [--keep-low] [--verbose] [--slowest N] [--density N]
//        [--sequential] (every pass on one thread) [--agreement RULE] [--no-reference]
//        [--stages] (where the time goes, stage by stage, beside the reference; clearest with --sequential)
import Foundation
import NestoryChildProcess
import NestoryBarcodes
import NestoryBarcodesLive
import NestoryDomain

let folders: [(folder: String, label: String, format: BarcodeFormat)] = [
    ("ean13", "EAN-13", .ean13), ("ean8", "EAN-8", .ean8), ("upca", "UPC-A", .upcA),
    ("upce", "UPC-E", .upcE), ("code128", "Code 128", .code128), ("qrcode", "QR Code", .qr),
]

var arguments = Array(CommandLine.arguments.dropFirst())
@MainActor func flag(_ name: String) -> Bool {
    guard let index = arguments.firstIndex(of: name) else { return false }
    arguments.remove(at: index)
    return true
}
@MainActor func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    let value = arguments[index + 1]
    arguments.removeSubrange(index...index + 1)
    return value
}
let runZbarimg = !flag("--no-zbarimg")
let generated = flag("--manifest")
let verbose = flag("--verbose")
/// Every image's reads, with the passes that made them and the time (for finding where time goes).
let trace = flag("--trace")
let stages = flag("--stages")
let slowest = option("--slowest").flatMap(Int.init) ?? 0
let runReference = !flag("--no-reference")
var options = BarcodeReader.Options()
if flag("--all-passes") { options.stopWhenSure = false }
if flag("--keep-low") { options.dropLowConfidence = false }
if flag("--sequential") { options.parallelPasses = false }
if stages { options.timings = BarcodeTimings() }
if let name = option("--agreement") {
    guard let agreement = BarcodeReader.Agreement(rawValue: name) else {
        FileHandle.standardError.write(Data("Unknown agreement \(name); known: \(BarcodeReader.Agreement.allCases.map(\.rawValue).joined(separator: ", "))\n".utf8))
        exit(2)
    }
    options.agreement = agreement
}
if let density = option("--density").flatMap(Int.init) { options.scanDensity = density }
if let lines = option("--strong-scan-lines").flatMap(Int.init) { options.strongScanLines = lines }
if let list = option("--passes") {
    options.passes = list.split(separator: ",").map { name in
        guard let pass = BarcodeReader.Pass(rawValue: String(name)) else {
            FileHandle.standardError.write(Data("Unknown pass \(name); known: \(BarcodeReader.Pass.allCases.map(\.rawValue).joined(separator: ", "))\n".utf8))
            exit(2)
        }
        return pass
    }
}
let dataDirectory = URL(fileURLWithPath: arguments.first ?? "../shared/datasets/barcodes-zxing-dev")

struct Sample {
    let url: URL
    let format: BarcodeFormat
    let expected: String
    /// The other codes in the picture (generated corpus only): reading one is not a wrong read.
    var others: [(format: BarcodeFormat, text: String)] = []
    /// How the picture was degraded (generated corpus only).
    var degradation: String? = nil
}

/// One line of a generated corpus's manifest.jsonl.
struct ManifestEntry: Decodable {
    struct Other: Decodable { let format: String; let text: String }
    let file: String
    let format: String
    let text: String
    let degradation: String
    let others: [Other]
}

var samples: [Sample] = []
if generated {
    let manifest = dataDirectory.appendingPathComponent("manifest.jsonl")
    guard let content = try? String(contentsOf: manifest, encoding: .utf8) else {
        FileHandle.standardError.write(Data("No manifest at \(manifest.path) (make it with scripts/barcode_corpus.py).\n".utf8))
        exit(1)
    }
    for line in content.split(separator: "\n") where !line.isEmpty {
        guard let entry = try? JSONDecoder().decode(ManifestEntry.self, from: Data(line.utf8)), let format = BarcodeFormat(rawValue: entry.format) else {
            FileHandle.standardError.write(Data("Bad manifest line: \(line)\n".utf8))
            exit(1)
        }
        samples.append(Sample(url: dataDirectory.appendingPathComponent(entry.file), format: format, expected: entry.text,
                              others: entry.others.compactMap { other in BarcodeFormat(rawValue: other.format).map { ($0, other.text) } },
                              degradation: entry.degradation))
    }
}
for entry in folders where !generated {
    let folder = dataDirectory.appendingPathComponent(entry.folder)
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { continue }
    for name in names.sorted() where name.hasSuffix(".png") || name.hasSuffix(".jpg") || name.hasSuffix(".jpeg") {
        let base = String(name[..<name.lastIndex(of: ".")!])
        let label = folder.appendingPathComponent(base + ".txt")
        guard let expected = try? String(contentsOf: label, encoding: .utf8) else { continue }
        samples.append(Sample(url: folder.appendingPathComponent(name), format: entry.format, expected: expected))
    }
}
guard !samples.isEmpty else {
    FileHandle.standardError.write(Data("No labelled images under \(dataDirectory.path) (folders: \(folders.map(\.folder).joined(separator: ", "))).\n".utf8))
    exit(1)
}

enum Outcome { case decoded, wrong, missed }

/// Scores every code a decoder returned for one image. In a generated corpus every code in the picture is known,
/// so any code returned that is not one of them makes the image a wrong read, even beside the right one.
func score(_ sample: Sample, _ codes: [(format: BarcodeFormat?, text: String)]) -> Outcome {
    if codes.isEmpty { return .missed }
    if generated {
        let known = [(sample.format, sample.expected)] + sample.others
        if codes.contains(where: { code in !known.contains { same(expectedFormat: $0.0, expected: $0.1, format: code.format, text: code.text) } }) { return .wrong }
        return codes.contains { matches(sample, format: $0.format, text: $0.text) } ? .decoded : .missed
    }
    return codes.contains { matches(sample, format: $0.format, text: $0.text) } ? .decoded : .wrong
}

/// Compares one code with the label: product codes by GTIN key, anything else exactly.
func matches(_ sample: Sample, format: BarcodeFormat?, text: String) -> Bool {
    same(expectedFormat: sample.format, expected: sample.expected, format: format, text: text)
}

func same(expectedFormat: BarcodeFormat, expected: String, format: BarcodeFormat?, text: String) -> Bool {
    if let gtinFormat = expectedFormat.gtinFormat, let expected = GTIN(expected, format: gtinFormat) {
        let hint = format?.gtinFormat ?? (text.count == 8 ? gtinFormat : nil)
        guard let actual = GTIN(text, format: hint) else { return false }
        return actual.key == expected.key
    }
    return text == expected
}

struct Tally {
    var total = 0, decoded = 0, wrong = 0
    /// Images with no sure read but an uncertain one (the app asks the person to check its digits), and of those
    /// the ones whose uncertain read was wrong.
    var asked = 0, askedWrong = 0
    mutating func add(_ outcome: Outcome, asked: Outcome? = nil) {
        total += 1
        if outcome == .decoded { decoded += 1 }
        if outcome == .wrong { wrong += 1 }
        if let asked, asked != .missed { self.asked += 1 }
        if asked == .wrong { askedWrong += 1 }
    }
}

// MARK: Nestory

let reader = BarcodeReader(options: options)
/// The reference: the same reader and passes with the agreement rule from before issue 22 (none when that is the rule measured).
let referenceRule = BarcodeReader.Agreement.anyTwoPasses
let reference: BarcodeReader? = runReference && options.agreement != referenceRule ? {
    var referenceOptions = options
    referenceOptions.agreement = referenceRule
    referenceOptions.timings = stages ? BarcodeTimings() : nil
    return BarcodeReader(options: referenceOptions)
}() : nil
var referenceTally = Tally()
var referenceTimes: [Double] = [], referenceCPUTimes: [Double] = []
/// What this reader returned for a photo, in the order the report lists them.
let returnedKinds = ["a sure read", "only uncertain reads", "nothing read"]
/// Both readers' time by what this reader returned (`returnedKinds`): where the difference goes.
var timeByOutcome: [String: (photos: Int, ours: Double, reference: Double)] = [:]
var ours: [BarcodeFormat: Tally] = [:]
var oursByDegradation: [String: Tally] = [:]
var ourTimes: [Double] = []
var ourCPUTimes: [Double] = []
/// CPU time of the whole process (libvips' worker threads included), which a busy machine does not inflate.
func processCPUMilliseconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) * 1000 + Double(spec.tv_nsec) / 1e6
}
var passCounts: [String: Int] = [:]
var timed: [(ms: Double, name: String, outcome: Outcome)] = []
var confidenceOutcomes: [String: Int] = [:]
let images = samples.map { try? Data(contentsOf: $0.url) }
/// The reads of `data` by `reader`, with the wall and CPU milliseconds they took.
func timedDecode(_ reader: BarcodeReader, _ data: Data) -> (results: [DecodedBarcode]?, ms: Double, cpu: Double) {
    let start = DispatchTime.now().uptimeNanoseconds
    let cpuStart = processCPUMilliseconds()
    let results = try? reader.decode(imageData: data)
    return (results, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6, processCPUMilliseconds() - cpuStart)
}
// One warm-up decode so libvips' start-up is not billed to the first image.
if let first = images.compactMap({ $0 }).first { _ = try? reader.decode(imageData: first) }
options.timings?.reset()
for (index, (sample, data)) in zip(samples, images).enumerated() {
    var outcome = Outcome.missed
    var asked: Outcome?
    var best: DecodedBarcode?
    if let data {
        // The reference reads every photo too, before this reader on every other one, so neither has the warmer caches.
        let referenceFirst = index % 2 == 1
        var referenceMs: Double?
        func readByReference() {
            guard let reference else { return }
            let read = timedDecode(reference, data)
            referenceMs = read.ms
            referenceTimes.append(read.ms)
            referenceCPUTimes.append(read.cpu)
            referenceTally.add(score(sample, (read.results ?? []).map { ($0.format, $0.text) }))
        }
        if referenceFirst { readByReference() }
        let read = timedDecode(reader, data)
        if !referenceFirst { readByReference() }
        let results = read.results
        ourCPUTimes.append(read.cpu)
        ourTimes.append(read.ms)
        best = results?.first { matches(sample, format: $0.format, text: $0.text) } ?? results?.first
        if trace {
            print(String(format: "trace %@ %.1f ms: ", sample.url.lastPathComponent, ourTimes.last ?? 0)
                + (results ?? []).map { "\($0.format.rawValue) \($0.text.prefix(20)) [\($0.confidence.rawValue) \($0.passes.joined(separator: "+"))]" + ($0.bounds.map { " at \($0.x),\($0.y) \($0.width)×\($0.height)" } ?? "") }.joined(separator: "; "))
        }
        // Decoded and wrong count the sure reads; an uncertain one is shown to be checked (the old rule, any two
        // passes, reported its medium reads as they were: all count as sure there).
        let uncertain: (DecodedBarcode) -> Bool = { options.agreement != .anyTwoPasses && $0.isUncertain }
        outcome = score(sample, (results ?? []).filter { !uncertain($0) }.map { ($0.format, $0.text) })
        let unsure = (results ?? []).filter(uncertain)
        if outcome == .missed, !unsure.isEmpty { asked = score(sample, unsure.map { ($0.format, $0.text) }) }
        if let referenceMs {
            let returned = returnedKinds[(results ?? []).contains { !uncertain($0) } ? 0 : unsure.isEmpty ? 2 : 1]
            let sums = timeByOutcome[returned] ?? (0, 0, 0)
            timeByOutcome[returned] = (sums.photos + 1, sums.ours + read.ms, sums.reference + referenceMs)
        }
    }
    ours[sample.format, default: Tally()].add(outcome, asked: asked)
    if let degradation = sample.degradation { oursByDegradation[degradation, default: Tally()].add(outcome, asked: asked) }
    if let ms = ourTimes.last, data != nil { timed.append((ms, sample.url.lastPathComponent, outcome)) }
    if let best {
        passCounts[best.pass, default: 0] += 1
        // On a generated corpus the best read can be another code really in the picture (the expected one missed).
        let kind = outcome == .decoded || asked == .decoded ? "right" : outcome == .wrong || asked == .wrong ? "wrong" : "another code in the picture"
        confidenceOutcomes["\(best.confidence.rawValue) \(kind)", default: 0] += 1
    }
    if verbose, outcome != .decoded || asked != nil {
        let expectedText = sample.expected.replacingOccurrences(of: "\n", with: "⏎")
        print("ours  \(outcome == .wrong ? "WRONG" : asked == .wrong ? "ASKED-WRONG" : asked == .decoded ? "asked-right" : "miss ") \(sample.url.lastPathComponent) expected \(expectedText) got \(best.map { "\($0.format.rawValue) \($0.text) [\($0.confidence.rawValue), \($0.passes.joined(separator: "+"))]" } ?? "-")")
    }
}

if slowest > 0 {
    print("Slowest images:")
    for entry in timed.sorted(by: { $0.ms > $1.ms }).prefix(slowest) {
        print(String(format: "  %7.1f ms  %@  %@", entry.ms, entry.name, "\(entry.outcome)"))
    }
}

// MARK: zbarimg

struct ZbarimgSymbol { let type: String; let text: String }

/// Parses `zbarimg --xml`: each symbol's type and data (CDATA, or base64 for binary data).
func parseZbarimgXML(_ xml: String) -> [ZbarimgSymbol] {
    var symbols: [ZbarimgSymbol] = []
    var rest = Substring(xml)
    while let start = rest.range(of: "<symbol type='") {
        rest = rest[start.upperBound...]
        guard let typeEnd = rest.firstIndex(of: "'") else { break }
        let type = String(rest[..<typeEnd])
        guard let dataStart = rest.range(of: "<data"), let cdata = rest.range(of: "<![CDATA[", range: dataStart.upperBound..<rest.endIndex),
              let cdataEnd = rest.range(of: "]]></data>", range: cdata.upperBound..<rest.endIndex)
        else { break }
        var text = String(rest[cdata.upperBound..<cdataEnd.lowerBound])
        if rest[dataStart.upperBound..<cdata.lowerBound].contains("base64"), let bytes = Data(base64Encoded: text.filter { !$0.isWhitespace }) {
            text = String(decoding: bytes, as: UTF8.self)
        }
        symbols.append(ZbarimgSymbol(type: type, text: text))
        rest = rest[cdataEnd.upperBound...]
    }
    return symbols
}

func zbarimgFormat(_ type: String) -> BarcodeFormat? {
    switch type {
    case "EAN-13", "ISBN-13": return .ean13
    case "EAN-8": return .ean8
    case "UPC-A": return .upcA
    case "UPC-E": return .upcE
    case "CODE-128": return .code128
    case "QR-Code": return .qr
    default: return nil
    }
}

var theirs: [BarcodeFormat: Tally] = [:]
var theirsByDegradation: [String: Tally] = [:]
var theirTimes: [Double] = []
let zbarimgPath = ["/usr/bin/zbarimg", "/usr/local/bin/zbarimg"].first { FileManager.default.isExecutableFile(atPath: $0) }
if runZbarimg, let zbarimgPath {
    for sample in samples {
        let start = DispatchTime.now().uptimeNanoseconds
        let finished = try? ChildProcess.run(zbarimgPath, ["-q", "--xml", sample.url.path])
        let symbols = finished.map { parseZbarimgXML($0.outputText) } ?? []
        theirTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        let first = symbols.first
        let outcome = score(sample, symbols.map { (zbarimgFormat($0.type), $0.text) })
        theirs[sample.format, default: Tally()].add(outcome)
        if let degradation = sample.degradation { theirsByDegradation[degradation, default: Tally()].add(outcome) }
        if verbose, outcome == .wrong {
            print("zbarimg WRONG \(sample.url.lastPathComponent) expected \(sample.expected) got \(first.map { "\($0.type) \($0.text)" } ?? "-")")
        }
    }
}

// MARK: Report

func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
}

func percent(_ part: Int, _ whole: Int) -> String {
    whole == 0 ? "—" : String(format: "%.1f%%", Double(part) * 100 / Double(whole))
}
func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(max(1, values.count)) }
/// "p50 / p95 / mean" of some milliseconds.
func spread(_ values: [Double]) -> String { "\(percentile(values, 0.5)) / \(percentile(values, 0.95)) / \(String(format: "%.1f", mean(values)))" }
func percentile(_ values: [Double], _ p: Double) -> String {
    guard !values.isEmpty else { return "—" }
    let sorted = values.sorted()
    let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))
    return String(format: "%.1f", sorted[index])
}
func pad(_ text: String, _ width: Int) -> String { text.count >= width ? text : text + String(repeating: " ", count: width - text.count) }
func lpad(_ text: String, _ width: Int) -> String { text.count >= width ? text : String(repeating: " ", count: width - text.count) + text }

let haveZbarimg = !theirs.isEmpty
print("Barcodes: \(samples.count) images in \(dataDirectory.path)")
print("")
var header = "| \(pad("Format", 9)) | \(lpad("Images", 6)) | \(lpad("Nestory decoded", 15)) | \(lpad("Nestory wrong", 13)) | \(lpad("uncertain (wrong)", 17)) |"
var rule = "|-\(String(repeating: "-", count: 9))-|-\(String(repeating: "-", count: 6))-|-\(String(repeating: "-", count: 15))-|-\(String(repeating: "-", count: 13))-|-\(String(repeating: "-", count: 17))-|"
if haveZbarimg {
    header += " \(lpad("zbarimg decoded", 15)) | \(lpad("zbarimg wrong", 13)) |"
    rule += "-\(String(repeating: "-", count: 15))-|-\(String(repeating: "-", count: 13))-|"
}
print(header)
print(rule)
func row(_ label: String, _ a: Tally, _ b: Tally) {
    var line = "| \(pad(label, 9)) | \(lpad(String(a.total), 6)) | \(lpad("\(a.decoded) (\(percent(a.decoded, a.total)))", 15)) | \(lpad("\(a.wrong) (\(percent(a.wrong, a.total)))", 13)) | \(lpad("\(a.asked) (\(a.askedWrong))", 17)) |"
    if haveZbarimg {
        line += " \(lpad("\(b.decoded) (\(percent(b.decoded, b.total)))", 15)) | \(lpad("\(b.wrong) (\(percent(b.wrong, b.total)))", 13)) |"
    }
    print(line)
}
var ourTotal = Tally(), theirTotal = Tally()
for entry in folders {
    guard let a = ours[entry.format] else { continue }
    let b = theirs[entry.format] ?? Tally()
    row(entry.label, a, b)
    ourTotal.total += a.total; ourTotal.decoded += a.decoded; ourTotal.wrong += a.wrong; ourTotal.asked += a.asked; ourTotal.askedWrong += a.askedWrong
    theirTotal.total += b.total; theirTotal.decoded += b.decoded; theirTotal.wrong += b.wrong
}
row("**All**", ourTotal, theirTotal)
print("")
if generated {
    print(header.replacingOccurrences(of: "| Format    |", with: "| Degradation |"))
    print(rule.replacingOccurrences(of: "|-----------|", with: "|-------------|"))
    // The order the generator cycles through.
    let order = ["clean", "blur", "noise", "jpeg", "lowres", "perspective", "rotation", "light", "glare", "occlusion", "second-code", "text", "mixed"]
    for name in oursByDegradation.keys.sorted(by: { (order.firstIndex(of: $0) ?? 99, $0) < (order.firstIndex(of: $1) ?? 99, $1) }) {
        row(pad(name, 11), oursByDegradation[name]!, theirsByDegradation[name] ?? Tally())
    }
    print("")
}
print("ms per image (p50 / p95 / mean): Nestory \(spread(ourTimes))"
    + (haveZbarimg ? "; zbarimg \(spread(theirTimes)) (a process per image, start-up included)" : ""))
print("Nestory CPU ms per image, this process only (zxing's worker process not counted; the wall time includes it) (p50 / p95 / mean): \(spread(ourCPUTimes)); load average at the end: \(loadAverage())")
if reference != nil, !referenceTimes.isEmpty {
    print("Reference in the same run, each photo read by both in turns: the agreement rule \(referenceRule.rawValue) (before issue 22), decoded \(referenceTally.decoded) (\(percent(referenceTally.decoded, referenceTally.total))), wrong \(referenceTally.wrong); ms per image (p50 / p95 / mean) \(spread(referenceTimes)), CPU mean \(String(format: "%.1f", mean(referenceCPUTimes)))")
    print(String(format: "Nestory against the reference, mean time per image: %.2f× (CPU, this process: %.2f×); the target is at most 1.00×", mean(ourTimes) / mean(referenceTimes), mean(ourCPUTimes) / mean(referenceCPUTimes)))
    print("Where the difference goes, by what Nestory returned (photos, ms of the mean per image): " + returnedKinds.compactMap { name in
        timeByOutcome[name].map { String(format: "%@ %d, %+.2f", name, $0.photos, ($0.ours - $0.reference) / Double(max(1, referenceTimes.count))) }
    }.joined(separator: "; "))
}
print("Uncertain: images with no sure read but an uncertain one, which the app shows to be checked (of them, wrong); agreement rule \(options.agreement.rawValue).")
print("Nestory: image bytes to results (libvips load included), \(options.parallelPasses ? "passes after the second on two threads" : "one thread"), release build; passes \(options.passes.map(\.rawValue).joined(separator: ", "))\(options.stopWhenSure ? " (stopping when sure)" : " (all)").")
print("First code found by pass: " + passCounts.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
print("By confidence: " + confidenceOutcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
if let timings = options.timings {
    // Stage by stage, summed over the photos (passes on two threads add up their own times), beside the reference.
    let theirs = Dictionary(uniqueKeysWithValues: (reference?.options.timings?.stages ?? []).map { ($0.name, $0) })
    let mine = timings.stages
    let names = mine.map(\.name) + theirs.keys.filter { name in !mine.contains { $0.name == name } }.sorted()
    let photos = Double(max(1, ourTimes.count))
    print("")
    print("Where the time goes, stage by stage (summed over the photos; a pass's stage is its decoder's call, its picture is under \"\(BarcodeTimings.Name.prepare)\"):")
    print("")
    print("| Stage | calls | ms | ms per photo | reference calls | reference ms | difference, ms per photo |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    let row = { (name: String, mineCalls: Int?, mineMs: Double?, theirCalls: Int?, theirMs: Double?) in
        let cell = { (value: Double?, format: String) in value.map { String(format: format, $0) } ?? "" }
        print("| \(name) | \(mineCalls.map(String.init) ?? "") | \(cell(mineMs, "%.0f")) | \(cell(mineMs.map { $0 / photos }, "%.2f")) | \(theirCalls.map(String.init) ?? "") | \(cell(theirMs, "%.0f")) | \(reference == nil ? "" : cell(((mineMs ?? 0) - (theirMs ?? 0)) / photos, "%+.2f")) |")
    }
    for name in names {
        let ours = mine.first { $0.name == name }
        row(name, ours?.calls, ours?.milliseconds, theirs[name]?.calls, theirs[name]?.milliseconds)
    }
    let total = mine.reduce(0) { $0 + $1.milliseconds }, theirTotal = theirs.values.reduce(0) { $0 + $1.milliseconds }
    row("**all stages**", nil, total, nil, reference == nil ? nil : theirTotal)
}
