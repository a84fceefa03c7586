import MediaCore

/// E-RTMP v2 "Enhanced Audio" (ExAudioTagHeader + ExAudioTagBody): an audio body whose SoundFormat nibble is 9,
/// naming its codec by FourCC (`mp4a`, `Opus`...), optionally wrapped in ModEx and Multitrack.
public struct ExAudioTag: Equatable, Sendable {
    /// One track's share of the packet.
    public struct Track: Equatable, Sendable {
        /// The codec of this track.
        public var fourCC: FourCC
        /// The track ID (0 outside Multitrack).
        public var trackID: UInt8
        /// The configuration, coded frames or channel configuration, as the packet type says.
        public var payload: [UInt8]

        /// Creates a track.
        public init(fourCC: FourCC, trackID: UInt8 = 0, payload: [UInt8]) {
            self.fourCC = fourCC
            self.trackID = trackID
            self.payload = payload
        }
    }

    /// SoundFormat 9: the ExHeader marker in the high nibble.
    static let exHeaderFormat: UInt8 = 9

    /// What the tracks carry; never `.multitrack` or `.modEx`.
    public var packetType: ExAudioPacketType
    /// The Multitrack layout, or nil for a plain single-track packet.
    public var multitrack: AVMultitrackType?
    /// The tracks.
    public var tracks: [Track]
    /// A ModEx TimestampOffsetNano: nanoseconds to add to the message's millisecond timestamp.
    public var timestampOffsetNanoseconds: UInt32?

    /// Creates a tag.
    public init(
        packetType: ExAudioPacketType,
        multitrack: AVMultitrackType? = nil,
        tracks: [Track],
        timestampOffsetNanoseconds: UInt32? = nil
    ) {
        self.packetType = packetType
        self.multitrack = multitrack
        self.tracks = tracks
        self.timestampOffsetNanoseconds = timestampOffsetNanoseconds
    }

    /// True when `body` starts with SoundFormat 9: an E-RTMP body rather than a classic FLV AUDIODATA.
    public static func isEnhanced(_ body: [UInt8]) -> Bool { body.first.map { $0 >> 4 == exHeaderFormat } ?? false }
}
