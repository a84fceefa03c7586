/// E-RTMP v2 "ExAudioTagHeader": the low nibble of the first byte once SoundFormat is 9 (ExHeader).
public enum ExAudioPacketType: UInt8, Sendable, Hashable {
    /// The codec configuration (AudioSpecificConfig for mp4a, OpusHead for Opus).
    case sequenceStart = 0
    /// Coded frames.
    case codedFrames = 1
    /// End of the sequence; no body.
    case sequenceEnd = 2
    /// A channel order and count (and mapping or flags) for multichannel codecs.
    case multichannelConfig = 4
    /// A multitrack wrapper: an AvMultitrackType nibble and the real packet type follow.
    case multitrack = 5
    /// A modifier extension (e.g. a nanosecond timestamp offset) precedes the real packet type.
    case modEx = 7
}
