import MediaCore

/// AMF0 spec §2: writes AMF0 values (the inverse of `AMF0Decoder`).
public enum AMF0Encoder {
    /// Encodes `values` back to back.
    public static func encode(_ values: [AMF0Value]) -> [UInt8] {
        var w = ByteWriter(capacity: 128)
        for v in values { encode(v, into: &w) }
        return w.bytes
    }

    /// Appends one value.
    public static func encode(_ value: AMF0Value, into w: inout ByteWriter) {
        switch value {
        case .number(let n):
            w.writeUInt8(0x00)
            w.writeUInt64(n.bitPattern)
        case .boolean(let b):
            w.writeUInt8(0x01)
            w.writeUInt8(b ? 1 : 0)
        case .string(let s):
            let bytes = Array(s.utf8)
            if bytes.count > 0xFFFF {
                // Too long for a short string: the long form keeps the text intact.
                w.writeUInt8(0x0C)
                w.writeUInt32(UInt32(bytes.count))
            } else {
                w.writeUInt8(0x02)
                w.writeUInt16(UInt16(bytes.count))
            }
            w.write(bytes)
        case .object(let props):
            w.writeUInt8(0x03)
            properties(props, into: &w)
        case .null:
            w.writeUInt8(0x05)
        case .undefined:
            w.writeUInt8(0x06)
        case .ecmaArray(let props):
            w.writeUInt8(0x08)
            w.writeUInt32(UInt32(props.count))
            properties(props, into: &w)
        case .strictArray(let items):
            w.writeUInt8(0x0A)
            w.writeUInt32(UInt32(items.count))
            for item in items { encode(item, into: &w) }
        case .date(let ms, let tz):
            w.writeUInt8(0x0B)
            w.writeUInt64(ms.bitPattern)
            w.writeUInt16(UInt16(bitPattern: tz))
        case .longString(let s):
            let bytes = Array(s.utf8)
            w.writeUInt8(0x0C)
            w.writeUInt32(UInt32(bytes.count))
            w.write(bytes)
        }
    }

    private static func properties(_ props: [AMF0Property], into w: inout ByteWriter) {
        for p in props {
            let key = Array(p.key.utf8.prefix(0xFFFF))
            w.writeUInt16(UInt16(key.count))
            w.write(key)
            encode(p.value, into: &w)
        }
        w.write([0x00, 0x00, 0x09])
    }
}
