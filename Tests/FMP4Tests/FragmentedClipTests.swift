import FMP4
import Foundation
import MediaCore
import TestSupport
import Testing

/// Joining single-track CMAF renditions into one fragmented MP4: one moov with renumbered tracks and the clip's
/// duration, fragments interleaved by time and moved to start at zero, samples untouched; bad input throws.
@Suite struct FragmentedClipTests {
    /// Two video segments of 30 frames at 90 kHz (1 s each) from 10 s, and audio from 10.02 s at 48 kHz in 1024s.
    static func tracks() throws -> [FragmentedClip.Track] {
        let video = FMP4InitSegment.serialize(track: try Fixtures.videoTrack())
        let audio = FMP4InitSegment.serialize(track: try Fixtures.audioTrack())
        let frame = (0..<30).map { FMP4Sample(duration: 3000, isSync: $0 == 0, data: [UInt8($0), 0xEE]) }
        var v: [[UInt8]] = []
        var a: [[UInt8]] = []
        let aac = (0..<47).map { FMP4Sample(duration: 1024, isSync: true, data: [UInt8($0 % 256)]) }
        for k in 0..<2 {
            let videoStart: UInt64 = 900_000 + 90_000 * UInt64(k)
            let audioStart: UInt64 = 480_960 + 47 * 1024 * UInt64(k)
            v.append(
                FMP4Fragment.serialize(
                    sequenceNumber: UInt32(k + 5),
                    trackID: 1,
                    baseMediaDecodeTime: videoStart,
                    samples: frame
                )
            )
            a.append(
                FMP4Fragment.serialize(
                    sequenceNumber: UInt32(k + 9),
                    trackID: 2,
                    baseMediaDecodeTime: audioStart,
                    samples: aac
                )
            )
        }
        return [.init(initSection: video, segments: v), .init(initSection: audio, segments: a)]
    }

    static func u64(_ box: MP4Box, at offset: Int, width: Int) -> UInt64 {
        let i = box.payload.startIndex + offset
        return box.payload[i..<i + width].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    @Test func oneMoovWithBothTracksRenumberedAndTheClipsDuration() throws {
        let (bytes, duration) = try FragmentedClip.join(Self.tracks())
        let boxes = try MP4Box.parse(bytes)
        #expect(boxes.map(\.type) == ["ftyp", "moov"] + Array(repeating: ["moof", "mdat"], count: 4).flatMap { $0 })
        let moov = boxes[1]
        let ids = moov.children("trak").map { Self.u64($0.child("tkhd")!, at: 12, width: 4) }
        #expect(ids == [1, 2])
        #expect(moov.find("mvex")?.children("trex").map { Self.u64($0, at: 4, width: 4) } == [1, 2])
        // 2 s of video from 10.00 s; audio from 10.02 s for 2 × 47 × 1024 / 48000 = 2.0053 s: ends at 2.0253 s.
        let expected = 0.02 + 2 * 47 * 1024 / 48_000.0
        #expect(abs(duration.secondsDouble - expected) < 1e-6)
        let mvhd = moov.child("mvhd")!
        let scale = Double(Self.u64(mvhd, at: 12, width: 4))
        #expect(Double(Self.u64(mvhd, at: 16, width: 4)) == (expected * scale).rounded(.up))
        #expect(Self.u64(mvhd, at: mvhd.payload.count - 4, width: 4) == 3)  // next_track_ID
        #expect(Double(Self.u64(moov.find("mvex/mehd")!, at: 4, width: 8)) == (expected * scale).rounded(.up))
    }

    @Test func fragmentsAreInterleavedByTimeRenumberedAndStartAtZero() throws {
        let boxes = try MP4Box.parse(FragmentedClip.join(Self.tracks()).bytes)
        let moofs = boxes.filter { $0.type == "moof" }
        let seen = moofs.map { m in
            (
                sequence: Self.u64(m.child("mfhd")!, at: 4, width: 4),
                track: Self.u64(m.find("traf/tfhd")!, at: 4, width: 4),
                time: Self.u64(m.find("traf/tfdt")!, at: 4, width: 8)
            )
        }
        #expect(seen.map(\.sequence) == [1, 2, 3, 4])
        #expect(seen.map(\.track) == [1, 2, 1, 2])
        #expect(seen.map(\.time) == [0, 960, 90_000, 960 + 47 * 1024])
        // Sample bytes are where trun's data_offset says, untouched.
        let mdat = boxes[3]
        #expect(Array(mdat.payload.prefix(4)) == [0, 0xEE, 1, 0xEE])
    }

    @Test func aTrackWithoutMovieExtendsOrAFragmentWithoutTfdtIsRefused() throws {
        var tracks = try Self.tracks()
        tracks[0].segments[0] = Array(tracks[0].segments[0].prefix(8)) + [0, 0, 0, 8, 0x6D, 0x64, 0x61, 0x74]
        #expect(throws: FMP4Error.self) { try FragmentedClip.join(tracks) }
        #expect(throws: FMP4Error.missingBox(path: "trak", in: "clip (no tracks)")) { try FragmentedClip.join([]) }
    }

    /// Fuzz: mutated init sections and segments either join or throw (typed `FMP4Error`); nothing traps.
    @Test func mutatedInputThrowsOrJoinsButNeverTraps() throws {
        var rng = SeededRandom(seed: 21)
        let good = try Self.tracks()
        for _ in 0..<2_000 {
            var tracks = good
            let t = Int.random(in: 0..<2, using: &rng)
            if Bool.random(using: &rng) {
                tracks[t].initSection = rng.mutate(tracks[t].initSection)
            } else {
                let s = Int.random(in: 0..<2, using: &rng)
                tracks[t].segments[s] = rng.mutate(tracks[t].segments[s])
            }
            _ = try? FragmentedClip.join(tracks)
        }
    }
}
