import MediaCore

/// AMF0 spec §2: reads a sequence of AMF0 values, refusing nesting deeper than `maxDepth`.
public struct AMF0Decoder: Sendable {
    /// Deepest object/array nesting accepted.
    public var maxDepth: Int

    /// Creates a decoder.
    public init(maxDepth: Int = 32) { self.maxDepth = maxDepth }

    /// Decodes every value in `bytes`.
    public func decodeAll(_ bytes: [UInt8]) throws(RTMPWireError) -> [AMF0Value] {
        var reader = ByteReader(bytes)
        var values: [AMF0Value] = []
        while reader.remaining > 0 { values.append(try decode(&reader)) }
        return values
    }

    /// Decodes one value at the reader's position.
    public func decode(_ reader: inout ByteReader) throws(RTMPWireError) -> AMF0Value {
        try value(&reader, depth: 0)
    }

    private func value(_ r: inout ByteReader, depth: Int) throws(RTMPWireError) -> AMF0Value {
        let at = r.offset
        let marker = UInt8(try uint(&r, 1))
        switch marker {
        case 0x00:
            return .number(Double(bitPattern: try uint(&r, 8)))
        case 0x01:
            return .boolean(try uint(&r, 1) != 0)
        case 0x02:
            return .string(try utf8(&r, width: 2))
        case 0x03:
            return .object(try properties(&r, depth: depth + 1))
        case 0x05:
            return .null
        case 0x06:
            return .undefined
        case 0x08:
            _ = try uint(&r, 4)  // Count is advisory; the end marker ends it.
            return .ecmaArray(try properties(&r, depth: depth + 1))
        case 0x0A:
            guard depth + 1 <= maxDepth else { throw .amf0TooDeep(limit: maxDepth) }
            let count = Int(try uint(&r, 4))
            // Every element takes at least one byte, so a larger count is a lie.
            guard count <= r.remaining else { throw .truncated(what: "AMF0 strict array", size: r.remaining) }
            var items: [AMF0Value] = []
            items.reserveCapacity(count)
            for _ in 0..<count { items.append(try value(&r, depth: depth + 1)) }
            return .strictArray(items)
        case 0x0B:
            let ms = Double(bitPattern: try uint(&r, 8))
            let tz = Int16(bitPattern: UInt16(try uint(&r, 2)))
            return .date(millisecondsSince1970: ms, timeZone: tz)
        case 0x0C:
            return .longString(try utf8(&r, width: 4))
        default:
            throw .unsupportedAMF0Marker(marker, offset: at)
        }
    }

    /// Object / ECMA array body: (UTF-8 key, value)* terminated by an empty key and marker 0x09.
    private func properties(_ r: inout ByteReader, depth: Int) throws(RTMPWireError) -> [AMF0Property] {
        guard depth <= maxDepth else { throw .amf0TooDeep(limit: maxDepth) }
        var props: [AMF0Property] = []
        while true {
            let key = try utf8(&r, width: 2)
            if key.isEmpty {
                let at = r.offset
                let end = try uint(&r, 1)
                guard end == 0x09 else { throw .invalidAMF0(reason: "expected object end marker", offset: at) }
                return props
            }
            props.append(AMF0Property(key, try value(&r, depth: depth)))
        }
    }

    private func uint(_ r: inout ByteReader, _ width: Int) throws(RTMPWireError) -> UInt64 {
        try read(&r) { (r: inout ByteReader) throws(ByteReaderError) in try r.readUInt(width: width) }
    }

    private func utf8(_ r: inout ByteReader, width: Int) throws(RTMPWireError) -> String {
        try read(&r) { (r: inout ByteReader) throws(ByteReaderError) in
            let n = Int(try r.readUInt(width: width))
            return String(decoding: try r.read(count: n), as: UTF8.self)
        }
    }

    private func read<T>(
        _ r: inout ByteReader,
        _ body: (inout ByteReader) throws(ByteReaderError) -> T
    )
        throws(RTMPWireError) -> T
    {
        do {
            return try body(&r)
        } catch {
            throw .truncated(what: "AMF0 value", size: r.bytes.count)
        }
    }
}
