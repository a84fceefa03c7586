import MediaCore
import Testing

@testable import LLHLSPackager

/// A source whose audio starts seconds before its video (an encoder stamping video with a wall clock, a restreamer):
/// every rendition starts at the first video frame, the audio before it is dropped and reported, and the audio
/// playlist's dates run on from the video's (Chromium's native player refused one dated 10 s before its video).
@Suite struct TracksStartApartTests {
    /// RTMP-timed AAC frames only, from `start` for `seconds`.
    static func audioOnly(seconds: Double, from start: Double = 0) -> [MediaFrame] {
        Fixtures.av(seconds: seconds, from: start, millisecond: true).filter { $0.kind == .audio }
    }

    static func dropped(_ events: [PackagerEvent]) -> [(frames: Int, span: MediaTime)] {
        events.compactMap { if case .audioDroppedBeforeVideo(let f, let s) = $0 { (f, s) } else { nil } }
    }

    /// PDT − start for each complete segment, in ms: constant when the dates follow the media.
    static func dateOffsets(_ r: PublishedRendition) -> [Int64] {
        r.segments.filter(\.complete).map { seg in
            seg.programDateTime.nanosecondsSince1970 / 1_000_000 - seg.startDTS * 1000 / Int64(seg.timescale)
        }
    }

    @Test(arguments: [10.0, 15.0])
    func everyRenditionStartsAtTheFirstVideoFrame(audioLead: Double) throws {
        var s = Fixtures.state(try Fixtures.description())
        var events = s.feed(Self.audioOnly(seconds: audioLead))
        #expect(s.rendition(.audio).segments.isEmpty, "audio listed before any video")
        events += s.feed(Fixtures.av(seconds: 6, from: audioLead, millisecond: true))

        let video = s.rendition(.video).segments.filter(\.complete)
        let audio = s.rendition(.audio).segments.filter(\.complete)
        #expect(video.count >= 2 && audio.count >= 2)
        // Both renditions start at the first video frame, on the same date.
        let v0 = try #require(video.first)
        let a0 = try #require(audio.first)
        let audioStart = Double(a0.startDTS) / Double(a0.timescale)
        #expect(v0.startDTS == 0 && audioStart < 0.025, "audio starts \(audioStart) s into the timeline")
        let apart = a0.programDateTime.nanosecondsSince1970 - v0.programDateTime.nanosecondsSince1970
        #expect(abs(apart) < 25_000_000, "first audio date \(apart) ns from the first video date")
        // Dates advance with the media in both (no 10 s jump between the first and second audio segment).
        for r in [s.rendition(.audio), s.rendition(.video)] {
            let offsets = Self.dateOffsets(r)
            #expect((offsets.max() ?? 0) - (offsets.min() ?? 0) <= 2, "\(r.name): \(offsets)")
        }
        // Reported once, with what was dropped (at most the held window of the newest frames, the rest trimmed).
        let report = Self.dropped(events)
        let sent = Self.audioOnly(seconds: audioLead).count
        #expect(report.count == 1)
        #expect(report.first?.frames == sent)
        #expect(abs((report.first?.span.seconds ?? 0) - audioLead) < 0.05)
    }

    /// Audio that follows video in time is not touched, and nothing is reported.
    @Test func videoFirstDropsNoAudio() throws {
        var s = Fixtures.state(try Fixtures.description())
        let events = s.feed(Fixtures.av(seconds: 4, millisecond: true))
        #expect(Self.dropped(events).isEmpty)
        #expect(s.framesDroppedBeforeStart == 0)
    }

    /// The audio an encoder sends ahead of video with the same timestamps (lookahead) is kept: only audio older than
    /// the first video frame is dropped.
    @Test func audioAheadOnTheWireButNotInTimeIsKept() throws {
        var s = Fixtures.state(try Fixtures.description())
        let frames = Fixtures.av(seconds: 4, millisecond: true)
        let early = frames.filter { $0.kind == .audio && $0.dts.seconds < 1 }
        let rest = frames.filter { !($0.kind == .audio && $0.dts.seconds < 1) }
        let events = s.feed(early + rest)
        #expect(Self.dropped(events).isEmpty)
        #expect(s.framesDroppedBeforeStart == 0)
        #expect(s.rendition(.audio).segments.first?.startDTS == 0)
    }

    /// A source whose video never comes keeps at most `AudioBeforeVideo.limit` frames waiting, and lists nothing.
    @Test func audioWaitingForVideoIsBounded() throws {
        var s = Fixtures.state(try Fixtures.description())
        s.feed(Self.audioOnly(seconds: 30))
        #expect((s.audio?.heldFrames.count ?? 0) == AudioBeforeVideo.limit)
        #expect(s.rendition(.audio).segments.isEmpty)
    }
}
