import MediaCore

/// E-RTMP v2 "Enhanced Video" (ExVideoTagHeader + ExVideoTagBody): a video body whose first byte has IsExHeader
/// (bit 7) set, naming its codec by FourCC, optionally wrapped in ModEx and Multitrack.
public struct ExVideoTag: Equatable, Sendable {
    /// One track's share of the packet: its codec, ID and body.
    public struct Track: Equatable, Sendable {
        /// The codec of this track.
        public var fourCC: FourCC
        /// The track ID (0 outside Multitrack).
        public var trackID: UInt8
        /// Composition time offset in milliseconds: the SI24 of avc1/hvc1 CodedFrames, otherwise 0.
        public var compositionTime: Int32
        /// The configuration record, coded frames or AMF0 metadata, as the packet type says.
        public var payload: [UInt8]

        /// Creates a track.
        public init(fourCC: FourCC, trackID: UInt8 = 0, compositionTime: Int32 = 0, payload: [UInt8]) {
            self.fourCC = fourCC
            self.trackID = trackID
            self.compositionTime = compositionTime
            self.payload = payload
        }
    }

    /// Keyframe, inter frame, command...
    public var frameType: ExVideoFrameType
    /// What the tracks carry; never `.multitrack` or `.modEx` (those are unwrapped into the fields below).
    public var packetType: ExVideoPacketType
    /// The Multitrack layout, or nil for a plain single-track packet.
    public var multitrack: AVMultitrackType?
    /// The tracks; empty for a command frame.
    public var tracks: [Track]
    /// The VideoCommand byte of a command frame (0 start seek, 1 end seek).
    public var command: UInt8?
    /// A ModEx TimestampOffsetNano: nanoseconds to add to the message's millisecond timestamp.
    public var timestampOffsetNanoseconds: UInt32?

    /// Creates a tag.
    public init(
        frameType: ExVideoFrameType,
        packetType: ExVideoPacketType,
        multitrack: AVMultitrackType? = nil,
        tracks: [Track],
        command: UInt8? = nil,
        timestampOffsetNanoseconds: UInt32? = nil
    ) {
        self.frameType = frameType
        self.packetType = packetType
        self.multitrack = multitrack
        self.tracks = tracks
        self.command = command
        self.timestampOffsetNanoseconds = timestampOffsetNanoseconds
    }

    /// True when `body` starts with IsExHeader set: an E-RTMP body rather than a classic FLV VIDEODATA.
    public static func isEnhanced(_ body: [UInt8]) -> Bool { body.first.map { $0 & 0x80 != 0 } ?? false }

    /// True for a random access point.
    public var isKeyframe: Bool { frameType == .keyframe || frameType == .generatedKeyframe }

    /// Only avc1/hvc1 CodedFrames carry an explicit composition time.
    static func hasCompositionTime(_ fourCC: FourCC, _ type: ExVideoPacketType) -> Bool {
        type == .codedFrames && (fourCC == .avc1 || fourCC == .hvc1)
    }
}
