import MediaCore
import NIOCore

/// A segment the packager just completed, with what a recorder needs to keep it as HLS VOD on disk: the same CMAF
/// bytes the live playlists serve (checklist F1: a segment is the concatenation of its parts) and its init section.
public struct PackagedSegment: Sendable, Equatable {
    /// Whose stream, and which rendition (`video`, `audio`, a rung such as `480p`).
    public var key: StreamKey
    public var rendition: String
    /// The live stream's epoch (a new one for each stream life: a publish after the grace starts a new recording).
    public var epoch: String
    /// Media sequence number and length on the rendition's timeline.
    public var msn: Int
    public var duration: MediaTime
    /// EXT-X-DISCONTINUITY before it (a publisher reconnect within the grace, or a codec change).
    public var discontinuity: Bool
    /// It starts with a sync sample (a long-GOP passthrough's may not).
    public var independent: Bool
    /// Which init section applies (changes with each publisher session), and its bytes.
    public var initIndex: Int
    public var initSection: [UInt8]
    /// moof + mdat of every part, in order.
    public var data: ByteBuffer
    /// EXT-X-PROGRAM-DATE-TIME of its first sample.
    public var programDateTime: WallTime
    /// The rendition the multivariant lists for the source's video: `video` (the passthrough), or the rung at the
    /// source's size that replaces it (a long-GOP source, the fast-start bridge).
    public var sourceRendition: String = "video"
    /// The live multivariant playlist as served when the segment closed (nil before the stream is playable): its
    /// variant URIs are the rendition names, so it describes a recording laid out the same way.
    public var multivariant: String?

    /// A segment as the packager hands it over (public for the recorder's tests).
    public init(
        key: StreamKey,
        rendition: String,
        epoch: String,
        msn: Int,
        duration: MediaTime,
        discontinuity: Bool,
        independent: Bool,
        initIndex: Int,
        initSection: [UInt8],
        data: ByteBuffer,
        programDateTime: WallTime,
        multivariant: String?
    ) {
        self.key = key
        self.rendition = rendition
        self.epoch = epoch
        self.msn = msn
        self.duration = duration
        self.discontinuity = discontinuity
        self.independent = independent
        self.initIndex = initIndex
        self.initSection = initSection
        self.data = data
        self.programDateTime = programDateTime
        self.multivariant = multivariant
    }
}

/// Where completed segments go (a recorder); called with the stream's state locked, so it must only hand them off.
public typealias PackagedSegmentSink = @Sendable (PackagedSegment) -> Void

/// The packager's own notice that a stream life ended (ENDLIST written), for the same sink owner.
public typealias PackagedStreamEnd = @Sendable (_ key: StreamKey, _ epoch: String) -> Void
