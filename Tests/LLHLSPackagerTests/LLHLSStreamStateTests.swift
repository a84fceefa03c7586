import CodecFormats
import FMP4
import HLSPlaylist
import MediaCore
import Testing

@testable import LLHLSPackager

/// The per-stream state machine end to end: descriptions and frames in, playlists and parts out.
@Suite("LLHLSStreamState lifecycle")
struct LLHLSStreamStateTests {
    static let pt = 0.201
    static let m0 = PublishedRendition.firstMSN

    @Test func advertisesSnappedPartTargetAndConsistentServerControl() throws {
        var s = Fixtures.state(try Fixtures.description())
        s.feed(Fixtures.av(seconds: 3))
        let video = try #require(s.mediaPlaylist(.video)).render()
        let audio = try #require(s.mediaPlaylist(.audio)).render()
        let control =
            "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=12.000,HOLD-BACK=6.000,PART-HOLD-BACK=0.603\n"
        // M4: identical SERVER-CONTROL in every rendition; PHB = 3 × PT.
        #expect(video.contains(control) && audio.contains(control))
        #expect(
            video.contains("#EXT-X-PART-INF:PART-TARGET=0.20100\n")
                && audio.contains("#EXT-X-PART-INF:PART-TARGET=0.20100\n")
        )
        #expect(video.contains("#EXT-X-TARGETDURATION:2\n") && audio.contains("#EXT-X-TARGETDURATION:2\n"))
    }

    @Test func livePlaylistListsPartsAndHintsTheNextOne() throws {
        var s = Fixtures.state(try Fixtures.description())
        s.feed(Fixtures.av(seconds: 5))
        let text = try #require(s.mediaPlaylist(.video)).render()
        #expect(text.hasPrefix("#EXTM3U\n#EXT-X-VERSION:6\n"))
        #expect(
            text.contains("#EXT-X-MAP:URI=\"ep/video/init-0.mp4\"\n#EXT-X-PROGRAM-DATE-TIME:2025-11-22T00:00:00.000Z\n")
        )
        #expect(text.contains("#EXT-X-PART:DURATION=0.20000,URI=\"ep/video/\(Self.m0 + 2).3.m4s\"\n"))
        #expect(text.contains("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"ep/video/\(Self.m0 + 2).4.m4s\"\n"))
        #expect(text.contains("#EXTINF:2.00000,\nep/video/\(Self.m0 + 1).m4s\n"))
        #expect(!text.contains("ENDLIST"))
    }

    @Test func endWritesEndListClosesTheOpenSegmentAndDropsTheHint() throws {
        var s = Fixtures.state(try Fixtures.description())
        s.feed(Fixtures.av(seconds: 5))
        s.end(now: .now)
        #expect(s.isEnded)
        for kind in [MediaKind.video, .audio] {
            let text = try #require(s.mediaPlaylist(kind)).render()
            #expect(
                text.contains(
                    "\n\(Fixtures.epoch)/\(kind.rawValue)/\(Self.m0 + 2).m4s\n#EXT-X-ENDLIST\n#EXT-X-RENDITION-REPORT:"
                )
            )
            #expect(!text.contains("PRELOAD-HINT"))
            #expect(s.rendition(kind).segments.allSatisfy { $0.complete })
        }
        // Everything, including the last frame, is in a segment: 150 video frames of 3000 ticks.
        #expect(s.rendition(.video).segments.reduce(0) { $0 + $1.duration } == 150 * 3_000)
        // Frames after the end change nothing; a new session does not reopen the stream.
        let version = s.version
        s.feed(Fixtures.av(seconds: 1, from: 5))
        s.beginSession(now: .now)
        #expect(s.version == version)
        #expect(s.isEnded)
    }

    @Test func reconnectContinuesMSNsWithADiscontinuityAndANewInitSection() throws {
        var s = Fixtures.state(try Fixtures.description())
        s.feed(Fixtures.av(seconds: 5))
        s.publisherLeft(now: .now)
        guard case .awaitingReconnect = s.phase else {
            Issue.record("expected awaitingReconnect, got \(s.phase)")
            return
        }
        let videoEnd = try #require(s.video?.publishedEnd?.converted(to: 90_000).value)
        let nextMSN = s.rendition(.video).nextMSN
        #expect(nextMSN == Self.m0 + 3)
        #expect(s.rendition(.audio).nextMSN == nextMSN)
        s.beginSession(now: .now)
        s.apply(try Fixtures.description(otherEncoder: true), now: .now)
        // The new publisher's clock starts somewhere else entirely, and so does its wall clock.
        s.feed(Fixtures.av(seconds: 5, from: 1_000, wall: Fixtures.wall0.advanced(by: .seconds(60))))
        for kind in [MediaKind.video, .audio] {
            let r = s.rendition(kind)
            #expect(r.segments.map(\.msn) == Array(Self.m0..<Self.m0 + r.segments.count), "\(kind) MSNs continue")
            let first = try #require(r.segments.first { $0.msn == nextMSN })
            #expect(first.discontinuity)
            #expect(first.initIndex == 1)
            #expect(r.segments.filter(\.discontinuity).map(\.msn) == [nextMSN])
            #expect(r.initSections.keys.sorted() == [0, 1])
            #expect(first.programDateTime == Fixtures.wall0.advanced(by: .seconds(60)))
        }
        // The new session continues the stream timeline where the old one ended (tfdt never goes back, F4).
        let v = try #require(s.rendition(.video).segments.first { $0.msn == nextMSN })
        #expect(v.startDTS >= videoEnd && v.startDTS <= videoEnd + 3_000)
        let text = try #require(s.mediaPlaylist(.video)).render()
        #expect(
            text.contains(
                "ep/video/\(Self.m0 + 2).m4s\n#EXT-X-DISCONTINUITY\n#EXT-X-MAP:URI=\"ep/video/init-1.mp4\"\n#EXT-X-PROGRAM-DATE-TIME:2025-11-22T00:01:00.000Z\n#EXT-X-PART:"
            )
        )
    }

    @Test func codecChangeMidSessionStartsANewInitSectionWithADiscontinuity() throws {
        var s = Fixtures.state(try Fixtures.description())
        s.feed(Fixtures.av(seconds: 3))
        var d = try Fixtures.description()
        d.video = try Fixtures.video(frameRate: 25, otherEncoder: true)
        d.audio = try Fixtures.audio(otherEncoder: true)
        s.apply(d, now: .now)
        s.feed(Fixtures.av(seconds: 3, from: 3))
        for kind in [MediaKind.video, .audio] {
            let r = s.rendition(kind)
            #expect(r.initSections.keys.sorted() == [0, 1])
            #expect(r.segments.filter(\.discontinuity).map(\.msn) == [Self.m0 + 2])
        }
        // PART-TARGET is fixed for the stream's life (M3) even though the frame rate changed.
        #expect(s.partTarget.secondsDouble == Self.pt)
    }

    /// 4.5 s at 48 kHz, then a switch to 44.1 kHz AAC and 6.5 s more.
    static func sampleRateChange() throws -> LLHLSStreamState {
        var s = Fixtures.state(try Fixtures.description())
        s.feed(Fixtures.av(seconds: 4.5))
        var d = try Fixtures.description()
        d.audio = try AudioParameters(audioSpecificConfig: [0x12, 0x10])  // AAC-LC 44.1 kHz stereo
        s.apply(d, now: .now)
        s.feed(Fixtures.av(seconds: 6.5, from: 4.5, sampleRate: 44_100))
        return s
    }

    @Test func audioSampleRateChangeKeepsPlaylistDurationsInSeconds() throws {
        let s = try Self.sampleRateChange()
        let video = try #require(s.mediaPlaylist(.video)).segments.filter(\.isComplete)
        let audio = try #require(s.mediaPlaylist(.audio)).segments.filter {
            $0.isComplete && $0.mediaSequence > Self.m0 + 2
        }
        #expect(audio.count >= 2)
        do {
            for a in audio {
                let v = try #require(video.first { $0.mediaSequence == a.mediaSequence })
                #expect(
                    abs(a.duration.seconds - v.duration.seconds) < 0.05,
                    "MSN \(a.mediaSequence): audio \(a.duration.seconds) s, video \(v.duration.seconds) s"
                )
            }
        }
    }

    @Test func audioSampleRateChangePublishesEveryOldRateFrameUnderTheOldInitSection() throws {
        let s = try Self.sampleRateChange()
        let old = s.rendition(.audio).segments.filter { $0.initIndex == 0 }
        let samples = try old.flatMap(\.parts).reduce(0) { $0 + (try Chunk($1.bytes)).durations.count }
        // 4.5 s of 1024-sample frames at 48 kHz.
        do {
            #expect(samples == Int(4.5 * 48_000 / 1024))
        }
    }

    @Test func windowSlidesAndCountsDiscontinuitiesThatLeaveIt() throws {
        var config = LLHLSConfiguration()
        config.windowSegments = 3
        config.retainedSegmentsAfterWindow = 1
        var s = Fixtures.state(try Fixtures.description(), config: config)
        s.feed(Fixtures.av(seconds: 5))
        s.publisherLeft(now: .now)
        s.beginSession(now: .now)
        s.feed(Fixtures.av(seconds: 16, from: 100))
        let p = try #require(s.mediaPlaylist(.video))
        // M5/M6: MEDIA-SEQUENCE is the first listed MSN; the discontinuity before MSN 3 slid out.
        #expect(p.segments.filter(\.isComplete).count == 3)
        #expect(p.mediaSequence == p.segments[0].mediaSequence)
        #expect(p.mediaSequence > Self.m0 + 3)
        #expect(p.discontinuitySequence == 1)
        #expect(p.segments.allSatisfy { !$0.discontinuity })
        // The first listed segment always carries the MAP (M9); the reconnect's init section is byte for byte the first.
        #expect(p.segments[0].mapURI == "ep/video/init-0.mp4")
        // Segments behind the window stay downloadable for a while (P5), older ones are gone.
        #expect(s.rendition(.video).segments.filter(\.complete).count == 4)
    }

    @Test func partsAgeOutOfThePlaylistAfterAboutThreeTargetDurations() throws {
        var s = Fixtures.state(try Fixtures.description())
        s.feed(Fixtures.av(seconds: 21))
        let p = try #require(s.mediaPlaylist(.video))
        let withParts = p.segments.filter { !$0.parts.isEmpty }
        #expect(p.segments.filter(\.isComplete).count == 10)
        // The last three complete segments plus the open one keep their parts: ≥ PART-HOLD-BACK, ≈ 3 × TD (P5).
        #expect(withParts.count == 4)
        #expect(withParts.map(\.mediaSequence) == Array(p.segments.suffix(4).map(\.mediaSequence)))
    }

    @Test func renditionReportsPointAtTheOtherRenditionsLiveEdge() throws {
        var s = Fixtures.state(try Fixtures.description())
        var worst = 0.0
        for (i, frame) in Fixtures.av(seconds: 8).enumerated() {
            s.apply(frame, now: .now)
            guard let v = s.rendition(.video).lastPart, let a = s.rendition(.audio).lastPart else { continue }
            let vp = try #require(s.mediaPlaylist(.video))
            let ap = try #require(s.mediaPlaylist(.audio))
            #expect(
                vp.renditionReports == [RenditionReport(uri: "audio.m3u8", lastMSN: a.msn, lastPart: a.part)],
                "frame \(i)"
            )
            #expect(
                ap.renditionReports == [RenditionReport(uri: "video.m3u8", lastMSN: v.msn, lastPart: v.part)],
                "frame \(i)"
            )
            let gap = abs(s.rendition(.video).lastPartEndSeconds! - s.rendition(.audio).lastPartEndSeconds!)
            worst = max(worst, gap)
        }
        // App. B.1: renditions are updated in sync within one PART-TARGET.
        #expect(worst <= Self.pt, "live edges drifted \(worst) s apart")
    }

    @Test func audioSegmentsAlignWithVideoSegmentsOfTheSameMSN() throws {
        var s = Fixtures.state(try Fixtures.description())
        s.feed(Fixtures.av(seconds: 12, millisecond: true))
        let video = s.rendition(.video).segments
        let audio = s.rendition(.audio).segments
        #expect(video.count >= 6)
        for v in video {
            guard let a = audio.first(where: { $0.msn == v.msn }) else { continue }
            let dv = Double(v.startDTS) / 90_000
            let da = Double(a.startDTS) / 48_000
            // Audio starts on the last frame a millisecond or more before video, so it never ends past video's edge.
            #expect(da <= dv && dv - da <= 1024.0 / 48_000 + 0.001, "MSN \(v.msn): video \(dv) s, audio \(da) s")
        }
    }

    @Test func programDateTimeMapsMediaTimeTheSameWayInEveryRendition() throws {
        var s = Fixtures.state(try Fixtures.description())
        s.feed(Fixtures.av(seconds: 6))
        s.publisherLeft(now: .now)
        s.beginSession(now: .now)
        s.feed(Fixtures.av(seconds: 6, from: 40, wall: Fixtures.wall0.advanced(by: .seconds(30))))
        let video = s.rendition(.video).segments
        let audio = s.rendition(.audio).segments
        for v in video {
            let a = try #require(audio.first { $0.msn == v.msn })
            // Printed dates (whole ms) keep one date ↔ media-time mapping per session (M8) within 2 ms, and never date
            // audio later against video than the media does (hls.js lines audio up with video by them).
            let mediaDelta = Double(v.startDTS) / 90_000 - Double(a.startDTS) / 48_000
            let dateDelta =
                Double(v.programDateTime.millisecondsSince1970 - a.programDateTime.millisecondsSince1970) / 1e3
            #expect(dateDelta >= mediaDelta - 1e-9 && dateDelta < mediaDelta + 0.002, "MSN \(v.msn)")
        }
    }

    @Test func videoPartsAreIndependentExactlyWhenTheyStartWithAKeyframe() throws {
        var config = LLHLSConfiguration()
        config.segmentTarget = .seconds(2)
        var s = Fixtures.state(try Fixtures.description(), config: config)
        s.feed(Fixtures.av(seconds: 7, gop: 30))
        for seg in s.rendition(.video).segments {
            for (i, p) in seg.parts.enumerated() {
                let chunk = try Chunk(p.bytes)
                #expect(p.independent == (chunk.flags[0] == 0x0200_0000), "MSN \(seg.msn) part \(i)")
            }
            #expect(seg.parts.first?.independent == true)
            // A 1 s GOP puts a second keyframe mid-segment: exactly one more INDEPENDENT part.
            if seg.complete { #expect(seg.parts.filter(\.independent).count == 2, "MSN \(seg.msn)") }
        }
    }

    @Test func initSectionsParseAsFtypThenMoov() throws {
        let s = Fixtures.state(try Fixtures.description())
        for kind in [MediaKind.video, .audio] {
            let bytes = try #require(s.rendition(kind).initSections[0])
            #expect(try MP4Box.parse(bytes).map(\.type) == ["ftyp", "moov"])
        }
    }

    @Test func framesBeforeADescriptionAreDroppedAndCounted() throws {
        var s = LLHLSStreamState(key: Fixtures.key, epoch: Fixtures.epoch, config: LLHLSConfiguration())
        s.beginSession(now: .now)
        s.feed(Fixtures.av(seconds: 1))
        #expect(s.framesDroppedBeforeStart == 30 + 46)
        #expect(s.video == nil)
    }

    @Test func droppedFramesResumeOnlyAtTheNextKeyframe() throws {
        var s = Fixtures.state(try Fixtures.description(audio: false))
        s.feed(Fixtures.av(seconds: 1, audio: false))
        s.readerDropped()
        let before = s.framesDroppedBeforeStart
        s.feed(
            Fixtures.av(seconds: 2, from: 1, audio: false).enumerated().map { i, f in
                var f = f
                f.isKeyframe = i == 45
                return f
            }
        )
        #expect(s.framesDroppedBeforeStart - before == 45)
    }

    @Test func independentSegmentsIsOnlyClaimedWhenEverySegmentStartsWithAKeyframe() throws {
        // A 3 s GOP forces cuts between keyframes (M2 wins), so some segments cannot be decoded on their own.
        var s = Fixtures.state(try Fixtures.description())
        s.feed(Fixtures.av(seconds: 12, gop: 90))
        let starts = s.rendition(.video).segments.map { $0.parts.first?.independent ?? false }
        #expect(starts.contains(false))
        let text = try #require(s.multivariantPlaylist()).render()
        do {
            #expect(!text.contains("#EXT-X-INDEPENDENT-SEGMENTS"))
        }
    }

    @Test func audioOnlyStreamCutsItsOwnSegmentsAndHasNoReports() throws {
        var config = LLHLSConfiguration()
        config.segmentTarget = .seconds(2)
        var s = Fixtures.state(StreamDescription(audio: try Fixtures.audio()), config: config)
        s.feed(Fixtures.av(seconds: 7).filter { $0.kind == .audio })
        let p = try #require(s.mediaPlaylist(.audio))
        #expect(p.segments.filter(\.isComplete).count == 3)
        #expect(p.renditionReports.isEmpty)
        #expect(s.mediaPlaylist(.video) == nil)
        let text = try #require(s.multivariantPlaylist()).render()
        #expect(
            text.contains("#EXT-X-STREAM-INF:BANDWIDTH=") && text.contains("CODECS=\"mp4a.40.2\"")
                && text.hasSuffix("audio.m3u8\n")
        )
        #expect(!text.contains("#EXT-X-MEDIA:"))
    }

    @Test func videoOnlyStreamHasNoAudioGroup() throws {
        var s = Fixtures.state(try Fixtures.description(audio: false))
        s.feed(Fixtures.av(seconds: 7, audio: false))
        #expect(try #require(s.mediaPlaylist(.video)).renditionReports.isEmpty)
        let text = try #require(s.multivariantPlaylist()).render()
        #expect(!text.contains("AUDIO=") && text.contains("CODECS=\"avc1.64001e\","))
    }

    @Test func multivariantPlaylistDescribesBothRenditions() throws {
        var s = Fixtures.state(try Fixtures.description())
        s.feed(Fixtures.av(seconds: 7))
        let text = try #require(s.multivariantPlaylist()).render()
        let lines = text.split(separator: "\n")
        #expect(
            lines.contains(
                "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio\",NAME=\"main\",DEFAULT=YES,AUTOSELECT=YES,CHANNELS=\"2\",URI=\"audio.m3u8\""
            )
        )
        let inf = try #require(lines.first { $0.hasPrefix("#EXT-X-STREAM-INF:") })
        #expect(inf.contains(",CODECS=\"avc1.64001e,mp4a.40.2\",RESOLUTION=640x360,FRAME-RATE=30.000,AUDIO=\"audio\""))
        #expect(lines.last == "video.m3u8")
    }
}
