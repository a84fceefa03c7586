import MediaCore

/// ISO/IEC 14496-12 §8.8 (movie fragments): single-track CMAF renditions (an init section and the moof + mdat
/// segments that follow it) joined, without touching a sample, into one fragmented MP4 a download can be: one `moov`
/// with every track (track_IDs renumbered 1…n; `mvex/mehd` and `mvhd` carry the clip's duration) and the fragments
/// interleaved by decode time, each `tfdt` moved so the earliest track starts at zero (§8.8.12), each `mfhd`
/// renumbered (§8.8.5). Sample data offsets stay valid because CMAF fragments address their data from the `moof`
/// (default-base-is-moof, §8.8.7.1) and every box keeps its size.
public enum FragmentedClip {
    /// One rendition: its init section and its segments in order (each one or more moof + mdat pairs).
    public struct Track: Sendable {
        public var initSection: [UInt8]
        public var segments: [[UInt8]]

        /// A track to join.
        public init(initSection: [UInt8], segments: [[UInt8]]) {
            self.initSection = initSection
            self.segments = segments
        }
    }

    /// The joined file and its duration (from the earliest sample to the end of the last one of any track).
    public static func join(_ tracks: [Track]) throws(FMP4Error) -> (bytes: [UInt8], duration: Duration) {
        guard !tracks.isEmpty else { throw .missingBox(path: "trak", in: "clip (no tracks)") }
        var inits: [TrackInit] = []
        var fragments: [Fragment] = []
        for (n, track) in tracks.enumerated() {
            let info = try TrackInit(track.initSection, id: UInt32(n + 1))
            inits.append(info)
            for segment in track.segments {
                fragments += try Fragment.all(in: segment, track: n, defaultDuration: info.defaultDuration)
            }
        }
        // The earliest first decode time of any track is the clip's zero, rescaled into each track's timescale.
        var zero: (time: UInt64, scale: UInt64)?
        for (n, info) in inits.enumerated() {
            guard let first = fragments.first(where: { $0.track == n }) else { continue }
            let t = (time: first.decodeTime, scale: UInt64(info.timescale))
            if let z = zero, !Self.below(t.time, t.scale, z.time, z.scale) { continue }
            zero = t
        }
        let origin = zero ?? (0, 1)
        var end = 0.0
        for i in fragments.indices {
            let scale = UInt64(inits[fragments[i].track].timescale)
            // At most this track's first decode time (the origin is the earliest), so the quotient fits.
            let shift = origin.scale.dividingFullWidth(origin.time.multipliedFullWidth(by: scale)).quotient
            fragments[i].decodeTime -= min(shift, fragments[i].decodeTime)
            end = max(end, (Double(fragments[i].decodeTime) + Double(fragments[i].duration)) / Double(scale))
        }
        guard end < 1e9 else { throw .unsupportedFragment(reason: "a clip of \(end) s") }
        fragments.sort { a, b in
            let (sa, sb) = (UInt64(inits[a.track].timescale), UInt64(inits[b.track].timescale))
            if Self.below(a.decodeTime, sa, b.decodeTime, sb) { return true }
            return !Self.below(b.decodeTime, sb, a.decodeTime, sa) && a.track < b.track
        }
        var out = ByteWriter(capacity: fragments.reduce(4096) { $0 + $1.bytes.count })
        try writeHeader(into: &out, inits: inits, seconds: end)
        for (sequence, var f) in fragments.enumerated() {
            f.patch(sequence: UInt32(sequence + 1), trackID: UInt32(f.track + 1))
            out.write(f.bytes)
        }
        return (out.bytes, .nanoseconds(Int64((end * 1e9).rounded())))
    }

    /// `ftyp` and `moov` (mvhd, every trak, mvex with mehd and every trex) for a clip of `seconds`.
    private static func writeHeader(into out: inout ByteWriter, inits: [TrackInit], seconds: Double) throws(FMP4Error) {
        let first = inits[0]
        out.write(first.ftyp)
        guard first.mvhd.count > 8 else { throw .truncatedFields(type: "mvhd", needed: 1, available: 0) }
        let version = first.mvhd[8]
        let timescaleAt = 8 + 4 + (version == 1 ? 16 : 8)
        let durationWidth = version == 1 ? 8 : 4
        guard first.mvhd.count >= timescaleAt + 4 + durationWidth + 4 else {
            throw .truncatedFields(type: "mvhd", needed: timescaleAt + 8 + durationWidth, available: first.mvhd.count)
        }
        let movieScale = first.mvhd[timescaleAt..<timescaleAt + 4].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let duration = UInt64((seconds * Double(movieScale)).rounded(.up))
        var mvhd = ByteWriter(capacity: first.mvhd.count)
        mvhd.write(first.mvhd)
        mvhd.patchUInt(
            min(duration, version == 1 ? .max : UInt64(UInt32.max)),
            width: durationWidth,
            at: timescaleAt + 4
        )
        mvhd.patchUInt(UInt64(inits.count + 1), width: 4, at: mvhd.count - 4)  // next_track_ID
        out.box("moov") { moov in
            moov.write(mvhd.bytes)
            for t in inits { moov.write(t.trak) }
            moov.box("mvex") { mvex in
                mvex.fullBox("mehd", version: 1) { $0.writeUInt64(duration) }
                for t in inits { mvex.write(t.trex) }
            }
        }
    }

    /// a / scaleA < b / scaleB, exactly (128-bit products).
    static func below(_ a: UInt64, _ scaleA: UInt64, _ b: UInt64, _ scaleB: UInt64) -> Bool {
        let x = a.multipliedFullWidth(by: scaleB)
        let y = b.multipliedFullWidth(by: scaleA)
        return (x.high, x.low) < (y.high, y.low)
    }
}
