import MediaCore
import NIOCore

/// A part that players can fetch.
struct PublishedPart: Sendable {
    /// Duration in track ticks.
    var duration: Int64
    /// Starts with a sync sample.
    var independent: Bool
    /// moof + mdat, written once; every response shares this storage.
    var buffer: ByteBuffer
    /// When the part was listed (the bench measures delivery from here).
    var published: ContinuousClock.Instant

    /// The bytes as an array (a copy, for tests and checks).
    var bytes: [UInt8] { Array(buffer.readableBytesView) }
}

/// A segment as published: its parts, and whether it is complete.
struct PublishedSegment: Sendable {
    /// Media sequence number.
    var msn: Int
    /// First sample's decode time, track ticks.
    var startDTS: Int64
    /// Parts so far.
    var parts: [PublishedPart] = []
    /// True once the next segment started (or the stream ended).
    var complete = false
    /// EXT-X-DISCONTINUITY before it.
    var discontinuity: Bool
    /// Session index whose init section applies.
    var initIndex: Int
    /// Program date time of its first sample.
    var programDateTime: WallTime
    /// Ticks per second of its samples (an audio rate change starts segments on a new scale).
    var timescale: Int32
    /// A placeholder for media this rendition never got, so MSNs stay aligned with the others (EXT-X-GAP).
    var gapDuration: Int64?

    /// Ticks the playlist's EXTINF leaves out of `duration`: set on a segment closed by the first part of a new init
    /// section (`PublishedRendition.closeOpenSegment(nextInit:)`), never changed after.
    var declaredShortBy: Int64 = 0

    /// Sum of part durations (or the gap's length), track ticks.
    var duration: Int64 { gapDuration ?? parts.reduce(0) { $0 + $1.duration } }

    /// The EXTINF duration, track ticks.
    var declaredDuration: Int64 { duration - declaredShortBy }

    /// The concatenation of its parts, joined once when the segment completes.
    var joined: ByteBuffer?

    /// The segment's bytes: the concatenation of its parts (checklist F1).
    var buffer: ByteBuffer {
        if let joined { return joined }
        var out = ByteBuffer()
        out.reserveCapacity(parts.reduce(0) { $0 + $1.buffer.readableBytes })
        for p in parts { out.writeImmutableBuffer(p.buffer) }
        return out
    }

    /// The same as an array (a copy, for tests and checks).
    var bytes: [UInt8] { Array(buffer.readableBytesView) }

    /// When part `part` was listed, or for the whole segment (nil) its last part: where the deliver hop starts.
    func published(part: Int?) -> ContinuousClock.Instant? {
        guard let part else { return parts.last?.published }
        return part < parts.count ? parts[part].published : nil
    }
}
