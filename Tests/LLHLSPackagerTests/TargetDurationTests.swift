import HLSPlaylist
import MediaCore
import Testing

@testable import LLHLSPackager

/// TARGETDURATION follows the source's first keyframe interval, is fixed before any playlist is served, and every
/// EXTINF stays within it (RFC 8216bis §4.4.3.1).
@Suite struct TargetDurationTests {
    /// (GOP in frames at 30 fps, configured segment target s, expected TARGETDURATION).
    static let cases: [(gop: Int, target: Int, td: Int)] = [
        (30, 1, 1), (15, 1, 1), (60, 1, 2), (45, 1, 2), (240, 1, 2), (30, 2, 2), (60, 2, 2), (90, 3, 3),
    ]

    @Test(arguments: cases.indices)
    func targetDurationFollowsTheFirstGOPAndBoundsEverySegment(_ i: Int) throws {
        let c = Self.cases[i]
        var config = LLHLSConfiguration()
        config.segmentTarget = .seconds(c.target)
        var s = Fixtures.state(try Fixtures.description(), config: config)
        #expect(s.grid.decidedTargetDuration == nil)
        s.feed(Fixtures.av(seconds: 12, gop: c.gop))
        #expect(s.grid.decidedTargetDuration == c.td)
        let playlist = try #require(s.mediaPlaylist(.video))
        #expect(playlist.targetDuration == c.td)
        for name in ["video", "audio"] {
            for seg in s.pipeline(named: name)!.rendition.segments where seg.complete {
                let seconds = Double(seg.duration) / Double(seg.timescale)
                #expect(
                    Int(seconds.rounded()) <= c.td,
                    "\(name) MSN \(seg.msn): \(seconds) s under TARGETDURATION \(c.td)"
                )
            }
        }
        // A GOP that fits the target keeps every segment starting on a keyframe.
        if Double(c.gop) / 30 <= Double(c.td) {
            #expect(s.rendition(.video).everySegmentIndependent)
        }
    }

    @Test func targetDurationIsDecidedBeforeTheFirstPlaylistIsServed() throws {
        var s = Fixtures.state(try Fixtures.description())
        for frame in Fixtures.av(seconds: 5, gop: 60) {
            s.apply(frame, now: .now)
            if s.decide(.video, PlaylistRequest()) == .ready { #expect(s.grid.decidedTargetDuration == 2) }
        }
        #expect(s.decide(.video, PlaylistRequest()) == .ready)
    }

    @Test func audioOnlyStreamKeepsTheConfiguredTarget() throws {
        var s = Fixtures.state(StreamDescription(audio: try Fixtures.audio()))
        s.feed(Fixtures.av(seconds: 4).filter { $0.kind == .audio })
        #expect(s.grid.decidedTargetDuration == nil)
        #expect(try #require(s.mediaPlaylist(.audio)).targetDuration == 1)
    }
}
