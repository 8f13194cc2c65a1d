import Foundation
import Hummingbird
import NestoryDomain

/// Writes JSON text straight into bytes: the one hand-written JSON encoder of the app, for the item
/// shapes the API sends most (a list page is 40–200 items; Foundation's `JSONEncoder` was the
/// largest cost of such a request). Its output means the same as `JSONEncoder`'s for the same value
/// (same keys and values; optional fields left out when nil; dates as ISO 8601 in UTC to the second);
/// a test compares the two.
///
/// The bytes go into a buffer of its own, written through a pointer: appending to an `[UInt8]` checked
/// its uniqueness and capacity for every byte, which was most of the writer's time. A writer is
/// passed `inout` and never copied (a copy would share the buffer).
struct JSONWriter {
    private let out: Buffer
    /// Nothing written yet in the open object or array (no comma before the next member).
    private var first = true
    /// A key was just written: its value needs no comma.
    private var afterKey = false

    init(capacity: Int = 1024) {
        out = Buffer(capacity: capacity)
    }

    /// What was written so far.
    var bytes: [UInt8] { Array(out.written) }

    private mutating func separate() {
        if afterKey {
            afterKey = false
        } else {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
        }
    }

    mutating func beginObject() {
        separate()
        out.append(UInt8(ascii: "{"))
        first = true
    }

    mutating func endObject() {
        out.append(UInt8(ascii: "}"))
        first = false
    }

    mutating func beginArray() {
        separate()
        out.append(UInt8(ascii: "["))
        first = true
    }

    mutating func endArray() {
        out.append(UInt8(ascii: "]"))
        first = false
    }

    /// A member's name: a literal in the source, written as it is (names here never need escaping).
    mutating func key(_ name: StaticString) {
        separate()
        out.append(UInt8(ascii: "\""))
        out.append(name)
        out.append(UInt8(ascii: "\""))
        out.append(UInt8(ascii: ":"))
        afterKey = true
    }

    mutating func string(_ value: String) {
        separate()
        writeEscaped(value)
    }

    /// `prefix` then `value`, as one string (a URL made of a fixed start and a stored name, say).
    mutating func string(prefix: StaticString, _ value: String) {
        separate()
        out.append(UInt8(ascii: "\""))
        out.append(prefix)  // a literal in the source, with nothing to escape
        writeEscapedContent(value)
        out.append(UInt8(ascii: "\""))
    }

    mutating func int(_ value: Int64) {
        separate()
        if value < 0 { out.append(UInt8(ascii: "-")) }
        writeDigits(value.magnitude)  // the magnitude is unsigned, so Int64.min has one too
    }

    mutating func int(_ value: Int) { int(Int64(value)) }

    mutating func bool(_ value: Bool) {
        separate()
        out.append(value ? "true" : "false")
    }

    mutating func null() {
        separate()
        out.append("null")
    }

    /// A date as `JSONEncoder` with `.iso8601` writes it: `2026-11-22T13:25:07Z` (UTC, whole seconds).
    mutating func date(_ value: Date) {
        separate()
        let seconds = Int64(value.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = Self.civil(fromDays: days)
        out.append(UInt8(ascii: "\""))
        digits(year, width: 4)
        out.append(UInt8(ascii: "-"))
        digits(month, width: 2)
        out.append(UInt8(ascii: "-"))
        digits(day, width: 2)
        out.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, width: 2)
        out.append(UInt8(ascii: ":"))
        digits(secondOfDay / 60 % 60, width: 2)
        out.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, width: 2)
        out.append(UInt8(ascii: "Z"))
        out.append(UInt8(ascii: "\""))
    }

    /// An identifier as its canonical lower-case text (what `EntityID.description` gives), without
    /// making that text first.
    mutating func id<Entity>(_ value: EntityID<Entity>) {
        separate()
        out.append(UInt8(ascii: "\""))
        withUnsafeBytes(of: value.rawValue.uuid) { raw in
            out.write(count: 36) { text in
                var position = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    let byte = raw[index]
                    text[position] = Self.hexDigit(byte >> 4)
                    text[position + 1] = Self.hexDigit(byte & 0xF)
                    position += 2
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// A calendar day as `CalendarDate.iso` writes it: `2026-11-23`.
    mutating func calendarDate(_ value: CalendarDate) {
        guard (0...9999).contains(value.year), (0...99).contains(value.month), (0...99).contains(value.day) else {
            string(value.iso)  // outside what a CalendarDate can hold; written as the text says
            return
        }
        separate()
        out.append(UInt8(ascii: "\""))
        digits(Int64(value.year), width: 4)
        out.append(UInt8(ascii: "-"))
        digits(Int64(value.month), width: 2)
        out.append(UInt8(ascii: "-"))
        digits(Int64(value.day), width: 2)
        out.append(UInt8(ascii: "\""))
    }

    /// An amount as `Money.plainAmount` writes it (`-12.50`, `5000`), in quotes.
    mutating func plainAmount(_ value: Money) {
        separate()
        out.append(UInt8(ascii: "\""))
        if value.minorUnits < 0 { out.append(UInt8(ascii: "-")) }
        let magnitude = value.minorUnits.magnitude
        let fractionDigits = value.currency.minorUnitDigits
        if fractionDigits > 0 {
            var divisor: UInt64 = 1
            for _ in 0..<fractionDigits { divisor *= 10 }
            writeDigits(magnitude / divisor)
            out.append(UInt8(ascii: "."))
            writeDigits(magnitude % divisor, minimumWidth: fractionDigits)
        } else {
            writeDigits(magnitude)
        }
        out.append(UInt8(ascii: "\""))
    }

    // Object members; an optional member is left out when nil, as `Encodable`'s synthesized code does.

    mutating func field<Entity>(_ name: StaticString, _ value: EntityID<Entity>) {
        key(name)
        id(value)
    }

    mutating func field<Entity>(_ name: StaticString, _ value: EntityID<Entity>?) {
        if let value { field(name, value) }
    }

    mutating func field(_ name: StaticString, _ value: CalendarDate?) {
        if let value {
            key(name)
            calendarDate(value)
        }
    }

    mutating func field(_ name: StaticString, _ value: String) {
        key(name)
        string(value)
    }

    mutating func field(_ name: StaticString, _ value: String?) {
        if let value { field(name, value) }
    }

    mutating func field(_ name: StaticString, _ value: Int64) {
        key(name)
        int(value)
    }

    mutating func field(_ name: StaticString, _ value: Int) {
        key(name)
        int(value)
    }

    mutating func field(_ name: StaticString, _ value: Bool) {
        key(name)
        bool(value)
    }

    mutating func field(_ name: StaticString, _ value: Date) {
        key(name)
        date(value)
    }

    mutating func field(_ name: StaticString, _ values: [String]) {
        key(name)
        beginArray()
        for value in values { string(value) }
        endArray()
    }

    /// The bytes as a JSON response (the headers `JSONEncoder`'s responses have).
    func response(status: HTTPResponse.Status = .ok) -> Response {
        Self.response(buffer, status: status)
    }

    /// The bytes written, as a buffer to send.
    var buffer: ByteBuffer { ByteBuffer(bytes: UnsafeRawBufferPointer(out.written)) }

    /// JSON already written, as a response.
    static func response(_ bytes: ByteBuffer, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status,
                 headers: [.contentType: "application/json; charset=utf-8", .contentLength: String(bytes.readableBytes)],
                 body: .init(byteBuffer: bytes))
    }

    // MARK: - Text

    /// A string in quotes: `"` and `\` escaped, control characters as `\n`, `\t`… or `\u00XX`;
    /// everything else (all of Unicode) as its UTF-8 bytes, which JSON allows.
    private mutating func writeEscaped(_ value: String) {
        out.append(UInt8(ascii: "\""))
        writeEscapedContent(value)
        out.append(UInt8(ascii: "\""))
    }

    /// The inside of a JSON string (no quotes around it).
    private mutating func writeEscapedContent(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if start < index { out.append(UnsafeBufferPointer(rebasing: utf8[start..<index])) }
                start = index + 1
                out.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
                case 0x0A: out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(UInt8(ascii: "r"))
                case 0x09: out.append(UInt8(ascii: "t"))
                case 0x08: out.append(UInt8(ascii: "b"))
                case 0x0C: out.append(UInt8(ascii: "f"))
                default:
                    out.append(UInt8(ascii: "u"))
                    out.append(UInt8(ascii: "0"))
                    out.append(UInt8(ascii: "0"))
                    out.append(Self.hexDigit(byte >> 4))
                    out.append(Self.hexDigit(byte & 0xF))
                }
            }
            if start < utf8.count { out.append(UnsafeBufferPointer(rebasing: utf8[start...])) }
        }
    }

    private mutating func digits(_ value: Int64, width: Int) {
        writeDigits(value.magnitude, minimumWidth: width)
    }

    /// Decimal digits, zero-padded on the left to `minimumWidth`; written from the last digit back
    /// (divisions by the constant 10, which compile to multiplications).
    private mutating func writeDigits(_ magnitude: UInt64, minimumWidth: Int = 1) {
        var width = 1
        var rest = magnitude / 10
        while rest > 0 {
            width += 1
            rest /= 10
        }
        width = max(width, minimumWidth)
        out.write(count: width) { text in
            var value = magnitude
            for position in stride(from: width - 1, through: 0, by: -1) {
                text[position] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
    }

    /// Year, month and day of the proleptic Gregorian calendar for days since 1970-01-01
    /// (the usual era arithmetic: 400-year eras of 146,097 days, years starting in March).
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468  // days since 0000-03-01
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153  // 0 = March
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// `0`–`9`, `a`–`f` for 0–15.
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
    }

    /// Bytes written by pointer, grown by doubling.
    private final class Buffer {
        private var base: UnsafeMutablePointer<UInt8>
        private var count = 0
        private var capacity: Int

        init(capacity: Int) {
            self.capacity = max(capacity, 64)
            base = .allocate(capacity: self.capacity)
        }

        deinit { base.deallocate() }

        var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

        @inline(__always) private func reserve(_ extra: Int) {
            if count + extra > capacity { grow(to: count + extra) }
        }

        @inline(never) private func grow(to needed: Int) {
            var newCapacity = capacity * 2
            while newCapacity < needed { newCapacity *= 2 }
            let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            newBase.update(from: base, count: count)
            base.deallocate()
            base = newBase
            capacity = newCapacity
        }

        @inline(__always) func append(_ byte: UInt8) {
            reserve(1)
            base[count] = byte
            count += 1
        }

        func append(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
            reserve(bytes.count)
            (base + count).update(from: source, count: bytes.count)
            count += bytes.count
        }

        func append(_ text: StaticString) {
            text.withUTF8Buffer { append($0) }
        }

        /// Lets `body` fill the next `count` bytes (all of them).
        @inline(__always) func write(count length: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Void) {
            reserve(length)
            body(UnsafeMutableBufferPointer(start: base + count, count: length))
            count += length
        }
    }
}

/// A value the API answers with JSON written by `JSONWriter` rather than `JSONEncoder` (the item shapes: the
/// busiest answers). Its `Encodable` form means the same; a test compares the two.
protocol JSONWritable: ResponseGenerator {
    /// Bytes to reserve before writing: a guess of the answer's size.
    var jsonCapacity: Int { get }
    func write(to json: inout JSONWriter)
}

extension JSONWritable {
    var jsonCapacity: Int { 1024 }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var json = JSONWriter(capacity: jsonCapacity)
        write(to: &json)
        return json.response()
    }
}
