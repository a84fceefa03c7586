import MediaCore
import RTMPWire
import TestSupport
import Testing

/// AMF0 spec §2: one golden table drives decoding and encoding.
struct AMF0Tests {
    /// One value and its exact bytes.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var value: AMF0Value
        var testDescription: String { name }
    }

    static let all: [Case] = [
        Case(name: "number 1.0", bytes: [0x00, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0], value: .number(1)),
        Case(name: "number -2.5", bytes: [0x00, 0xC0, 0x04, 0, 0, 0, 0, 0, 0], value: .number(-2.5)),
        Case(name: "boolean true", bytes: [0x01, 0x01], value: .boolean(true)),
        Case(name: "boolean false", bytes: [0x01, 0x00], value: .boolean(false)),
        Case(name: "string", bytes: [0x02, 0x00, 0x04] + Array("live".utf8), value: .string("live")),
        Case(name: "empty string", bytes: [0x02, 0x00, 0x00], value: .string("")),
        Case(name: "UTF-8 string", bytes: [0x02, 0x00, 0x02, 0xC3, 0xA9], value: .string("é")),
        Case(name: "null", bytes: [0x05], value: .null),
        Case(name: "undefined", bytes: [0x06], value: .undefined),
        Case(
            name: "object keeps wire order",
            bytes: [0x03, 0x00, 0x03] + Array("app".utf8) + [0x02, 0x00, 0x04] + Array("live".utf8)
                + [0x00, 0x01, 0x61, 0x05, 0x00, 0x00, 0x09],
            value: .object([AMF0Property("app", .string("live")), AMF0Property("a", .null)])
        ),
        Case(name: "empty object", bytes: [0x03, 0x00, 0x00, 0x09], value: .object([])),
        Case(
            name: "ECMA array",
            bytes: [0x08, 0, 0, 0, 1, 0x00, 0x01, 0x77, 0x00, 0x40, 0x84, 0, 0, 0, 0, 0, 0, 0x00, 0x00, 0x09],
            value: .ecmaArray([AMF0Property("w", .number(640))])
        ),
        Case(
            name: "strict array",
            bytes: [0x0A, 0, 0, 0, 2, 0x05, 0x01, 0x01],
            value: .strictArray([.null, .boolean(true)])
        ),
        Case(
            name: "date",
            bytes: [0x0B, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFE],
            value: .date(millisecondsSince1970: 1, timeZone: -2)
        ),
        Case(name: "long string", bytes: [0x0C, 0, 0, 0, 2, 0x68, 0x69], value: .longString("hi")),
        Case(
            name: "nested object",
            bytes: [
                0x03, 0x00, 0x01, 0x6F, 0x03, 0x00, 0x01, 0x6E, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x00, 0x09, 0x00,
                0x00, 0x09,
            ],
            value: .object([AMF0Property("o", .object([AMF0Property("n", .number(0))]))])
        ),
    ]

    @Test(arguments: all)
    func decodes(_ c: Case) throws {
        #expect(try AMF0Decoder().decodeAll(c.bytes) == [c.value])
    }

    @Test(arguments: all)
    func encodes(_ c: Case) {
        #expect(AMF0Encoder.encode([c.value]) == c.bytes)
    }

    @Test(arguments: all)
    func everyTruncationIsATypedError(_ c: Case) {
        for n in 1..<c.bytes.count {
            #expect(throws: RTMPWireError.self) { try AMF0Decoder().decodeAll(Array(c.bytes[..<n])) }
        }
    }

    @Test(arguments: [0x04, 0x07, 0x0D, 0x0F, 0x10, 0x11, 0x42] as [UInt8])
    func unsupportedMarkersAreRefused(_ marker: UInt8) {
        #expect(throws: RTMPWireError.unsupportedAMF0Marker(marker, offset: 0)) {
            try AMF0Decoder().decodeAll([marker, 0, 0])
        }
    }

    @Test func nestingBeyondTheDepthLimitIsRefused() throws {
        var value = AMF0Value.null
        for _ in 0..<5 { value = .object([AMF0Property("x", value)]) }
        let bytes = AMF0Encoder.encode([value])
        #expect(try AMF0Decoder(maxDepth: 5).decodeAll(bytes) == [value])
        #expect(throws: RTMPWireError.amf0TooDeep(limit: 4)) { try AMF0Decoder(maxDepth: 4).decodeAll(bytes) }
        let arrays = [UInt8](repeating: 0x0A, count: 1).flatMap { _ in
            (0..<100).flatMap { _ in [0x0A, 0, 0, 0, 1] as [UInt8] }
        }
        #expect(throws: RTMPWireError.amf0TooDeep(limit: 32)) { try AMF0Decoder().decodeAll(arrays + [0x05]) }
    }

    @Test func lyingStrictArrayCountIsATypedError() {
        #expect(throws: RTMPWireError.self) { try AMF0Decoder().decodeAll([0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0x05]) }
    }

    static func randomValue(_ rng: inout SeededRandom, depth: Int) -> AMF0Value {
        let pick = Int.random(in: 0..<(depth > 3 ? 7 : 10), using: &rng)
        let word = String((0..<Int.random(in: 0...8, using: &rng)).map { _ in "abcxyzé_1".randomElement(using: &rng)! })
        switch pick {
        case 0: return .number(Double(Int.random(in: -100_000...100_000, using: &rng)) / 8)
        case 1: return .boolean(Bool.random(using: &rng))
        case 2: return .string(word)
        case 3: return .null
        case 4: return .undefined
        case 5: return .date(millisecondsSince1970: Double(UInt32.random(in: 0...UInt32.max, using: &rng)), timeZone: 0)
        case 6: return .longString(word)
        case 7:
            return .strictArray(
                (0..<Int.random(in: 0...4, using: &rng)).map { _ in randomValue(&rng, depth: depth + 1) }
            )
        default:
            let props = (0..<Int.random(in: 0...4, using: &rng)).map { i in
                AMF0Property("k\(i)\(word)", randomValue(&rng, depth: depth + 1))
            }
            return pick == 8 ? .object(props) : .ecmaArray(props)
        }
    }

    @Test(arguments: 0..<300 as Range<UInt64>)
    func randomValuesRoundTrip(_ seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let values = (0..<Int.random(in: 1...5, using: &rng)).map { _ in Self.randomValue(&rng, depth: 0) }
        #expect(try AMF0Decoder().decodeAll(AMF0Encoder.encode(values)) == values)
    }

    @Test(arguments: 0..<300 as Range<UInt64>)
    func randomAndMutatedBytesOnlyYieldTypedErrors(_ seed: UInt64) throws {
        var rng = SeededRandom(seed: seed ^ 0xA3F0)
        var bytes = AMF0Encoder.encode((0..<3).map { _ in Self.randomValue(&rng, depth: 0) })
        if seed % 3 == 0 {
            bytes = rng.bytes(Int.random(in: 0...200, using: &rng))
        } else {
            for _ in 0..<Int.random(in: 1...4, using: &rng) where !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
        }
        let result = Result { () throws(RTMPWireError) in try AMF0Decoder().decodeAll(bytes) }
        if case .success(let values) = result {
            // Whatever decoded must re-encode to something the decoder reads the same way.
            #expect(try AMF0Decoder().decodeAll(AMF0Encoder.encode(values)).count == values.count)
        }
    }
}
