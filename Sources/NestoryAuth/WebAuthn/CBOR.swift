/// A CBOR value (RFC 8949), as much as WebAuthn needs: the attestation object, authenticator data's
/// credential public key (a COSE key) and its extensions.
public indirect enum CBOR: Equatable, Sendable {
    /// An integer, unsigned (major type 0) or negative (major type 1), that fits in Int64.
    case int(Int64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    /// Pairs in the order they were written (keys are unique).
    case map([Pair])
    case bool(Bool)
    case null
    case undefined

    public struct Pair: Equatable, Sendable {
        public let key: CBOR
        public let value: CBOR
        public init(_ key: CBOR, _ value: CBOR) { (self.key, self.value) = (key, value) }
    }

    /// A map's value for a key (nil when this is not a map or the key is absent).
    public subscript(key: CBOR) -> CBOR? {
        guard case .map(let pairs) = self else { return nil }
        return pairs.first { $0.key == key }?.value
    }
    public subscript(text: String) -> CBOR? { self[.text(text)] }
    public subscript(int: Int64) -> CBOR? { self[.int(int)] }

    public var intValue: Int64? { if case .int(let value) = self { value } else { nil } }
    public var bytesValue: [UInt8]? { if case .bytes(let value) = self { value } else { nil } }
    public var textValue: String? { if case .text(let value) = self { value } else { nil } }
    public var mapValue: [Pair]? { if case .map(let value) = self { value } else { nil } }
}

/// Why bytes are not CBOR this decoder accepts.
public struct CBORError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// A strict CBOR decoder for hostile input (whatever a browser or an attacker posts): definite lengths only
/// (indefinite lengths, tags, floats and reserved values are refused), every length checked against the bytes
/// that remain before anything is allocated, nesting at most `maxDepth` deep, at most `maxItems` items in all,
/// text that is valid UTF-8, no duplicate map keys, and integers that fit in Int64. `decode` refuses bytes after
/// the item; `decodePrefix` says where the item ended (authenticator data has more after its COSE key).
public struct CBORDecoder: Sendable {
    public var maxDepth = 16
    public var maxItems = 4096
    /// The largest input at all (an attestation object is a few hundred bytes; with a certificate chain a few KB).
    public var maxBytes = 64 * 1024

    public init() {}

    public func decode(_ bytes: [UInt8]) throws(CBORError) -> CBOR {
        let (value, end) = try decodePrefix(bytes)
        guard end == bytes.count else { throw CBORError("\(bytes.count - end) bytes after the CBOR item") }
        return value
    }

    /// The first item and the offset just past it.
    public func decodePrefix(_ bytes: [UInt8], from start: Int = 0) throws(CBORError) -> (CBOR, Int) {
        guard bytes.count <= maxBytes else { throw CBORError("more than \(maxBytes) bytes") }
        var reader = Reader(bytes: bytes, position: start, maxDepth: maxDepth, itemsLeft: maxItems)
        let value = try reader.item(depth: 0)
        return (value, reader.position)
    }

    private struct Reader {
        let bytes: [UInt8]
        var position: Int
        let maxDepth: Int
        var itemsLeft: Int

        var remaining: Int { bytes.count - position }

        mutating func byte() throws(CBORError) -> UInt8 {
            guard position < bytes.count else { throw CBORError("the data ends inside an item") }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func take(_ count: Int) throws(CBORError) -> ArraySlice<UInt8> {
            guard count >= 0, count <= remaining else { throw CBORError("a length of \(count) passes the end of the data") }
            defer { position += count }
            return bytes[position..<position + count]
        }

        /// The argument of an initial byte's additional information (0–27); 28–31 are refused.
        mutating func argument(_ info: UInt8) throws(CBORError) -> UInt64 {
            switch info {
            case 0..<24: return UInt64(info)
            case 24: return UInt64(try byte())
            case 25, 26, 27:
                var value: UInt64 = 0
                for byte in try take(1 << Int(info - 24)) { value = value << 8 | UInt64(byte) }
                return value
            case 31: throw CBORError("indefinite lengths are not accepted")
            default: throw CBORError("reserved additional information \(info)")
            }
        }

        /// A length or count, bounded by what remains (each element takes at least one byte).
        mutating func length(_ info: UInt8) throws(CBORError) -> Int {
            let value = try argument(info)
            guard value <= UInt64(remaining) else { throw CBORError("a length of \(value) passes the end of the data") }
            return Int(value)
        }

        mutating func item(depth: Int) throws(CBORError) -> CBOR {
            guard depth <= maxDepth else { throw CBORError("nested more than \(maxDepth) deep") }
            itemsLeft -= 1
            guard itemsLeft >= 0 else { throw CBORError("too many items") }
            let initial = try byte()
            let major = initial >> 5, info = initial & 0x1F
            switch major {
            case 0:
                let value = try argument(info)
                guard value <= UInt64(Int64.max) else { throw CBORError("an integer too large") }
                return .int(Int64(value))
            case 1:
                let value = try argument(info)
                guard value <= UInt64(Int64.max) else { throw CBORError("a negative integer too large") }
                return .int(-1 - Int64(value))
            case 2:
                return .bytes(Array(try take(try length(info))))
            case 3:
                let raw = try take(try length(info))
                guard let text = String(validating: raw, as: UTF8.self) else { throw CBORError("text that is not UTF-8") }
                return .text(text)
            case 4:
                let count = try length(info)
                var items: [CBOR] = []
                items.reserveCapacity(count)
                for _ in 0..<count { items.append(try item(depth: depth + 1)) }
                return .array(items)
            case 5:
                let count = try length(info)
                guard count <= remaining / 2 else { throw CBORError("a map of \(count) pairs passes the end of the data") }
                var pairs: [CBOR.Pair] = []
                pairs.reserveCapacity(count)
                for _ in 0..<count {
                    let key = try item(depth: depth + 1)
                    switch key {
                    case .int, .text: break
                    default: throw CBORError("a map key that is not an integer or text")
                    }
                    guard !pairs.contains(where: { $0.key == key }) else { throw CBORError("a map key written twice") }
                    pairs.append(CBOR.Pair(key, try item(depth: depth + 1)))
                }
                return .map(pairs)
            case 6:
                throw CBORError("tags are not accepted")
            default:
                switch info {
                case 20: return .bool(false)
                case 21: return .bool(true)
                case 22: return .null
                case 23: return .undefined
                case 25, 26, 27: throw CBORError("floating-point numbers are not accepted")
                case 31: throw CBORError("a break outside an indefinite-length item")
                default: throw CBORError("an unassigned simple value")
                }
            }
        }
    }
}
