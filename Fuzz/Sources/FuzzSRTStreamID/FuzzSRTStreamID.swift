import FuzzSupport
import MediaCore
import SRTWire

/// SRT stream ids: any text parses or throws a reason; a parsed key is always a valid stream key.
@main enum FuzzSRTStreamIDEntry {
    static func main() { FuzzDriver.run(fuzzSRTStreamID) }
}

/// One libFuzzer input, read as UTF-8 (invalid sequences repaired, as libsrt hands us bytes).
func fuzzSRTStreamID(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    do {
        let id = try SRTStreamID(parsing: text)
        precondition(StreamKey(id.key.rawValue) == id.key, "parsed key is not a valid stream key")
        precondition(id.credential.map { !$0.isEmpty } ?? true, "empty credential instead of none")
    } catch {
        precondition(!error.description.isEmpty, "refusal without a reason")
    }
}
