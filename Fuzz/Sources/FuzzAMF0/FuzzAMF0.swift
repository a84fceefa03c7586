import FuzzSupport
import RTMPWire

/// AMF0 decoder: any bytes decode or throw; what decodes re-encodes to bytes that decode to the same bytes.
@main enum FuzzAMF0Entry {
    static func main() { FuzzDriver.run(fuzzAMF0) }
}

/// One libFuzzer input.
func fuzzAMF0(_ bytes: [UInt8]) {
    guard let values = try? AMF0Decoder(maxDepth: 32).decodeAll(bytes) else { return }
    // Byte comparison, not value equality: NaN numbers are never equal to themselves.
    let encoded = AMF0Encoder.encode(values)
    guard let again = try? AMF0Decoder(maxDepth: 32).decodeAll(encoded) else {
        fatalError("re-encoded AMF0 failed to decode")
    }
    precondition(AMF0Encoder.encode(again) == encoded, "AMF0 round trip changed the bytes")
}
