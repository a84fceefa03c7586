/// AMF0 spec §2: the values RTMP commands and metadata are written in.
public enum AMF0Value: Equatable, Sendable {
    /// §2.2 number marker 0x00: IEEE-754 double.
    case number(Double)
    /// §2.3 boolean marker 0x01.
    case boolean(Bool)
    /// §2.4 string marker 0x02 (UTF-8, up to 65535 bytes).
    case string(String)
    /// §2.5 object marker 0x03: key/value pairs in wire order.
    case object([AMF0Property])
    /// §2.7 null marker 0x05.
    case null
    /// §2.8 undefined marker 0x06.
    case undefined
    /// §2.10 ECMA array marker 0x08: associative pairs in wire order.
    case ecmaArray([AMF0Property])
    /// §2.12 strict array marker 0x0A.
    case strictArray([AMF0Value])
    /// §2.13 date marker 0x0B: milliseconds since the epoch and a (reserved) time zone.
    case date(millisecondsSince1970: Double, timeZone: Int16)
    /// §2.14 long string marker 0x0C (UTF-8, up to 2^32-1 bytes).
    case longString(String)

    /// The number, if this is one.
    public var number: Double? { if case .number(let n) = self { n } else { nil } }
    /// The text of a string or long string.
    public var string: String? {
        switch self {
        case .string(let s), .longString(let s): s
        default: nil
        }
    }
    /// The boolean, if this is one.
    public var boolean: Bool? { if case .boolean(let b) = self { b } else { nil } }
    /// The pairs of an object or ECMA array.
    public var properties: [AMF0Property]? {
        switch self {
        case .object(let p), .ecmaArray(let p): p
        default: nil
        }
    }

    /// The value under `key` in an object or ECMA array (first match).
    public subscript(key: String) -> AMF0Value? { properties?.first { $0.key == key }?.value }
}

/// One key/value pair of an AMF0 object or ECMA array.
public struct AMF0Property: Equatable, Sendable {
    /// The property name.
    public var key: String
    /// The property value.
    public var value: AMF0Value

    /// Creates a pair.
    public init(_ key: String, _ value: AMF0Value) {
        self.key = key
        self.value = value
    }
}
