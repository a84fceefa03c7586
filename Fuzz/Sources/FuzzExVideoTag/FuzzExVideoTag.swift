import FuzzSupport
import RTMPWire

/// E-RTMP v2 Enhanced Video bodies: any bytes parse or throw; what parses serializes back to the same value.
@main enum FuzzExVideoTagEntry {
    static func main() { FuzzDriver.run(fuzzExVideoTag) }
}

/// One libFuzzer input.
func fuzzExVideoTag(_ bytes: [UInt8]) {
    guard let tag = try? ExVideoTag.parse(bytes) else { return }
    precondition((try? ExVideoTag.parse(tag.serialize())) == tag, "E-RTMP video round trip changed the tag")
    _ = tag.tracks.map { "\($0.fourCC)" }
}
