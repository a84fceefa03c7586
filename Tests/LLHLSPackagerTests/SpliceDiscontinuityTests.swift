import HLSPlaylist
import MediaCore
import Testing

@testable import LLHLSPackager

/// Another encoder's output on the same stream (a backup or the slate took the air: a new encoding sequence) is a
/// new timeline for players: a DISCONTINUITY and a new init section on every rendition. The segment before it stays
/// open until the new timeline's first part, so no playlist lists a finished segment with nothing after it (hls.js
/// appended the next timeline's media with the old init section when it saw one).
@Suite struct SpliceDiscontinuityTests {
    /// `d` from the encoding sequence `sequence`; a new sequence comes from another encoder (new init sections).
    static func spliced(_ d: StreamDescription, _ sequence: Int) throws -> StreamDescription {
        let other = try Fixtures.description(audio: d.audio != nil, otherEncoder: sequence != 0)
        return StreamDescription(video: other.video, audio: other.audio, encodingSequence: sequence)
    }

    @Test func aNewEncodingSequenceKeepsTheSegmentOpenUntilTheNextTimelinesFirstPart() throws {
        let d = try Fixtures.description()
        var s = Fixtures.state(d)
        for f in Fixtures.av(seconds: 1.5, gop: 30) { s.apply(f, now: .now) }
        s.apply(try Self.spliced(d, 1), now: .now)
        for name in ["video", "audio"] {
            let last = try #require(s.pipeline(named: name)?.rendition.segments.last)
            #expect(!last.complete, "\(name): the segment before the splice was listed as finished")
            #expect(s.pipeline(named: name)?.rendition.pendingDiscontinuity == true)
        }
        let before = try #require(s.video?.rendition.segments.last)
        for f in Fixtures.av(seconds: 0.5, from: 1.5, gop: 30) { s.apply(f, now: .now) }
        for name in ["video", "audio"] {
            let segments = try #require(s.pipeline(named: name)?.rendition.segments)
            let closed = try #require(segments.first { $0.msn == before.msn })
            #expect(closed.complete)
            let next = try #require(segments.first { $0.msn == before.msn + 1 })
            #expect(next.discontinuity && next.initIndex == closed.initIndex + 1, "\(name)")
        }
    }

    /// hls.js 1.6 loading parts looks for the segment at the buffered end, which Chromium rounds a microsecond short
    /// of the listed boundary: it found the old segment and took the new timeline's first part without loading its
    /// init section. The segment before a new init section is declared 1 ms short of its parts, from its first
    /// listing on; every other segment declares exactly its parts.
    @Test func theSegmentBeforeANewInitSectionIsDeclaredAMillisecondShortOfItsParts() throws {
        let d = try Fixtures.description()
        var s = Fixtures.state(d)
        for f in Fixtures.av(seconds: 1.5, gop: 30) { s.apply(f, now: .now) }
        s.apply(try Self.spliced(d, 1), now: .now)
        var firstListing: [String: MediaTime] = [:]
        for f in Fixtures.av(seconds: 2.5, from: 1.5, gop: 30) {
            s.apply(f, now: .now)
            for name in ["video", "audio"] where firstListing[name] == nil {
                let listed = try #require(s.mediaPlaylist(named: name)).segments
                if let i = listed.firstIndex(where: \.discontinuity), i > 0 {
                    firstListing[name] = listed[i - 1].duration
                }
            }
        }
        for name in ["video", "audio"] {
            let listed = try #require(s.mediaPlaylist(named: name)).segments.filter { $0.uri != nil }
            let split = try #require(listed.firstIndex { $0.discontinuity }, "\(name)")
            let published = try #require(s.pipeline(named: name)).rendition.segments
            for (i, segment) in listed.enumerated() {
                let media = try #require(published.first { $0.msn == segment.mediaSequence })
                let parts = MediaTime(value: media.parts.reduce(0) { $0 + $1.duration }, timescale: media.timescale)
                let short = (parts - segment.duration).converted(to: 1_000_000).value
                #expect(
                    short == (i == split - 1 ? 1_000 : 0),
                    "\(name) MSN \(segment.mediaSequence): \(short) µs short"
                )
            }
            #expect(firstListing[name] == listed[split - 1].duration, "\(name): the EXTINF changed after its listing")
        }
    }

    /// An encoder whose init section is byte for byte the one before (the same encoder and settings reconnecting, a
    /// ladder rung's next encoder) keeps it: a DISCONTINUITY, no new MAP, and no segment declared short.
    @Test func aSpliceWithTheSameInitSectionsKeepsThem() throws {
        let d = try Fixtures.description()
        var s = Fixtures.state(d)
        for f in Fixtures.av(seconds: 1.5, gop: 30) { s.apply(f, now: .now) }
        s.apply(StreamDescription(video: d.video, audio: d.audio, encodingSequence: 1), now: .now)
        for f in Fixtures.av(seconds: 1.5, from: 1.5, gop: 30) { s.apply(f, now: .now) }
        for name in ["video", "audio"] {
            let segments = try #require(s.pipeline(named: name)?.rendition.segments)
            #expect(segments.contains { $0.discontinuity }, "\(name)")
            #expect(segments.allSatisfy { $0.initIndex == 0 && $0.declaredShortBy == 0 }, "\(name)")
            #expect(try #require(s.mediaPlaylist(named: name)).segments.compactMap(\.mapURI).count == 1, "\(name)")
        }
    }

    @Test func theSameEncodingSequenceAgainChangesNothing() throws {
        let d = try Fixtures.description()
        var s = Fixtures.state(d)
        for f in Fixtures.av(seconds: 1.5, gop: 30) { s.apply(f, now: .now) }
        let segments = s.video?.rendition.segments.count
        s.apply(try Self.spliced(d, 0), now: .now)
        #expect(s.video?.rendition.pendingDiscontinuity == false)
        #expect(s.video?.rendition.segments.count == segments)
    }
}

/// A ladder rung trails the source by its encoder's delay: at a splice it still has old-timeline frames to come.
@Suite struct RungSpliceTests {
    /// Source and rung through a splice 0.3 s after a source cut, the rung `lag` frames behind; returns the state.
    static func splice(lag: Int) throws -> LLHLSStreamState {
        let d = try Fixtures.description(audio: false)
        var config = LLHLSConfiguration()
        config.segmentTarget = .seconds(1)
        var s = Fixtures.state(d, config: config)
        s.applyRung("360p", description: d, now: .now)
        let before = Fixtures.av(seconds: 3.3, gop: 30, audio: false)
        let after = Fixtures.av(seconds: 3, from: 3.3, gop: 30, audio: false)
        let rungFrames = before + after
        var fed = 0
        for (i, frame) in rungFrames.enumerated() {
            if i == before.count { s.apply(try SpliceDiscontinuityTests.spliced(d, 1), now: .now) }
            s.apply(frame, now: .now)
            if i >= lag {
                s.applyRung("360p", frame: rungFrames[fed], now: .now)
                fed += 1
            }
        }
        return s
    }

    /// The old timeline's last segment is whole on the rung too (no GAP where its encoder had not reached the cut),
    /// and both renditions start the new timeline with a DISCONTINUITY on the same MSN.
    @Test(arguments: [0, 4, 12, 20])
    func aRungBehindAtASpliceListsTheOldTimelinesTailAndNoGap(lag: Int) throws {
        let s = try Self.splice(lag: lag)
        let source = s.rendition(.video).segments
        let rung = try #require(s.rungs["360p"]).rendition.segments
        #expect(rung.allSatisfy { $0.gapDuration == nil }, "GAP at \(rung.filter { $0.gapDuration != nil }.map(\.msn))")
        let splitSource = try #require(source.first { $0.discontinuity })
        let splitRung = try #require(rung.first { $0.discontinuity })
        #expect(splitRung.msn == splitSource.msn)
        let lastOldSource = try #require(source.last { $0.msn == splitSource.msn - 1 })
        let lastOldRung = try #require(rung.last { $0.msn == splitSource.msn - 1 })
        #expect(lastOldRung.startDTS == lastOldSource.startDTS && lastOldRung.duration == lastOldSource.duration)
        // The rung's encoder did not change: its init section, byte for byte the same, keeps its id across the splice.
        #expect(splitRung.initIndex == lastOldRung.initIndex && splitSource.initIndex != lastOldSource.initIndex)
    }
}
