import MediaCore
import Testing

@testable import LLHLSPackager

/// Ladder rungs cut the same parts as the source, whatever order the source and rung descriptions arrive in.
@Suite struct RungAlignmentTests {
    /// Parts per MSN as (count, indices of INDEPENDENT parts).
    static func layout(_ r: PublishedRendition) -> [Int: [Bool]] {
        Dictionary(uniqueKeysWithValues: r.segments.map { ($0.msn, $0.parts.map(\.independent)) })
    }

    /// RTMP-like millisecond timestamps (33/34 ms) and 1 s GOPs in 2 s segments: the GOP start is a mid-segment part.
    @Test(arguments: [false, true])
    func rungPartsMatchTheSourceEvenWhenTheRungIsAnnouncedFirst(rungFirst: Bool) throws {
        let d = try Fixtures.description(audio: false)
        var config = LLHLSConfiguration()
        config.segmentTarget = .seconds(2)
        var s = LLHLSStreamState(key: Fixtures.key, epoch: Fixtures.epoch, config: config)
        s.beginSession(now: .now)
        // The ladder may announce a rung before the packager has seen the source's description (separate hub readers).
        if rungFirst { s.applyRung("360p", description: d, now: .now) }
        s.apply(d, now: .now)
        if !rungFirst { s.applyRung("360p", description: d, now: .now) }
        for frame in Fixtures.av(seconds: 8, gop: 30, audio: false, millisecond: true) {
            s.apply(frame, now: .now)
            s.applyRung("360p", frame: frame, now: .now)
        }
        let source = Self.layout(s.rendition(.video))
        let rung = Self.layout(try #require(s.rungs["360p"]).rendition)
        let common = Set(source.keys).intersection(rung.keys).filter { source[$0]!.count > 5 }
        #expect(common.count >= 2)
        for msn in common.sorted() {
            #expect(rung[msn] == source[msn], "MSN \(msn): rung \(rung[msn]!) vs source \(source[msn]!)")
            #expect(source[msn]![5], "MSN \(msn): the mid-segment GOP start opens part 5")
        }
    }

    /// A starved rung trails the source by its queues (up to the transcoder's 512-frame hub reader): its IDRs must
    /// still find the source segments they belong to, or it would never rejoin while it trails that far.
    @Test func aRungTwentySegmentsBehindStillStartsOnItsSegment() throws {
        let d = try Fixtures.description(audio: false)
        var config = LLHLSConfiguration()
        config.segmentTarget = .seconds(1)
        var s = Fixtures.state(d, config: config)
        s.applyRung("360p", description: d, now: .now)
        let frames = Fixtures.av(seconds: 24, gop: 30, audio: false, millisecond: true)
        // The source runs 20 s (20 segments) ahead of the rung.
        let lag = 600
        for (i, frame) in frames.enumerated() {
            s.apply(frame, now: .now)
            if i >= lag { s.applyRung("360p", frame: frames[i - lag], now: .now) }
        }
        let rung = try #require(s.rungs["360p"]).rendition
        #expect(
            rung.segments.first?.msn == PublishedRendition.firstMSN,
            "rung starts at MSN \(rung.segments.first?.msn ?? -1)"
        )
        #expect(rung.segments.allSatisfy { $0.gapDuration == nil })
    }

    /// A rung whose encoder stops keeping up holds the source back by at most `lagLimit` of media, not 1.5 s per part.
    @Test func aRungThatStopsKeepingUpNoLongerHoldsTheSource() throws {
        let d = try Fixtures.description(audio: false)
        var s = Fixtures.state(d)
        s.applyRung("360p", description: d, now: .now)
        let now = ClockReading.now
        for (i, frame) in Fixtures.av(seconds: 6, gop: 30, audio: false, millisecond: true).enumerated() {
            // Every call at the same instant: no part waits out the 1.5 s hold.
            s.apply(frame, now: now)
            if i < 45 { s.applyRung("360p", frame: frame, now: now) }
        }
        let listed = try #require(s.rendition(.video).lastPartEndSeconds)
        #expect(listed > 5.5, "the source listed only up to \(listed) s")
        #expect(s.aligner.lagging == ["360p"] && s.rungs["360p"]?.active == true)
    }

    /// A transcoder still draining the previous publisher's session does not write into the next one: its reader
    /// attached in session 1, so its calls are ignored once session 2 began.
    @Test func aRungOfAnEarlierSessionNoLongerWrites() throws {
        let d = try Fixtures.description(audio: false)
        var s = Fixtures.state(d)
        let attached = s.attachRung("360p")
        #expect(attached == [.rungAttached("360p", session: 1)])
        s.applyRung("360p", description: d, session: 1, now: .now)
        s.publisherLeft(now: .now)
        s.beginSession(now: .now)
        let frame = try #require(Fixtures.av(seconds: 1, gop: 30, audio: false).first)
        #expect(s.applyRung("360p", frame: frame, session: 1, now: .now).isEmpty)
        #expect(s.rungs["360p"]?.heldFrames.isEmpty == true)
        s.applyRung("360p", frame: frame, session: 2, now: .now)
        #expect(s.rungs["360p"]?.heldFrames.count == 1)
    }

    /// Lag events of a source fed 4 s and a rung fed the same frames `delay` frames later.
    static func lagEvents(rungDelay delay: Int) throws -> [PackagerEvent] {
        let d = try Fixtures.description(audio: false)
        var s = Fixtures.state(d)
        var events = s.applyRung("360p", description: d, now: .now)
        let frames = Fixtures.av(seconds: 4, gop: 30, audio: false, millisecond: true)
        let now = ClockReading.now
        for (i, frame) in frames.enumerated() {
            events += s.apply(frame, now: now)
            if i >= delay { events += s.applyRung("360p", frame: frames[i - delay], now: now) }
        }
        return events.filter {
            switch $0 {
            case .rungFellBehind, .rungCaughtUp: true
            default: false
            }
        }
    }

    /// `make run` warned "rung fell behind" and "caught up" for every rung at every start: a rung whose encoder is
    /// starting (no part yet) is not behind in the logs; one that trails the source for real still is.
    @Test func aStartingRungIsNotReportedBehindButARealLagIs() throws {
        #expect(try Self.lagEvents(rungDelay: 0) == [])
        // An encoder start-up of a few frames: still quiet.
        #expect(try Self.lagEvents(rungDelay: 10) == [])
        // 1.5 s behind for good: one warning, no catching up.
        #expect(try Self.lagEvents(rungDelay: 45) == [.rungFellBehind("360p")])
    }
}
