import HLSPlaylist
import MediaCore
import Synchronization
import Testing

@testable import LLHLSPackager

/// A rung the ladder sheds under load leaves the multivariant and every rendition report at once, its playlist
/// answers 404, and the source no longer waits for it; fed again, it is listed once it has a new part, on the same MSNs.
@Suite struct ShedRungListingTests {
    /// Feeds source frames (and their video to the 360p rung too when `rung`).
    static func feed(_ s: inout LLHLSStreamState, _ frames: ArraySlice<MediaFrame>, rung: Bool) {
        for f in frames {
            s.apply(f, now: .now)
            if rung && f.kind == .video { s.applyRung("360p", frame: f, now: .now) }
        }
    }

    static func reports(_ s: LLHLSStreamState, in name: String) -> [String] {
        (s.mediaPlaylist(named: name)?.render() ?? "").split(separator: "\n")
            .filter { $0.hasPrefix("#EXT-X-RENDITION-REPORT") }.map(String.init)
    }

    @Test func aShedRungLeavesTheMultivariantAndTheReportsAndComesBackOnTheSameMSNs() throws {
        var s = try FastStartTests.ladder()
        let frames = Fixtures.av(seconds: 12, gop: 30)
        // Frames by time: audio and video interleave.
        func until(_ t: Double) -> Int {
            frames.firstIndex { Double($0.dts.value) >= t * Double($0.dts.timescale) } ?? frames.count
        }
        Self.feed(&s, frames[0..<until(4)], rung: true)
        #expect(try #require(s.multivariantPlaylist()).render().contains("360p.m3u8"))
        #expect(Self.reports(s, in: "video").contains { $0.contains("URI=\"360p.m3u8\"") })

        s.setListed(false, rung: "360p", now: .now)
        #expect(s.isUnlisted("360p"))
        #expect(!(try #require(s.multivariantPlaylist()).render().contains("360p.m3u8")))
        #expect(!Self.reports(s, in: "video").contains { $0.contains("360p") })
        let rungBefore = try #require(s.rungs["360p"]?.rendition.lastPart)
        // Frames the encoder had in flight still arrive: ignored. The source keeps listing without the rung.
        Self.feed(&s, frames[until(4)..<until(6.67)], rung: true)
        #expect(try #require(s.rungs["360p"]?.rendition.lastPart) == rungBefore)
        #expect(try #require(s.rendition(.video).lastPartEndSeconds) > 5.5)

        s.setListed(true, rung: "360p", now: .now)
        #expect(s.isUnlisted("360p"), "listed again only once it has a new part")
        // The transcoder feeds it again from the next IDR.
        Self.feed(&s, frames[until(6.67)..<until(8)], rung: false)
        Self.feed(&s, frames[until(8)...], rung: true)
        #expect(!s.isUnlisted("360p"))
        #expect(try #require(s.multivariantPlaylist()).render().contains("360p.m3u8"))
        #expect(Self.reports(s, in: "video").contains { $0.contains("URI=\"360p.m3u8\"") })
        // Segments it missed are EXT-X-GAP and its MSNs line up with the source's.
        let rung = try #require(s.rungs["360p"]).rendition
        #expect(rung.segments.contains { $0.gapDuration != nil })
        let source = Dictionary(uniqueKeysWithValues: s.rendition(.video).segments.map { ($0.msn, $0.startDTS) })
        for seg in rung.segments where seg.gapDuration == nil && seg.complete {
            #expect(source[seg.msn] == seg.startDTS, "MSN \(seg.msn)")
        }
    }

    @Test func aShedRungsPlaylistAnswers404AndTheOthersStillServe() async throws {
        var s = try FastStartTests.ladder()
        Self.feed(&s, Fixtures.av(seconds: 4, gop: 30)[...], rung: true)
        let stream = LLHLSStream(key: Fixtures.key, epoch: Fixtures.epoch, config: LLHLSConfiguration())
        stream.state.withLock { $0 = s }
        #expect(await stream.mediaPlaylist(rendition: "360p", request: PlaylistRequest()).status == 200)
        stream.setListed(false, rung: "360p")
        #expect(await stream.mediaPlaylist(rendition: "360p", request: PlaylistRequest()).status == 404)
        #expect(await stream.mediaPlaylist(rendition: "video", request: PlaylistRequest()).status == 200)
    }

    /// A rung the transcoder reports behind (half a second back, under `lagLimit`) stops holding the source at once.
    @Test(arguments: [false, true])
    func aRungReportedBehindNoLongerHoldsTheSource(reported: Bool) throws {
        var s = try FastStartTests.ladder()
        if reported { s.setKeepingUp(false, rung: "360p", now: .now) }
        let frames = Fixtures.av(seconds: 6, gop: 30, audio: false)
        let now = ClockReading.now
        // Every call at the same instant (no part waits out the 1.5 s hold); in step for 2 s, then the rung pauses
        // for 15 frames and trails by 0.5 s from then on.
        for (i, frame) in frames.enumerated() {
            s.apply(frame, now: now)
            if i < 60 { s.applyRung("360p", frame: frame, now: now) }
            if i >= 75 { s.applyRung("360p", frame: frames[i - 15], now: now) }
        }
        let listed = try #require(s.rendition(.video).lastPartEndSeconds)
        if reported {
            #expect(listed > 5.5, "the source listed only up to \(listed) s")
        } else {
            #expect(listed < 5.6, "an in-step rung half a second back holds the source (listed \(listed) s)")
        }
    }
}
