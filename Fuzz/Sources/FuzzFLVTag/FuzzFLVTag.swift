import FuzzSupport
import MediaCore
import RTMPWire

/// FLV tags and their audio/video bodies: any bytes parse or throw; what parses serializes back to the same value.
@main enum FuzzFLVTagEntry {
    static func main() { FuzzDriver.run(fuzzFLVTag) }
}

/// One libFuzzer input.
func fuzzFLVTag(_ bytes: [UInt8]) {
    var reader = ByteReader(bytes)
    while reader.remaining > 0, let tag = try? FLVTag.read(from: &reader) {
        var again = ByteReader(tag.serialize())
        precondition((try? FLVTag.read(from: &again)) == tag, "FLV tag round trip changed the tag")
        body(tag.body)
    }
    body(bytes)
}

/// The whole input also goes to the body parsers, as an RTMP audio/video message would.
private func body(_ bytes: [UInt8]) {
    if let video = try? FLVVideoTag.parse(bytes) {
        precondition((try? FLVVideoTag.parse(video.serialize())) == video, "FLV video round trip changed the tag")
    }
    if let audio = try? FLVAudioTag.parse(bytes) {
        precondition((try? FLVAudioTag.parse(audio.serialize())) == audio, "FLV audio round trip changed the tag")
    }
}
