import HLSPlaylist
import MediaCore
import NIOCore

/// Everything published for one rendition (`video` or `audio`) of a stream, and its playlist renderer.
struct PublishedRendition: Sendable {
    /// `video` or `audio`; also the playlist file stem.
    let name: String
    /// Timescale of segments appended from now on.
    var timescale: Int32
    /// Init sections by id (`init-ID.mp4`); the bytes under an id never change.
    var initSections: [Int: [UInt8]] = [:]
    /// The init section id each session's segments list: a session whose init section is byte for byte the newest
    /// one keeps its id, so a player goes on with the init section it holds (hls.js, taking a new timeline's first part
    /// as the continuation of the old, skipped loading a new one); other bytes always get a new id.
    private var sessionInits: [Int: Int] = [:]
    private var newestInit: Int?
    /// Retained segments, oldest first.
    var segments: [PublishedSegment] = []
    /// The first segment's MSN: Chromium's native HLS treats MSN 0 as "unset" and skips that segment.
    static let firstMSN = 1
    /// MSN of the stream's first segment: `firstMSN`, or past another node's when the stream continues its numbering.
    let startMSN: Int
    /// MSN the next segment gets.
    var nextMSN: Int
    /// Discontinuities that slid out of the playlist window (or were counted on another node before it).
    var discontinuitySequence: Int
    /// Bits of complete segments in the window, for BANDWIDTH.
    var peakBitRate = 0
    /// Next segment begins with EXT-X-DISCONTINUITY.
    var pendingDiscontinuity = false
    /// While set, a part that ends its segment leaves it open, and the next part (the next timeline's first) closes
    /// it: no playlist then lists a finished segment with nothing after it before a discontinuity, which hls.js takes
    /// for the next segment of the old timeline and appends the new one's media with the old init section.
    var defersClose = false
    /// False once any segment started without a sync sample (a GOP longer than TARGETDURATION forced a cut).
    var everySegmentIndependent = true

    /// A rendition with nothing published; `continuing` another node's numbering, its first segment is a
    /// discontinuity numbered after that node's.
    init(name: String, timescale: Int32, continuing: StreamContinuation? = nil) {
        self.name = name
        self.timescale = timescale
        startMSN = continuing?.firstMSN ?? Self.firstMSN
        nextMSN = startMSN
        discontinuitySequence = continuing?.discontinuitySequence ?? 0
        pendingDiscontinuity = continuing != nil
    }

    /// The discontinuity sequence number of the newest segment (the next node's starting point).
    var newestDiscontinuity: Int { discontinuitySequence + segments.filter(\.discontinuity).count }

    /// MSN and index of the newest part, if any.
    var lastPart: (msn: Int, part: Int)? {
        guard let s = segments.last(where: { !$0.parts.isEmpty }) else { return nil }
        return (s.msn, s.parts.count - 1)
    }

    /// MSN of the newest complete segment.
    var lastCompleteMSN: Int? { segments.last(where: { $0.complete })?.msn }
    /// Samples and ticks published so far, for a frame rate when the codec does not state one.
    private var samplesSeen = 0
    private var ticksSeen: Int64 = 0
    /// Frames per second over the first two seconds or more, fixed then (FRAME-RATE must not wander between fetches).
    private(set) var measuredFrameRate: Double?

    /// Installs session `session`'s init section.
    mutating func installInit(_ bytes: [UInt8], session: Int) {
        if let id = sessionInits[session], initSections[id] == bytes { return }
        if let id = newestInit, initSections[id] == bytes {
            sessionInits[session] = id
            return
        }
        let id = max(session, (initSections.keys.max() ?? -1) + 1)
        initSections[id] = bytes
        sessionInits[session] = id
        newestInit = id
    }

    /// The init section id session `session`'s segments list.
    func initID(session: Int) -> Int { sessionInits[session] ?? session }

    /// Appends a muxed part of session `session`, opening a segment first when the part starts one; true when it is
    /// listed INDEPENDENT.
    @discardableResult
    mutating func append(
        _ part: MuxedPart,
        session: Int,
        programDateTime: WallTime,
        now: ContinuousClock.Instant
    ) -> Bool {
        let initIndex = initID(session: session)
        // A segment opened here (at the muxer's cut, or after a flush) starts independent when its sample does.
        let opensSegment = part.startsSegment || pendingDiscontinuity || segments.last.map({ $0.complete }) ?? true
        let independent = part.isIndependent(opensSegment: opensSegment)
        if opensSegment {
            closeOpenSegment(nextInit: initIndex)
            if !independent { everySegmentIndependent = false }
            segments.append(
                PublishedSegment(
                    msn: nextMSN,
                    startDTS: part.startDTS,
                    discontinuity: pendingDiscontinuity && nextMSN > PublishedRendition.firstMSN,
                    initIndex: initIndex,
                    programDateTime: programDateTime,
                    timescale: timescale
                )
            )
            pendingDiscontinuity = false
            nextMSN += 1
        }
        segments[segments.count - 1].parts.append(
            PublishedPart(
                duration: part.duration,
                independent: independent,
                buffer: ByteBuffer(bytes: part.bytes),
                published: now
            )
        )
        samplesSeen += part.sampleCount
        ticksSeen += part.duration
        if part.endsSegment && !defersClose { closeOpenSegment() }
        return independent
    }

    /// How much shorter than its media the segment before a new init section is declared: more than the microsecond
    /// Chromium's buffered ranges round off, so the buffered end reaches the next segment's listed start.
    static let shortDeclaredBeforeNewInit = MediaTime(value: 1, timescale: 1_000)

    /// Marks the open segment complete and updates the bit-rate peak. When `nextInit`, the next segment's init section,
    /// is another, its EXTINF is declared `shortDeclaredBeforeNewInit` short of its parts. hls.js 1.6, loading
    /// parts, looks for the segment at the buffered end; when that falls a microsecond short of the listed boundary it
    /// finds the old segment, whose init section it has, and takes the next timeline's first part as its continuation
    /// without loading the new init section ("Found no media in fragment", a stall of 1-2 s at every switch).
    mutating func closeOpenSegment(nextInit: Int? = nil) {
        guard let last = segments.indices.last, !segments[last].complete, !segments[last].parts.isEmpty else { return }
        segments[last].complete = true
        if let nextInit, nextInit != segments[last].initIndex {
            let ticks = Self.shortDeclaredBeforeNewInit.converted(to: segments[last].timescale).value
            segments[last].declaredShortBy = min(ticks, segments[last].duration / 2)
        }
        segments[last].joined = segments[last].buffer
        // Measured over the first segment (fast start serves the multivariant right after it).
        if measuredFrameRate == nil, ticksSeen * 10 >= 9 * Int64(timescale) {
            measuredFrameRate = Self.snappedFrameRate(Double(samplesSeen) * Double(timescale) / Double(ticksSeen))
        }
        let seconds = Double(segments[last].duration) / Double(segments[last].timescale)
        if seconds > 0.5 {
            let bits = Double(segments[last].parts.reduce(0) { $0 + $1.buffer.readableBytes }) * 8
            peakBitRate = max(peakBitRate, Int(bits / seconds))
        }
    }

    /// Fills MSNs up to `target` with EXT-X-GAP segments whose lengths come from another rendition's segments.
    mutating func fillGaps(
        upTo target: Int,
        lengths: [Int: MediaTime],
        session: Int,
        programDateTime: (MediaTime) -> WallTime
    ) {
        let initIndex = initID(session: session)
        if nextMSN < target {
            closeOpenSegment(nextInit: initIndex)
        }
        while nextMSN < target {
            let start =
                segments.last.map { MediaTime(value: $0.startDTS + $0.duration, timescale: $0.timescale) }
                ?? .zero(timescale: timescale)
            let length = (lengths[nextMSN] ?? .zero(timescale: timescale)).converted(to: timescale).value
            // A new timeline's DISCONTINUITY waits for its first real segment: hls.js 1.6 counted a GAP's DISCONTINUITY
            // and the next one as one, and decoded the next timeline with the old init section.
            var gap = PublishedSegment(
                msn: nextMSN,
                startDTS: start.converted(to: timescale).value,
                discontinuity: false,
                initIndex: initIndex,
                programDateTime: programDateTime(start),
                timescale: timescale
            )
            gap.complete = true
            gap.gapDuration = max(1, length)
            segments.append(gap)
            nextMSN += 1
        }
    }

    /// Drops segments beyond the retention, counting discontinuities that slide out.
    mutating func trim(window: Int, retainedAfter: Int) {
        let complete = segments.filter(\.complete).count
        let excess = complete - window - retainedAfter
        guard excess > 0 else { return }
        discontinuitySequence += segments.prefix(excess).filter(\.discontinuity).count
        segments.removeFirst(excess)
    }

    /// Mean bit rate over the complete segments retained.
    var averageBitRate: Int {
        let done = segments.filter { $0.complete && $0.gapDuration == nil }
        let seconds = done.reduce(0.0) { $0 + Double($1.duration) / Double($1.timescale) }
        guard seconds > 0 else { return 0 }
        let bits = done.reduce(0) { $0 + $1.parts.reduce(0) { $0 + $1.buffer.readableBytes } } * 8
        return Int(Double(bits) / seconds)
    }
}
