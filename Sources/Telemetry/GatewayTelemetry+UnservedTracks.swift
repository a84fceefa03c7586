import MediaCore
import Synchronization

/// A track the publisher sends that the stream does not serve: E-RTMP v2 multitrack (§"Multitrack") lets one
/// connection carry several video or audio tracks, and the first of each kind is the stream.
public struct UnservedTrack: Sendable, Hashable, Codable, Comparable {
    /// `video` or `audio`.
    public var kind: String
    /// The multitrack track ID.
    public var track: Int
    /// The track's FourCC as sent (`avc1`, `hvc1`, `av01`, …).
    public var codec: String

    /// A track by kind, ID and codec.
    public init(kind: String, track: Int, codec: String) {
        self.kind = kind
        self.track = track
        self.codec = codec
    }

    /// One sentence for notes, logs and `sluice stats`.
    public var note: String {
        "the publisher's \(kind) track \(track) (\(codec)) is not served: the stream is the first \(kind) track"
    }

    public static func < (a: Self, b: Self) -> Bool { (a.kind, a.track) < (b.kind, b.track) }
}

extension GatewayTelemetry {
    /// A new publisher session of `stream`: the previous session's extra tracks are forgotten.
    public func forgetUnservedTracks(stream: StreamKey) {
        withStream(stream) { $0.unservedTracks = [] }
    }

    /// Notes a track `stream`'s publisher sends beside the served ones; true when it is new for this session.
    @discardableResult
    public func noteUnservedTrack(stream: StreamKey, _ track: UnservedTrack) -> Bool {
        withStream(stream) { $0.unservedTracks.insert(track).inserted }
    }

    /// The tracks `stream`'s publisher sends that are not served, by kind and ID.
    public func unservedTracks(stream: StreamKey) -> [UnservedTrack] {
        state.withLock { t in (t.streams[stream.sourceKey]?.unservedTracks ?? []).sorted() }
    }
}
