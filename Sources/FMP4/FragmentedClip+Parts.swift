import MediaCore

/// The pieces `FragmentedClip` moves: what it keeps of each init section, and each fragment with where its ids and
/// decode time sit.
extension FragmentedClip {
    /// A single-track init section (§8.2, §8.3, §8.8.3): its `ftyp`, `mvhd`, `trak` and `trex` with the track_ID
    /// already renumbered, and the track's timescale (`mdhd`, §8.4.2) and default sample duration (`trex`).
    struct TrackInit {
        var ftyp: [UInt8]
        var mvhd: [UInt8]
        var trak: [UInt8]
        var trex: [UInt8]
        var timescale: UInt32
        var defaultDuration: UInt32

        init(_ section: [UInt8], id: UInt32) throws(FMP4Error) {
            var bytes = section
            let boxes = try MP4Box.parse(bytes)
            let what = "init section"
            guard let ftyp = boxes.first(where: { $0.type == "ftyp" }) else {
                throw .missingBox(path: "ftyp", in: what)
            }
            guard let moov = boxes.first(where: { $0.type == "moov" }) else {
                throw .missingBox(path: "moov", in: what)
            }
            guard let mvhd = moov.child("mvhd") else { throw .missingBox(path: "moov/mvhd", in: what) }
            guard let trak = moov.child("trak") else { throw .missingBox(path: "moov/trak", in: what) }
            guard let tkhd = trak.child("tkhd") else { throw .missingBox(path: "moov/trak/tkhd", in: what) }
            guard let mdhd = trak.find("mdia/mdhd") else { throw .missingBox(path: "moov/trak/mdia/mdhd", in: what) }
            guard let trex = moov.find("mvex/trex") else { throw .missingBox(path: "moov/mvex/trex", in: what) }
            let idAt = try Self.field(tkhd, at: { $0 == 1 ? 20 : 12 }, width: 4)
            bytes.replaceSubrange(idAt..<idAt + 4, with: Self.be32(id))
            let trexID = try Self.field(trex, at: { _ in 4 }, width: 20)
            bytes.replaceSubrange(trexID..<trexID + 4, with: Self.be32(id))
            let scaleAt = try Self.field(mdhd, at: { $0 == 1 ? 20 : 12 }, width: 4)
            timescale = UInt32(Self.read(bytes, at: scaleAt, width: 4))
            guard timescale > 0 else { throw .truncatedFields(type: "mdhd", needed: 1, available: 0) }
            defaultDuration = UInt32(Self.read(bytes, at: trexID + 8, width: 4))
            self.ftyp = Array(bytes[ftyp.start..<ftyp.payload.endIndex])
            self.mvhd = Array(bytes[mvhd.start..<mvhd.payload.endIndex])
            self.trak = Array(bytes[trak.start..<trak.payload.endIndex])
            self.trex = Array(bytes[trex.start..<trex.payload.endIndex])
        }

        /// Absolute index of a full box's field (offset from the payload start given the version) with `width` bytes
        /// checked to be there.
        static func field(_ box: MP4Box, at offset: (UInt8) -> Int, width: Int) throws(FMP4Error) -> Int {
            guard let version = box.payload.first else {
                throw .truncatedFields(type: box.type, needed: 4, available: 0)
            }
            let at = offset(version)
            guard box.payload.count >= at + width else {
                throw .truncatedFields(type: box.type, needed: at + width, available: box.payload.count)
            }
            return box.payload.startIndex + at
        }

        static func be32(_ v: UInt32) -> [UInt8] {
            [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        }

        static func read(_ bytes: [UInt8], at i: Int, width: Int) -> UInt64 {
            bytes[i..<i + width].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
    }

    /// One moof and the mdat after it, copied, with where `mfhd`'s sequence number, `tfhd`'s track_ID and `tfdt`'s
    /// decode time sit in the copy, and the fragment's duration summed from `trun` (§8.8.8).
    struct Fragment {
        var track: Int
        var bytes: [UInt8]
        var decodeTime: UInt64
        var duration: UInt64
        var sequenceAt: Int
        var trackIDAt: Int
        var decodeTimeAt: Int
        var decodeTimeWidth: Int

        /// Every fragment of a segment (a segment of LL-HLS parts has one per part).
        static func all(in segment: [UInt8], track: Int, defaultDuration: UInt32) throws(FMP4Error) -> [Fragment] {
            let boxes = try MP4Box.parse(segment)
            var out: [Fragment] = []
            for (i, moof) in boxes.enumerated() where moof.type == "moof" {
                guard let mdat = boxes[(i + 1)...].first(where: { $0.type == "mdat" }) else {
                    throw .missingBox(path: "mdat", in: "segment (after a moof)")
                }
                out.append(
                    try Fragment(
                        moof: moof,
                        mdatEnd: mdat.payload.endIndex,
                        in: segment,
                        track: track,
                        defaultDuration: defaultDuration
                    )
                )
            }
            return out
        }

        init(moof: MP4Box, mdatEnd: Int, in segment: [UInt8], track: Int, defaultDuration: UInt32) throws(FMP4Error) {
            let what = "segment"
            guard let mfhd = moof.child("mfhd") else { throw .missingBox(path: "moof/mfhd", in: what) }
            let trafs = moof.children("traf")
            guard trafs.count == 1, let traf = trafs.first else {
                throw .unsupportedFragment(reason: "\(trafs.count) traf boxes in a moof (one track per rendition)")
            }
            guard let tfhd = traf.child("tfhd") else { throw .missingBox(path: "moof/traf/tfhd", in: what) }
            guard let tfdt = traf.child("tfdt") else { throw .missingBox(path: "moof/traf/tfdt", in: what) }
            let flagsAt = try TrackInit.field(tfhd, at: { _ in 0 }, width: 8)
            let tfhdFlags = TrackInit.read(segment, at: flagsAt, width: 4) & 0xFF_FFFF
            // An absolute base offset would point into the source file, not the clip.
            guard tfhdFlags & 0x01 == 0 else { throw .unsupportedFragment(reason: "tfhd base-data-offset-present") }
            var fallback = UInt64(defaultDuration)
            if tfhdFlags & 0x08 != 0 {
                let at = 8 + (tfhdFlags & 0x02 != 0 ? 4 : 0)
                let i = try TrackInit.field(tfhd, at: { _ in at }, width: 4)
                fallback = TrackInit.read(segment, at: i, width: 4)
            }
            var duration: UInt64 = 0
            for trun in traf.children("trun") {
                let (sum, overflow) = duration.addingReportingOverflow(
                    try Self.duration(of: trun, in: segment, fallback: fallback)
                )
                guard !overflow else { throw .unsupportedFragment(reason: "trun durations overflow") }
                duration = sum
            }
            let base = moof.start
            self.track = track
            bytes = Array(segment[base..<mdatEnd])
            self.duration = duration
            sequenceAt = try TrackInit.field(mfhd, at: { _ in 4 }, width: 4) - base
            trackIDAt = flagsAt + 4 - base
            decodeTimeWidth = tfdt.payload.first == 1 ? 8 : 4
            decodeTimeAt = try TrackInit.field(tfdt, at: { _ in 4 }, width: decodeTimeWidth) - base
            decodeTime = TrackInit.read(bytes, at: decodeTimeAt, width: decodeTimeWidth)
        }

        /// §8.8.8: the sum of a trun's sample durations (each sample's, or the default when not present).
        static func duration(of trun: MP4Box, in bytes: [UInt8], fallback: UInt64) throws(FMP4Error) -> UInt64 {
            let head = try TrackInit.field(trun, at: { _ in 0 }, width: 8)
            let flags = TrackInit.read(bytes, at: head, width: 4) & 0xFF_FFFF
            let count = Int(TrackInit.read(bytes, at: head + 4, width: 4))
            guard flags & 0x100 != 0 else { return fallback * UInt64(count) }
            let fieldsAt = 8 + (flags & 0x01 != 0 ? 4 : 0) + (flags & 0x04 != 0 ? 4 : 0)
            let stride = [0x100, 0x200, 0x400, 0x800].filter { flags & UInt64($0) != 0 }.count * 4
            guard trun.payload.count >= fieldsAt, count <= (trun.payload.count - fieldsAt) / stride else {
                throw .truncatedFields(type: "trun", needed: fieldsAt + count * stride, available: trun.payload.count)
            }
            var sum: UInt64 = 0
            for s in 0..<count { sum += TrackInit.read(bytes, at: head + fieldsAt + s * stride, width: 4) }
            return sum
        }

        /// Renumbers the copy: sequence number, track_ID, and the (already moved) decode time.
        mutating func patch(sequence: UInt32, trackID: UInt32) {
            bytes.replaceSubrange(sequenceAt..<sequenceAt + 4, with: TrackInit.be32(sequence))
            bytes.replaceSubrange(trackIDAt..<trackIDAt + 4, with: TrackInit.be32(trackID))
            for k in 0..<decodeTimeWidth {
                bytes[decodeTimeAt + k] = UInt8(truncatingIfNeeded: decodeTime >> (8 * (decodeTimeWidth - 1 - k)))
            }
        }
    }
}
