import Foundation
import Synchronization
import NestoryBarcodes
import NestoryDomain

/// Reads EAN-13, EAN-8, UPC-A, UPC-E, Code 128 and QR codes from photos and camera frames with two decoders:
/// zxing-cpp (in its worker process, see ``ZXingScanner``) and zbar.
///
/// The picture is read as it is first, by each decoder, then by further zbar passes that help blurred, tiny, noisy or unevenly lit
/// photos (see ``Pass``); reads are pooled across passes. A product code must have a valid check digit. A 1D
/// read is sure (high confidence) once something independent has read the same digits (see ``Agreement``): the
/// other decoder (each zbar read is put to zxing on the pixels around it, and zxing's to zbar), or for EAN-13, UPC-A
/// and Code 128 zbar at a second scale; until then the passes go on, and a read nothing confirms is reported as
/// uncertain (``DecodedBarcode/isUncertain``: the app asks the person to check the digits). Where passes disagree
/// about one spot, the read more passes agree on wins (a tie reports neither), and it is sure only if both decoders
/// read it. QR codes carry their own error correction and need no second pass. zbar confirms zxing's 1D reads on the
/// part of the picture around them first, and scans the whole picture only if that leaves anything unsettled; the
/// passes after that look only where the reads still waiting lie, when they lie in part of the picture. Which pass found a code, how many agreed and a ``BarcodeConfidence`` come with
/// each result. Each pass has its own zbar scanner, so a call never depends on an earlier one. Safe to call
/// from several threads at once.
public final class BarcodeReader: BarcodeDecoding, Sendable {
    /// What the reader looks for and how hard it tries.
    public struct Options: Sendable {
        /// The symbologies to look for.
        public var formats: Set<BarcodeFormat>
        /// The passes to run, in order, while nothing sure has been found.
        public var passes: [Pass]
        /// Stop once every read has survived a second pass uncontradicted (off: run every pass; for measuring).
        public var stopWhenSure: Bool
        /// Drop reads of low confidence (one scan line of one pass) that no other pass confirmed: on the benchmark
        /// they were as often wrong as right.
        public var dropLowConfidence: Bool
        /// A 1D read that at least this many of zbar's scan lines agree on counts as high confidence without a
        /// second pass. Off by default (`.max`): zbar misreads were measured with more than 24 agreeing lines.
        public var strongScanLines: Int
        /// zbar scans every `scanDensity`-th row and column (1: all of them). Every second line, with zxing
        /// first, decoded as many codes as every line and saved about a third of the time on the benchmark.
        public var scanDensity: Int
        /// The zxing worker program (`nestory-zxing`); nil: zxing passes find nothing and zbar works alone.
        public var zxingWorker: String?
        /// Run the passes after the first two on two threads, each thread starting the next pass not yet started
        /// (the same reads as one at a time; less waiting for hard photos and photos with no code, the same work).
        public var parallelPasses: Bool
        /// What makes a 1D read sure (high confidence); anything less is reported as uncertain.
        public var agreement: Agreement
        /// Where the time goes, stage by stage (for benchmarks; nil: not measured).
        public var timings: BarcodeTimings?

        public init(formats: Set<BarcodeFormat> = Set(BarcodeFormat.allCases), passes: [Pass] = Pass.standard, stopWhenSure: Bool = true, dropLowConfidence: Bool = true, strongScanLines: Int = .max, scanDensity: Int = 2, zxingWorker: String? = ZXingScanner.workerPath, parallelPasses: Bool = true, agreement: Agreement = .otherDecoderOrScale, timings: BarcodeTimings? = nil) {
            self.timings = timings
            self.parallelPasses = parallelPasses
            self.agreement = agreement
            self.strongScanLines = strongScanLines
            self.scanDensity = max(1, scanDensity)
            self.zxingWorker = zxingWorker
            self.formats = formats
            self.passes = passes
            self.stopWhenSure = stopWhenSure
            self.dropLowConfidence = dropLowConfidence
        }
    }

    /// What a 1D read (a product code, Code 128) needs to be sure. A check digit passes for one wrong read in ten, and
    /// a decoder that misreads a blurred or distorted code tends to misread it the same way on the same pixels:
    /// measured on the generated corpus (scripts/barcode_corpus.py), two passes of one decoder at one scale agreed
    /// on wrong digits (a blurred EAN-13 read as a UPC-E by zbar on the picture and its sharpened copy).
    public enum Agreement: String, Sendable, CaseIterable {
        /// Any two passes (the reader before the generated corpus; for measuring).
        case anyTwoPasses = "any-two-passes"
        /// The other decoder, or the same decoder at another scale (the picture halved or doubled), reading the
        /// same digits.
        case otherDecoderOrScale = "other-decoder-or-scale"
        /// The other decoder reading the same digits.
        case otherDecoder = "other-decoder"
    }

    /// One way of preparing the picture for the scanner.
    public enum Pass: String, Sendable, Hashable, CaseIterable {
        /// The picture as it is.
        case original
        /// Halved (averaging 2 × 2 blocks): large photos, noise, slight blur.
        case downscaled2x = "downscaled-2x"
        /// Divided by three: very large or blurred photos.
        case downscaled3x = "downscaled-3x"
        /// Doubled: codes with bars one or two pixels wide.
        case upscaled2x = "upscaled-2x"
        /// Levels stretched, then an unsharp mask: washed-out or soft photos.
        case sharpened
        /// Tripled: very small codes.
        case upscaled3x = "upscaled-3x"
        /// Doubled, then sharpened: small and soft codes.
        case upscaledSharpened = "upscaled-sharpened"
        /// A 3 × 3 box blur: sensor noise and JPEG speckle.
        case smoothed
        /// Black and white against the local mean: glare and shadows across the code.
        case binarized
        /// Doubled, then black and white against the local mean.
        case upscaledBinarized = "upscaled-binarized"
        /// Light bars on a dark ground (printed on dark plastic, or a screen in dark mode) turned dark on light.
        case inverted
        /// Inverted and doubled.
        case upscaledInverted = "upscaled-inverted"
        /// Inverted, then black and white against the local mean.
        case binarizedInverted = "binarized-inverted"
        /// Histogram-equalised: glare and uneven light.
        case equalized
        /// A quarter turn (zbar scans rows and columns already; it found 2 extra codes alone on the benchmark, none
        /// once the other passes ran, so it is not in the standard order).
        case rotated90 = "rotated-90"
        /// zxing-cpp instead of zbar, on the picture as it is: a second, independent decoder.
        case zxing
        /// zxing-cpp trying harder: its own rotated and downscaled tries.
        case zxingHarder = "zxing-harder"
        /// zxing-cpp on the part of a zbar pass's picture where zbar read a 1D code: the independent decoder's word on
        /// that read (run by the zbar passes themselves, not listed in ``standard``).
        case zxingCrossCheck = "zxing-cross-check"
        /// zbar on the part of the picture where zxing trying harder read a 1D code (as it is, doubled, and doubled
        /// then binarized; run by that pass itself).
        case zbarCrossCheck = "zbar-cross-check"

        /// Whether the pass is read by zxing-cpp rather than zbar.
        var usesZXing: Bool { self == .zxing || self == .zxingHarder || self == .zxingCrossCheck }

        /// Whether the pass's picture is already black and white against the local mean (binarizing it again changes
        /// next to nothing).
        var isBinarized: Bool { self == .binarized || self == .upscaledBinarized || self == .binarizedInverted }

        /// The scale a zbar pass reads the picture at, relative to the others (passes at one scale see the same pixels
        /// through different filters).
        var scale: Int {
            switch self {
            case .downscaled2x: return -2
            case .downscaled3x: return -3
            case .upscaled2x, .upscaledSharpened, .upscaledBinarized, .upscaledInverted: return 2
            case .upscaled3x: return 3
            default: return 1
            }
        }

        /// The order used unless told otherwise. zxing first: it reads two thirds of the benchmark's photos alone
        /// in about half of zbar's time, a QR code it reads needs nothing more, and zbar's full-size pass then
        /// confirms (or contradicts) its 1D reads as an independent decoder. zxing trying harder comes last, for
        /// what nothing else read: there it read one more benchmark photo and nothing wrong, while earlier in the
        /// order its single read of a photo settled on a wrong code before zbar's passes could read the right one.
        public static let standard: [Pass] = [.zxing, .original, .downscaled2x, .binarized, .inverted, .upscaledBinarized, .upscaled2x, .smoothed, .equalized, .binarizedInverted, .zxingHarder]
    }

    public let options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    /// A zbar scanner for one pass. zbar keeps half an EAN/UPC code it read until the other half turns up, on a
    /// later scan line or in a later picture, and offers no way to forget it: a scanner used for a second
    /// picture can finish a code with half of another photo's (on the benchmark it completed one photo's code with
    /// the previous photo's half). A fresh one per pass costs microseconds and makes every pass, and every
    /// call, independent of what was read before.
    private func zbar(_ lines: ZBarScanner.Lines = .both) -> ZBarScanner { ZBarScanner(formats: options.formats, density: options.scanDensity, lines: lines) }

    public func decode(imageData: Data, region: BarcodeRegion? = nil) throws(BarcodeReaderError) -> [DecodedBarcode] {
        let image = try options.timings.measure(BarcodeTimings.Name.load) { () throws(BarcodeReaderError) in try ImageLoader.loadGray(imageData) }
        return decode(image: image, region: region)
    }

    /// Every code found in a grayscale picture (a camera frame already in memory), optionally only inside `region`.
    public func decode(image: GrayImage, region: BarcodeRegion? = nil) -> [DecodedBarcode] {
        let cropped = region.flatMap { $0 == .whole ? nil : $0 }
        let base = cropped.map { image.cropped(to: $0) } ?? image
        let offset = cropped.map { region in
            (x: Int((region.x * Double(image.width)).rounded(.down)), y: Int((region.y * Double(image.height)).rounded(.down)))
        } ?? (x: 0, y: 0)
        guard base.width > 0, base.height > 0 else { return [] }

        // Big phone photos: the first pass sees every pixel; the others work on a copy at most about
        // `workingSize` pixels long, so a photo with no code costs tens of milliseconds, not seconds.
        let longSide = max(base.width, base.height)
        let shrink = longSide > Self.workingSize ? (longSide + Self.workingSize - 1) / Self.workingSize : 1
        // Made when a pass first needs them: the shrunk copy of a big photo, and the doubled picture (the passes
        // that start from it all read the same picture, `working` when there is one, else `base`, so one copy
        // serves them).
        let picture = Picture(base: base, shrink: shrink, offset: offset)
        var pool = CandidatePool(strongScanLines: options.strongScanLines, agreement: options.agreement)
        let head = options.passes.prefix(2)
        for pass in head {
            // zxing's 1D reads want zbar's word on them: first only around them (on the benchmark's photos about
            // half the picture, and it settled 164 of 166), on the lines that cross their bars (the same reads on
            // both benchmark sets as with every line, in 0.24–0.25 ms a photo instead of 0.39–0.43), then the whole
            // picture if anything is unsettled.
            if pass == .original, options.stopWhenSure, let area = pool.confirmationArea(width: base.width, height: base.height, origin: offset) {
                let found = options.timings.measure(BarcodeTimings.Name.aroundZXingReads) {
                    zbar(pool.confirmationLines).scan(base.cropped(x: area.x, y: area.y, width: area.width, height: area.height))
                }
                for symbol in found {
                    let points = symbol.points.map { (x: $0.x + area.x + offset.x, y: $0.y + area.y + offset.y) }
                    pool.add(symbol, pass: .original, points: points)
                }
                if pool.isSettled(minimum: pool.agreement == .anyTwoPasses ? .medium : .high) { return pool.results(dropLow: options.dropLowConfidence) }
            }
            if pool.take(run(pass, on: picture, crossChecked: { CrossChecked(pool) }), of: pass, stopWhenSure: options.stopWhenSure) {
                return pool.results(dropLow: options.dropLowConfidence)
            }
        }
        // The first two passes settle most photos. The rest, reached by hard photos and by photos with no code
        // (which run them all), run on two threads, each starting the next pass not yet started; their reads are
        // still taken in order, and no pass starts once they settle, so the result is the same as one at a time.
        let rest = Array(options.passes.dropFirst(head.count))
        guard !rest.isEmpty else { return pool.results(dropLow: options.dropLowConfidence) }
        // zbar decodes no UPC-E of number system 1: when the only reads waiting are such codes that zxing read, no
        // pass can confirm them (zxing's others read the same pixels), and they are reported uncertain now.
        if options.agreement != .anyTwoPasses, options.stopWhenSure {
            let waiting = pool.candidates.values.filter { $0.format != .qr && $0.confidence < .high }
            if !waiting.isEmpty, waiting.allSatisfy({ $0.format == .upcE && $0.text.hasPrefix("1") && $0.passes.contains(where: \.usesZXing) }) {
                return pool.results(dropLow: options.dropLowConfidence)
            }
        }
        // Reads the first two passes left waiting lie where they were read: the later passes, there to confirm or
        // contradict them, look only there (``CandidatePool/confirmationArea(width:height:origin:)``). A photo with
        // nothing read yet, or reads all over it, is searched whole.
        let later = options.agreement != .anyTwoPasses && options.stopWhenSure
            ? pool.confirmationArea(width: base.width, height: base.height, origin: offset).map(picture.focused(on:)) ?? picture
            : picture
        let schedule = Schedule(pool: pool, count: rest.count)
        let stopWhenSure = options.stopWhenSure
        let work: @Sendable (Int) -> Void = { _ in
            while let index = schedule.start() {
                // A read is put to the other decoder only if the passes before this one left it unconfirmed, as one pass at a time
                // would decide: so the threads wait for those passes here, and only when this pass read a 1D code.
                let outcome = self.run(rest[index], on: later, crossChecked: {
                    let (reads, settled) = schedule.pool(before: index)
                    return settled ? nil : CrossChecked(reads)
                })
                schedule.finish(index, outcome, passes: rest, stopWhenSure: stopWhenSure)
            }
        }
        if options.parallelPasses, rest.count > 1 {
            DispatchQueue.concurrentPerform(iterations: 2, execute: work)
        } else {
            work(0)
        }
        return schedule.pool(before: rest.count).reads.results(dropLow: options.dropLowConfidence)
    }

    /// The picture being read, with its shrunk and doubled copies, made once when a pass first needs them.
    final class Picture: Sendable {
        let base: GrayImage
        let shrink: Int
        let offset: (x: Int, y: Int)
        private let shrunk = Mutex<GrayImage?>(nil)
        private let doubledCopy = Mutex<GrayImage?>(nil)

        init(base: GrayImage, shrink: Int, offset: (x: Int, y: Int)) {
            self.base = base
            self.shrink = shrink
            self.offset = offset
        }

        /// The part `area` of the picture (in `base`'s pixels), read at the same scale: its corner is moved up and left
        /// to a multiple of twice `shrink`, so the shrunk and halved copies hold the same pixels as the whole picture's.
        func focused(on area: PixelBounds) -> Picture {
            let step = 2 * shrink
            let x = area.x / step * step, y = area.y / step * step
            let crop = base.cropped(x: x, y: y, width: area.x + area.width - x, height: area.y + area.height - y)
            return Picture(base: crop, shrink: shrink, offset: (x: offset.x + x, y: offset.y + y))
        }

        /// The copy at most ``BarcodeReader/workingSize`` pixels long (nil when `base` is small enough).
        var working: GrayImage? {
            guard shrink > 1 else { return nil }
            return shrunk.withLock { copy in
                if copy == nil { copy = base.downscaled(by: shrink) }
                return copy
            }
        }

        /// The working picture (`working` when there is one, else `base`) upscaled by 2, for the passes that start
        /// from it; a second thread wanting it waits for the first.
        var doubled: GrayImage {
            doubledCopy.withLock { copy in
                if copy == nil { copy = (working ?? base).upscaled(by: 2) }
                return copy!
            }
        }
    }

    /// What the pool already knows about its 1D reads, so a pass asks the other decoder only about reads that need it.
    struct CrossChecked: Sendable {
        /// The reads each decoder has made already.
        var byZXing: Set<String> = [], byZBar: Set<String> = []
        /// zbar's scales for each read a second zbar scale confirms (EAN-13, UPC-A, Code 128) with no rival at its spot.
        var zbarScales: [String: Set<Int>] = [:]
        /// The passes that have read the picture.
        var passesTaken: Set<Pass> = []

        init() {}

        init(_ pool: CandidatePool) {
            let linear = pool.candidates.filter { $0.value.format != .qr }
            byZXing = Set(linear.filter { $0.value.passes.contains(where: \.usesZXing) }.keys)
            byZBar = Set(linear.filter { $0.value.passes.contains { !$0.usesZXing } }.keys)
            passesTaken = pool.passesTaken
            guard pool.agreement == .otherDecoderOrScale else { return }
            for (key, candidate) in linear where CandidatePool.Candidate.secondScaleConfirms(candidate.format) {
                let rivals = linear.contains { $0.key != key && $0.value.gtin != nil && $0.value.overlaps(candidate) }
                if !rivals { zbarScales[key] = Set(candidate.passes.filter { !$0.usesZXing }.map(\.scale)) }
            }
        }

        /// Whether `pass`'s read of `key` wants the other decoder's word on it: not once that decoder has read it, nor when zbar
        /// read it at another scale (this read then confirms it; the other decoder's check, on a doubled picture's crop up to
        /// 70 ms, would add nothing).
        func wantsCheck(_ key: String, by pass: Pass) -> Bool {
            if pass.usesZXing { return !byZBar.contains(key) }
            if byZXing.contains(key) { return false }
            return !(zbarScales[key]?.contains { $0 != pass.scale } ?? false)
        }
    }

    /// The passes after the first two, shared by the threads that run them.
    private final class Schedule: @unchecked Sendable {
        // Everything below is read and written only while holding `condition`'s lock.
        private let condition = NSCondition()
        private var reads: CandidatePool
        private let count: Int
        private var next = 0
        /// Passes finished but not yet taken (a later pass can finish before an earlier one).
        private var finished: [Int: PassOutcome?] = [:]
        private var taken = 0
        private var settled = false

        init(pool: CandidatePool, count: Int) {
            self.reads = pool
            self.count = count
        }

        /// The next pass to run, or nil once every pass has started or the reads have settled.
        func start() -> Int? {
            condition.lock()
            defer { condition.unlock() }
            guard !settled, next < count else { return nil }
            defer { next += 1 }
            return next
        }

        /// Takes the finished passes' reads in pass order, as far as they go without a gap.
        func finish(_ index: Int, _ outcome: PassOutcome?, passes: [Pass], stopWhenSure: Bool) {
            condition.lock()
            defer { condition.unlock() }
            finished[index] = .some(outcome)
            while !settled, let outcome = finished.removeValue(forKey: taken) {
                settled = reads.take(outcome, of: passes[taken], stopWhenSure: stopWhenSure)
                taken += 1
            }
            condition.broadcast()
        }

        /// The reads once the passes before `index` are taken (or the reads have settled), waiting for them, and whether they
        /// have settled (a pass started beside the one that settled them is not taken). Passes start in order and a pass waits
        /// only for earlier ones, so the wait always ends.
        func pool(before index: Int) -> (reads: CandidatePool, settled: Bool) {
            condition.lock()
            defer { condition.unlock() }
            while taken < index, !settled { condition.wait() }
            return (reads, settled)
        }
    }

    /// One pass's reads, with their points in the whole picture's pixels.
    fileprivate struct PassOutcome: Sendable {
        var reads: [(symbol: RawSymbol, points: [(x: Int, y: Int)])]
        /// The other decoder's reads where this pass read a 1D code (``Pass/zxingCrossCheck``, ``Pass/zbarCrossCheck``).
        var crossChecks: [(symbol: RawSymbol, points: [(x: Int, y: Int)], pass: BarcodeReader.Pass)] = []
    }

    /// Runs one pass over the picture (over its working copy for the passes after the first); nil when the pass
    /// does not apply to this picture.
    private func run(_ pass: Pass, on picture: Picture, crossChecked: () -> CrossChecked? = { CrossChecked() }) -> PassOutcome? {
        let working = pass != .original && !pass.usesZXing ? picture.working : nil
        let source = working ?? picture.base
        guard let step = options.timings.measure(BarcodeTimings.Name.prepare, { prepare(source, pass, doubled: { picture.doubled }) }) else { return nil }
        let scale = working != nil ? picture.shrink : 1
        let symbols = options.timings.measure(pass.rawValue) {
            pass.usesZXing
                ? ZXingScanner.scan(step.image, formats: options.formats, effort: pass == .zxingHarder ? .harder : .quick, workerPath: options.zxingWorker)
                : zbar().scan(step.image)
        }
        let toPicture: ([(x: Int, y: Int)]) -> [(x: Int, y: Int)] = { points in
            points.map { point in
                let p = step.toBase(point.x, point.y)
                return (x: p.0 * scale + picture.offset.x, y: p.1 * scale + picture.offset.y)
            }
        }
        // The lines zbar read along, as they lie in the picture (the rotated pass's rows are its columns).
        let upright: (RawSymbol) -> RawSymbol = pass == .rotated90 ? { $0.turnedAQuarter } : { $0 }
        let reads = symbols.map { (symbol: upright($0), points: toPicture($0.points)) }
        // The other decoder's word on each new 1D read, on the same pixels around it. zxing's first pass needs none
        // here: zbar's passes all read the whole picture after it. None once the reads have settled (`crossChecked` nil):
        // this pass was started beside the one that settled them, and its reads will not be taken.
        var checks: [(symbol: RawSymbol, points: [(x: Int, y: Int)], pass: Pass)] = []
        if options.agreement != .anyTwoPasses, pass != .zxing {
            var asked = Set<String>()
            lazy var known = crossChecked()
            for symbol in symbols where symbol.format != .qr {
                guard let key = CandidatePool.key(symbol), asked.insert(key).inserted, let known, known.wantsCheck(key, by: pass), let area = Self.surroundings(of: symbol, in: step.image) else { continue }
                // Only the same digits count: whatever else the other decoder makes of the crop (part of a neighbour, a
                // misread) would be a read of its own to confirm, and keep the passes going for nothing.
                // What zbar's passes have scanned already, for a zxing read: the picture as it is, and doubled at full size.
                let scanned = pass.usesZXing ? known.passesTaken.filter { $0 == .original || ($0 == .upscaled2x && picture.shrink == 1) } : Set()
                let found = options.timings.measure(pass.usesZXing ? BarcodeTimings.Name.checkByZBar : BarcodeTimings.Name.checkByZXing) {
                    crossCheck(step.image.cropped(x: area.x, y: area.y, width: area.width, height: area.height), key: key, format: symbol.format, lines: symbol.linesAcross, after: pass, zbarScanned: scanned)
                }
                if let found {
                    checks.append((symbol: upright(found.symbol), points: toPicture(found.symbol.points.map { point in
                        (x: point.x / found.factor + area.x, y: point.y / found.factor + area.y)
                    }), pass: found.pass))
                }
            }
        }
        return PassOutcome(reads: reads, crossChecks: checks)
    }

    /// A confirmation of the read `key` (made by `pass`) from the crop around it, with the factor the crop was
    /// enlarged by and the pass it counts as. For a zbar read: zxing (trying harder: the crop may hold a turned code)
    /// on the crop, then on the crop binarized, looking for the read's own kind of code only (a product code, or that
    /// format: nothing else can confirm it, and looking for QR codes too took a sixth of the checks' time); for the
    /// codes a second zbar scale confirms, zbar on the crop doubled (what the upscaled-2x pass sees there, without waiting
    /// for it; doubled and then binarized as well confirmed nothing in 137 tries over the shared photos and the generated
    /// corpus, at 1–2 ms each). A crop already black and white (a binarized pass's) is not binarized again for zxing:
    /// that confirmed nothing in 184 tries over both sets. For a zxing read: zbar on the crop as it is,
    /// doubled, and doubled then binarized, leaving out the first two where `zbarScanned` says zbar's original or
    /// upscaled-2x pass has scanned those pixels already (`.original`, `.upscaled2x`): after them, those tries
    /// confirmed none of zxing trying harder's reads over both sets (0 of 32), the third 4. Only the same digits count:
    /// whatever else a decoder makes of the crop (part of a neighbour, a misread) would be a read of its own to
    /// confirm, and keep the passes going for nothing.
    private func crossCheck(_ crop: GrayImage, key: String, format: BarcodeFormat, lines: ZBarScanner.Lines, after pass: Pass, zbarScanned: Set<Pass>) -> (symbol: RawSymbol, factor: Int, pass: Pass)? {
        let same: (RawSymbol) -> Bool = { CandidatePool.key($0) == key }
        if pass.usesZXing {
            if !zbarScanned.contains(.original), let found = zbar(lines).scan(crop).first(where: same) { return (found, 1, .zbarCrossCheck) }
            let doubled = crop.upscaled(by: 2)
            if !zbarScanned.contains(.upscaled2x), let found = zbar(lines).scan(doubled).first(where: same) { return (found, 2, .zbarCrossCheck) }
            return zbar(lines).scan(doubled.locallyBinarized()).first(where: same).map { ($0, 2, .zbarCrossCheck) }
        }
        let kind: Set<BarcodeFormat> = format.gtinFormat != nil ? options.formats.filter { $0.gtinFormat != nil } : [format]
        // zbar's lines say which way the bars run: zxing reads the crop turned so that its rows cross them, without its
        // own turned and downscaled tries; a read of unknown direction, with them.
        let turned = lines == .columns
        let rowsAcrossBars = turned ? crop.rotatedClockwise() : crop
        let effort: ZXingScanner.Effort = lines == .both ? .harder : .harderAsItIs
        let zxing = { (image: GrayImage) -> RawSymbol? in
            guard let found = ZXingScanner.scan(image, formats: kind, effort: effort, workerPath: self.options.zxingWorker).first(where: same) else { return nil }
            guard turned else { return found }
            let height = crop.height
            return RawSymbol(format: found.format, text: found.text, quality: found.quality, points: found.points.map { (x: $0.y, y: height - 1 - $0.x) })
        }
        if let found = zxing(rowsAcrossBars) { return (found, 1, .zxingCrossCheck) }
        if !pass.isBinarized, let found = zxing(rowsAcrossBars.locallyBinarized()) { return (found, 1, .zxingCrossCheck) }
        guard pass.scale == 1, CandidatePool.Candidate.secondScaleConfirms(format), max(crop.width, crop.height) <= 1000 else { return nil }
        return zbar(lines).scan(crop.upscaled(by: 2)).first(where: same).map { ($0, 2, .upscaled2x) }
    }

    /// The part of `image` around a 1D read's points, with room for its quiet zones (a fifth of its length at each end)
    /// and a quarter of its length on either side across the bars (zbar's points can be one scan line; the other
    /// decoder needs a few lines through the bars, not all of them); nil without points. Half a length on either side,
    /// as before, made the crops of the shared photos up to half the picture: a quarter confirmed one more read there
    /// and, net, two more on the generated corpus, and took the zxing checks from 0.56–0.65 to 0.47–0.53 ms a photo
    /// (one thread).
    ///
    /// A zbar read of known direction says where the code is across its lines but not how long it is (see
    /// ``RawSymbol/lines``): its surroundings are a band along those lines through the whole picture, either side of its
    /// points by 32 pixels and a quarter of their spread across the lines, and by no less than a read whose ends they
    /// were would get across its bars. (Its points' bounds, as for zxing's reads, made a crop of 23 × 25 pixels around a
    /// read on one scan line: on the shared photos no check on such a crop confirmed anything, 0 of 13.)
    static func surroundings(of symbol: RawSymbol, in image: GrayImage) -> PixelBounds? {
        guard let lines = symbol.lines, lines != .both, let read = PixelBounds(enclosing: symbol.points) else {
            return surroundings(of: symbol.points, in: image)
        }
        let alongRows = lines == .rows
        let (start, spread, size) = alongRows ? (read.y, read.height, image.height) : (read.x, read.width, image.width)
        let along = alongRows ? read.width : read.height
        let pad = max(32 + spread / 4, along / 4 + 8)
        let low = max(0, start - pad), high = min(size, start + spread + pad)
        guard high - low >= 8 else { return nil }
        return alongRows ? PixelBounds(x: 0, y: low, width: image.width, height: high - low) : PixelBounds(x: low, y: 0, width: high - low, height: image.height)
    }

    /// The surroundings of a read whose points are its ends (see ``surroundings(of:in:)-(RawSymbol,_)``).
    static func surroundings(of points: [(x: Int, y: Int)], in image: GrayImage) -> PixelBounds? {
        guard let read = PixelBounds(enclosing: points) else { return nil }
        let x0 = read.x, y0 = read.y, x1 = read.x + read.width - 1, y1 = read.y + read.height - 1
        let length = max(x1 - x0, y1 - y0, 16)
        let padX = (x1 - x0 >= y1 - y0 ? length / 5 : length / 4) + 8
        let padY = (x1 - x0 >= y1 - y0 ? length / 4 : length / 5) + 8
        let left = max(0, x0 - padX), top = max(0, y0 - padY)
        let right = min(image.width, x1 + padX + 1), bottom = min(image.height, y1 + padY + 1)
        guard right - left >= 8, bottom - top >= 8 else { return nil }
        return PixelBounds(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// The long side, in pixels, beyond which passes after the first work on a shrunk copy.
    static let workingSize = 1600

    /// The picture a pass scans, and how to map its coordinates back to the base picture's; `doubled` gives the
    /// base picture upscaled by 2 (made once for the passes that share it).
    private func prepare(_ base: GrayImage, _ pass: Pass, doubled: () -> GrayImage) -> (image: GrayImage, toBase: (Int, Int) -> (Int, Int))? {
        let identity: (Int, Int) -> (Int, Int) = { ($0, $1) }
        let shortSide = min(base.width, base.height), longSide = max(base.width, base.height)
        switch pass {
        case .original, .zxing, .zxingHarder, .zxingCrossCheck, .zbarCrossCheck:
            return (base, identity)
        case .downscaled2x:
            guard shortSide >= 160 else { return nil }
            return (base.downscaled(by: 2), { ($0 * 2, $1 * 2) })
        case .downscaled3x:
            guard shortSide >= 300 else { return nil }
            return (base.downscaled(by: 3), { ($0 * 3, $1 * 3) })
        case .upscaled2x:
            guard longSide <= 1000 else { return nil }
            return (doubled(), { ($0 / 2, $1 / 2) })
        case .sharpened:
            return (base.contrastStretched().sharpened(), identity)
        case .upscaled3x:
            guard longSide <= 700 else { return nil }
            return (base.upscaled(by: 3), { ($0 / 3, $1 / 3) })
        case .upscaledSharpened:
            guard longSide <= 1000 else { return nil }
            return (doubled().sharpened(), { ($0 / 2, $1 / 2) })
        case .equalized:
            return (base.equalized(), identity)
        case .upscaledInverted:
            guard longSide <= 1000 else { return nil }
            return (base.inverted().upscaled(by: 2), { ($0 / 2, $1 / 2) })
        case .binarizedInverted:
            return (base.inverted().locallyBinarized(), identity)
        case .inverted:
            return (base.inverted(), identity)
        case .binarized:
            return (base.locallyBinarized(), identity)
        case .upscaledBinarized:
            guard longSide <= 1000 else { return nil }
            return (doubled().locallyBinarized(), { ($0 / 2, $1 / 2) })
        case .smoothed:
            return (base.boxBlurred3x3(), identity)
        case .rotated90:
            let height = base.height
            return (base.rotatedClockwise(), { x, y in (y, height - 1 - x) })
        }
    }
}

/// Reads pooled across passes, keyed by what they say (a product code by its GTIN key).
struct CandidatePool: Sendable {
    struct Candidate {
        var format: BarcodeFormat
        var text: String
        var gtin: GTIN?
        var firstPass: BarcodeReader.Pass
        var passes: Set<BarcodeReader.Pass>
        /// `passes` in the order they read it.
        var passOrder: [BarcodeReader.Pass]
        var bestQuality: Int
        var strongScanLines: Int
        var agreement: BarcodeReader.Agreement
        var minX = Int.max, minY = Int.max, maxX = Int.min, maxY = Int.min
        /// The lines zbar read it along (``RawSymbol/lines``; `both` when its reads differ; nil when zbar has not read it).
        var zbarLines: ZBarScanner.Lines?

        var agreeing: Int { passes.count }

        var confidence: BarcodeConfidence {
            if format == .qr || bestQuality >= strongScanLines || isConfirmed { return .high }
            // zbar's quality counts the scan lines that decoded the same symbol.
            return bestQuality >= 2 || passes.count >= 2 ? .medium : .low
        }

        /// How many of zbar's passes read it.
        var zbarPasses: Int { passes.count { !$0.usesZXing } }

        var isReadByBothDecoders: Bool { passes.contains { $0.usesZXing } && passes.contains { !$0.usesZXing } }

        /// Whether something independent read the same digits (see ``BarcodeReader/Agreement``).
        var isConfirmed: Bool {
            guard passes.count >= 2 else { return false }
            switch agreement {
            case .anyTwoPasses: return true
            case .otherDecoder: return isReadByBothDecoders
            case .otherDecoderOrScale:
                if isReadByBothDecoders { return true }
                // zbar at two scales, for the long codes only: the generated corpus's wrong reads that two zbar scales
                // agreed on were all UPC-E (a blurred EAN-13 or UPC-E read as another UPC-E), whose six digits and
                // parity pattern are little to check; zxing's own passes read the same pixels and never confirm it.
                guard Self.secondScaleConfirms(format) else { return false }
                return Set(passes.filter { !$0.usesZXing }.map(\.scale)).count >= 2
            }
        }

        /// Whether zbar at a second scale confirms a code of this format (see ``isConfirmed``).
        static func secondScaleConfirms(_ format: BarcodeFormat) -> Bool { format == .ean13 || format == .upcA || format == .code128 }

        var bounds: PixelBounds? {
            guard minX <= maxX, minY <= maxY else { return nil }
            return PixelBounds(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
        }

        mutating func include(_ points: [(x: Int, y: Int)]) {
            for p in points {
                minX = min(minX, p.x); minY = min(minY, p.y)
                maxX = max(maxX, p.x); maxY = max(maxY, p.y)
            }
        }

        func overlaps(_ other: Candidate) -> Bool {
            guard let a = bounds, let b = other.bounds else { return false }
            // Pad thin 1D bounds (often a single scan line) so reads of one symbol meet.
            let pad = max(8, min(a.width, a.height, b.width, b.height) / 4)
            return a.x - pad < b.x + b.width && b.x - pad < a.x + a.width && a.y - pad < b.y + b.height && b.y - pad < a.y + a.height
        }
    }

    let strongScanLines: Int
    let agreement: BarcodeReader.Agreement
    init(strongScanLines: Int, agreement: BarcodeReader.Agreement = .anyTwoPasses) {
        self.strongScanLines = strongScanLines
        self.agreement = agreement
    }
    var candidates: [String: Candidate] = [:]
    var order: [String] = []
    /// Passes whose reads were taken (those that applied to the picture).
    var passesTaken: Set<BarcodeReader.Pass> = []

    var isEmpty: Bool { candidates.isEmpty }

    /// Where the 1D reads waiting for a second pass are, padded so a scanner finds them again with their quiet
    /// zones, in the pixels of a `width` × `height` picture whose top-left corner is at `origin` in the reads'
    /// coordinates; nil when there are none, when a read has no position, or when the area would be more than
    /// three quarters of the picture anyway. A read zxing made is where its ends are; one only zbar made is known
    /// across its scan lines, not along them (``RawSymbol/lines``): a band along those lines through the whole
    /// picture, a quarter of the picture either side of its points (nil when zbar read it both ways).
    func confirmationArea(width: Int, height: Int, origin: (x: Int, y: Int)) -> PixelBounds? {
        let waiting = waitingLinearReads
        guard !waiting.isEmpty else { return nil }
        var x0 = Int.max, y0 = Int.max, x1 = Int.min, y1 = Int.min
        for candidate in waiting {
            guard let b = candidate.bounds else { return nil }
            if !candidate.passes.contains(where: \.usesZXing) {
                switch candidate.zbarLines {
                case .rows?:
                    x0 = 0; x1 = width
                    y0 = min(y0, b.y - origin.y - height / 4); y1 = max(y1, b.y - origin.y + b.height + height / 4)
                case .columns?:
                    y0 = 0; y1 = height
                    x0 = min(x0, b.x - origin.x - width / 4); x1 = max(x1, b.x - origin.x + b.width + width / 4)
                case .both?, nil:
                    return nil
                }
                continue
            }
            // An eighth of the code's length covers EAN's and UPC's quiet zones (7 to 11 modules of 95–113).
            let pad = max(16, max(b.width, b.height) / 8)
            x0 = min(x0, b.x - origin.x - pad); y0 = min(y0, b.y - origin.y - pad)
            x1 = max(x1, b.x - origin.x + b.width + pad); y1 = max(y1, b.y - origin.y + b.height + pad)
        }
        x0 = max(0, x0); y0 = max(0, y0); x1 = min(width, x1); y1 = min(height, y1)
        guard x1 > x0, y1 > y0, (x1 - x0) * (y1 - y0) * 4 <= width * height * 3 else { return nil }
        return PixelBounds(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The scan lines that cross the bars of every 1D read waiting for a second pass (``ZBarScanner/Lines``).
    var confirmationLines: ZBarScanner.Lines {
        let lines = Set(waitingLinearReads.map { $0.bounds.map(ZBarScanner.Lines.init(crossing:)) ?? .both })
        return lines.count == 1 ? lines.first! : .both
    }

    /// The 1D reads that only one pass has made so far, in the order they were first read.
    private var waitingLinearReads: [Candidate] {
        order.compactMap { candidates[$0] }.filter { $0.format != .qr && $0.agreeing < 2 }
    }

    /// Adds one pass's reads (nil: the pass did not apply to the picture); true once the reads so far are sure
    /// enough to stop. A single pass's read of a 1D code is confirmed by one more pass before stopping; QR codes
    /// carry their own error correction.
    fileprivate mutating func take(_ outcome: BarcodeReader.PassOutcome?, of pass: BarcodeReader.Pass, stopWhenSure: Bool) -> Bool {
        guard let outcome else { return false }
        passesTaken.insert(pass)
        for read in outcome.reads { add(read.symbol, pass: pass, points: read.points) }
        for read in outcome.crossChecks { add(read.symbol, pass: read.pass, points: read.points) }
        // A read that is not yet sure keeps the passes going: a later one may confirm it (or contradict it).
        return stopWhenSure && isSettled(minimum: passesTaken.count >= 2 && agreement == .anyTwoPasses ? .medium : .high)
    }

    /// Whether every read is at least `minimum` and none contradicts another.
    func isSettled(minimum: BarcodeConfidence) -> Bool {
        guard !candidates.isEmpty else { return false }
        let kept = results(dropLow: false)
        return kept.count == candidates.count && kept.allSatisfy { $0.confidence >= minimum }
    }

    /// What a read is pooled by: a product code by its GTIN key (nil when it is not a valid one), Code 128 by its
    /// text without FNC4, anything else by its format and text.
    static func key(_ symbol: RawSymbol) -> String? {
        if let gtinFormat = symbol.format.gtinFormat {
            // zbar checks the digit too; this also rejects anything a later zbar might pass through.
            guard let parsed = GTIN(symbol.text, format: gtinFormat), parsed.addOn == nil else { return nil }
            return "gtin:\(parsed.key)"
        }
        // zbar drops Code 128's FNC4 (extended Latin-1: `ó` comes back as `s`), zxing keeps it: key Code 128 by its
        // text with the high bit stripped, so both reads are one candidate, and keep the text that has it.
        return symbol.format == .code128 ? "code128:\(Self.withoutFNC4(symbol.text))" : "\(symbol.format.rawValue):\(symbol.text)"
    }

    mutating func add(_ symbol: RawSymbol, pass: BarcodeReader.Pass, points: [(x: Int, y: Int)]) {
        guard let key = Self.key(symbol) else { return }
        let gtin = symbol.format.gtinFormat.flatMap { GTIN(symbol.text, format: $0) }
        if var existing = candidates[key] {
            if symbol.text != existing.text, symbol.text.unicodeScalars.contains(where: { $0.value >= 0x80 }) { existing.text = symbol.text }
            if existing.passes.insert(pass).inserted { existing.passOrder.append(pass) }
            existing.bestQuality = max(existing.bestQuality, symbol.quality)
            existing.include(points)
            if let lines = symbol.lines { existing.zbarLines = existing.zbarLines.map { $0 == lines ? lines : .both } ?? lines }
            candidates[key] = existing
        } else {
            var candidate = Candidate(format: symbol.format, text: symbol.text, gtin: gtin, firstPass: pass, passes: [pass], passOrder: [pass], bestQuality: symbol.quality, strongScanLines: strongScanLines, agreement: agreement, zbarLines: symbol.lines)
            candidate.include(points)
            candidates[key] = candidate
            order.append(key)
        }
    }

    /// Code 128 text as a reader that ignores FNC4 returns it: characters 128–255 shifted down by 128.
    static func withoutFNC4(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { (0x80...0xFF).contains($0.value) ? Unicode.Scalar($0.value - 0x80)! : $0 }))
    }

    /// The reads to report: where two different product codes were read at one spot, only the better
    /// supported one survives (the other is almost always a misread of it).
    func results(dropLow: Bool) -> [DecodedBarcode] {
        let all = order.compactMap { candidates[$0] }
        func score(_ c: Candidate) -> (Int, Int, Int) { (c.agreeing, c.confidence == .low ? 0 : 1, c.bestQuality) }
        var kept: [(candidate: Candidate, confidence: BarcodeConfidence)] = []
        for candidate in all {
            if dropLow, candidate.confidence == .low { continue }
            var confidence = candidate.confidence
            if candidate.gtin != nil {
                let rivals = all.filter { $0.gtin != nil && $0.gtin != candidate.gtin && $0.overlaps(candidate) }
                if rivals.contains(where: { score($0) > score(candidate) }) { continue }
                if rivals.contains(where: { score($0) == score(candidate) }), candidate.confidence < .high { continue }
                // Another product code read at the same spot (by more than one scan line) contradicts this one: only
                // both decoders reading it settles which is right; otherwise it is shown to be checked. Not even that
                // when zbar read the other code there in more passes than this one: zbar's own majority is against it
                // (a blurred UPC-E that zbar read as three different codes, zxing read as one of them on the doubled picture).
                if agreement != .anyTwoPasses, rivals.contains(where: { $0.confidence > .low }),
                   !candidate.isReadByBothDecoders || rivals.contains(where: { $0.zbarPasses > candidate.zbarPasses }) {
                    confidence = min(confidence, .medium)
                }
            }
            kept.append((candidate, confidence))
        }
        return kept
            .sorted { ($0.confidence, $0.candidate.agreeing) > ($1.confidence, $1.candidate.agreeing) }
            .map { c, confidence in
                DecodedBarcode(
                    format: c.format, text: c.text, gtin: c.gtin, confidence: confidence,
                    pass: c.firstPass.rawValue, agreeingPasses: c.agreeing, passes: c.passOrder.map(\.rawValue), bounds: c.bounds)
            }
    }
}

