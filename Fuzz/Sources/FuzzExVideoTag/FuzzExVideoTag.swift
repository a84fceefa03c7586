import FuzzSupport
import RTMPWire

/// E-RTMP v2 Enhanced Video (and Audio) bodies: any bytes parse or throw; what parses serializes back to itself.
@main enum FuzzExVideoTagEntry {
    static func main() { FuzzDriver.run(fuzzExVideoTag) }
}

/// One libFuzzer input.
func fuzzExVideoTag(_ bytes: [UInt8]) {
    if let tag = try? ExVideoTag.parse(bytes) {
        precondition((try? ExVideoTag.parse(tag.serialize())) == tag, "E-RTMP video round trip changed the tag")
        _ = tag.tracks.map { "\($0.fourCC)" }
    }
    if let tag = try? ExAudioTag.parse(bytes) {
        precondition((try? ExAudioTag.parse(tag.serialize())) == tag, "E-RTMP audio round trip changed the tag")
    }
}
