import CodecFormats
import HLSPlaylist
import MediaCore
import Synchronization
import Testing

@testable import LLHLSPackager

/// Fast start inside the first keyframe interval (`hls.first_segment_s`): hls.js needs one whole segment, so every
/// rendition cuts its first one early when the encoder states its keyframe interval and every listed video rendition
/// is transcoded (`transcode.source_rendition: transcode` here; the passthrough is cut too, for the rungs to align).
@Suite struct FirstSegmentTests {
    /// x264's settings SEI (as FFmpeg's libx264 writes it) stating `keyint`, then an IDR slice.
    static func x264IDR(keyint: Int) -> [UInt8] {
        let uuid: [UInt8] = [
            0xDC, 0x45, 0xE9, 0xBD, 0xE6, 0xD9, 0x48, 0xB7, 0x96, 0x2C, 0xD8, 0x20, 0xD9, 0x23, 0xEE, 0xEF,
        ]
        let text = "x264 - core 164 r3095 baee400 - H.264/MPEG-4 AVC codec - options: bframes=0 keyint=\(keyint)"
        let payload = uuid + Array(text.utf8) + [0]
        let sei: [UInt8] = [0x06, 0x05, UInt8(payload.count)] + payload + [0x80]
        let slice: [UInt8] = [0x65, 0x88, 0x84, 0x00]
        return [0, 0, 0, UInt8(sei.count)] + sei + [0, 0, 0, UInt8(slice.count)] + slice
    }

    static var config: LLHLSConfiguration {
        var c = LLHLSConfiguration()
        c.firstSegment = EarlyFirstSegment(length: .milliseconds(400), evenWithShortGOPs: true)
        return c
    }

    /// 30 fps RTMP-timed video (keyframe every `gop`) and AAC; the first IDR states `keyint` when given.
    static func source(seconds: Double, gop: Int, keyint: Int?) -> [MediaFrame] {
        var first = true
        return Fixtures.av(seconds: seconds, gop: gop, millisecond: true).map { f in
            var f = f
            if f.kind == .video, first, let keyint { f.data = x264IDR(keyint: keyint) }
            if f.kind == .video { first = false }
            return f
        }
    }

    static func lengths(_ r: PublishedRendition) -> [Double] {
        r.segments.filter(\.complete).map { (Double($0.duration) / Double($0.timescale) * 1000).rounded() / 1000 }
    }

    /// Feeds the source and a 360p rung whose IDRs sit where the ladder's fan-out forces them (`rungIDRs` of the 30 fps
    /// frame number: source keyframes and the early cut at frame 12, 0.4 s).
    static func feed(_ s: inout LLHLSStreamState, _ frames: [MediaFrame], rungIDRs: (Int) -> Bool) {
        for f in frames {
            s.apply(f, now: .now)
            guard f.kind == .video else { continue }
            var rung = f
            rung.isKeyframe = rungIDRs(Int((f.dts.seconds * 30).rounded()))
            s.applyRung("360p", frame: rung, now: .now)
        }
    }

    @Test func aStatedOneSecondGOPCutsEveryRenditionsFirstSegmentAt400ms() throws {
        let d = try Fixtures.description()
        var s = Fixtures.state(d, config: Self.config)
        s.applyRung("360p", description: d, now: .now)
        let frames = Self.source(seconds: 6, gop: 30, keyint: 30)
        // 0.45 s in (frame 13 arrived): playable already, with a 0.4 s first segment everywhere.
        Self.feed(&s, frames.filter { $0.dts.seconds < 0.45 }, rungIDRs: { $0 % 30 == 0 || $0 == 12 })
        let early = try #require(s.multivariantPlaylist(), "not playable 0.45 s in")
        #expect(Self.lengths(s.rendition(.video)) == [0.4])
        #expect(Self.lengths(try #require(s.rungs["360p"]).rendition) == [0.4])
        #expect(Self.lengths(s.rendition(.audio)).count == 1)
        // The rung at the source's size (640x360) is listed instead of the passthrough: every listed segment is
        // independent, and says so.
        #expect(early.variants.map(\.uri) == ["360p.m3u8"])
        #expect(early.independentSegments)
        #expect(s.mediaPlaylist(.video)?.targetDuration == 1)

        Self.feed(&s, frames.filter { $0.dts.seconds >= 0.45 }, rungIDRs: { $0 % 30 == 0 || $0 == 12 })
        let video = Self.lengths(s.rendition(.video))
        #expect(Array(video.prefix(4)) == [0.4, 0.6, 1.0, 1.0], "\(video)")
        // The rung cut at the same media times (same MSNs), each of its segments on an IDR.
        let source = Dictionary(uniqueKeysWithValues: s.rendition(.video).segments.map { ($0.msn, $0.startDTS) })
        let rung = try #require(s.rungs["360p"]).rendition.segments.filter(\.complete)
        #expect(rung.count >= 4)
        for seg in rung {
            #expect(source[seg.msn] == seg.startDTS, "MSN \(seg.msn)")
            #expect(seg.parts.first?.independent == true, "MSN \(seg.msn)")
        }
        // Only the (unlisted) passthrough's second segment starts without a keyframe.
        let starts = s.rendition(.video).segments.filter(\.complete).map { $0.parts.first?.independent == true }
        #expect(Array(starts.prefix(4)) == [true, false, true, true])
        #expect(s.mediaPlaylist(.video)?.targetDuration == 1)
    }

    /// Fast start (`bridgesShortGOPs`): the rung at the source's size bridges the first keyframe interval and then
    /// carries the source's frames, so players know it as `video`: in the multivariant, in rendition reports, in
    /// media URIs, and in what `video.m3u8` and `{epoch}/video/…` answer.
    @Test func aBridgedRungIsServedAsVideo() async throws {
        var c = LLHLSConfiguration()
        c.firstSegment = EarlyFirstSegment(length: .milliseconds(400), bridgesShortGOPs: true)
        let d = try Fixtures.description()
        let stream = LLHLSStream(key: Fixtures.key, epoch: Fixtures.epoch, config: c)
        stream.mutate {
            $0.beginSession(now: .now) + $0.apply(d, now: .now) + $0.applyRung("360p", description: d, now: .now)
        }
        stream.mutate { s in
            Self.feed(&s, Self.source(seconds: 3, gop: 30, keyint: 30), rungIDRs: { $0 % 30 == 0 || $0 == 12 })
            return []
        }
        let s = stream.state.withLock { $0 }
        #expect(s.bridgedRung == "360p")
        #expect(s.pipelineName(served: "video") == "360p")
        let mv = try #require(s.multivariantPlaylist())
        #expect(mv.variants.map(\.uri) == ["video.m3u8"])
        #expect(mv.independentSegments)
        #expect(s.mediaPlaylist(named: "audio")?.renditionReports.map(\.uri) == ["video.m3u8"])
        let r = await stream.mediaPlaylist(rendition: "video", request: PlaylistRequest())
        let text = String(decoding: r.body, as: UTF8.self)
        #expect(r.status == 200)
        #expect(text.contains("ep/video/1.m4s") && !text.contains("ep/360p/"), "\(text)")
        // The rung's bytes answer under `video`; its own name is not served.
        let rungSegment = try #require(s.rungs["360p"]?.rendition.segments.first?.buffer)
        let media = await stream.media(epoch: Fixtures.epoch, rendition: "video", file: "1.m4s")
        #expect(media.status == 200 && media.payload == rungSegment)
        #expect(!stream.hasRendition("360p") && stream.hasRendition("video"))
    }

    /// A backup of another size takes the air: the bridged rung stays what players know as `video` (the multivariant
    /// they hold names it), though a rung at the new source's size now exists.
    @Test func theBridgedRungStaysVideoWhenTheSourceChangesSize() throws {
        var c = LLHLSConfiguration()
        c.firstSegment = EarlyFirstSegment(length: .milliseconds(400), bridgesShortGOPs: true)
        let d = try Fixtures.description()
        var s = Fixtures.state(d, config: c)
        s.applyRung("360p", description: d, now: .now)
        Self.feed(&s, Self.source(seconds: 3, gop: 30, keyint: 30), rungIDRs: { $0 % 30 == 0 || $0 == 12 })
        #expect(s.bridgedRung == "360p")
        var big = try #require(try Fixtures.description(otherEncoder: true).video)
        big.width = 1280
        big.height = 720
        let backup = StreamDescription(video: big, audio: d.audio, encodingSequence: 1)
        s.apply(backup, now: .now)
        s.applyRung("720p", description: backup, now: .now)
        #expect(s.sourceResolutionRung == "720p")
        #expect(s.bridgedRung == "360p" && s.pipelineName(served: "video") == "360p")
    }

    /// A recording of a fast-started stream is laid out as players see it live: the bridged rung's segments are kept as
    /// `video` (the multivariant's name for it), the unlisted passthrough's are not handed over, and the multivariant
    /// handed with them names only kept renditions, so the recording gets its `index.m3u8`.
    @Test func aBridgedRungIsRecordedAsVideo() throws {
        var c = LLHLSConfiguration()
        c.firstSegment = EarlyFirstSegment(length: .milliseconds(400), bridgesShortGOPs: true)
        let d = try Fixtures.description()
        let handed = Mutex<[PackagedSegment]>([])
        let stream = LLHLSStream(
            key: Fixtures.key,
            epoch: Fixtures.epoch,
            config: c,
            onSegment: { s in handed.withLock { $0.append(s) } }
        )
        stream.mutate {
            $0.beginSession(now: .now) + $0.apply(d, now: .now) + $0.applyRung("360p", description: d, now: .now)
        }
        for f in Self.source(seconds: 3, gop: 30, keyint: 30) {
            stream.mutate { s in
                var events = s.apply(f, now: .now)
                guard f.kind == .video else { return events }
                var rung = f
                let n = Int((f.dts.seconds * 30).rounded())
                rung.isKeyframe = n % 30 == 0 || n == 12
                events += s.applyRung("360p", frame: rung, now: .now)
                return events
            }
        }
        let segments = handed.withLock { $0 }
        #expect(Set(segments.map(\.rendition)) == ["video", "audio"])
        #expect(segments.allSatisfy { $0.sourceRendition == "video" })
        let rungBytes = try #require(stream.state.withLock { $0.rungs["360p"]?.rendition.segments.first?.buffer })
        #expect(segments.first { $0.rendition == "video" }?.data == rungBytes)
        let multivariant = try #require(segments.compactMap(\.multivariant).last)
        #expect(multivariant.contains("\nvideo.m3u8") && !multivariant.contains("360p.m3u8"), "\(multivariant)")
    }

    /// A long GOP's source-size rung is encoded for the whole stream: it keeps its own name.
    @Test func aLongGOPsSourceSizeRungKeepsItsName() throws {
        var c = LLHLSConfiguration()
        c.firstSegment = EarlyFirstSegment(length: .milliseconds(400), bridgesShortGOPs: true)
        let d = try Fixtures.description(audio: false)
        var s = Fixtures.state(d, config: c)
        s.applyRung("360p", description: d, now: .now)
        Self.feed(&s, Self.source(seconds: 5, gop: 250, keyint: 250).filter { $0.kind == .video }) {
            $0 % 60 == 0 || $0 == 12
        }
        #expect(s.bridgedRung == nil)
        #expect(try #require(s.multivariantPlaylist()).variants.map(\.uri) == ["360p.m3u8"])
    }

    /// Were the passthrough listed after all (the source-size rung not started), the claim must not cover it.
    @Test func aListedPassthroughCutEarlyClaimsNoIndependence() throws {
        var s = Fixtures.state(try Fixtures.description(), config: Self.config)
        s.feed(Self.source(seconds: 3, gop: 30, keyint: 30))
        let mv = try #require(s.multivariantPlaylist())
        #expect(mv.variants.map(\.uri) == ["video.m3u8"])
        #expect(!mv.independentSegments)
    }

    /// OBS's defaults (keyint=250): the early cut, then the 2 s grid, TARGETDURATION 2.
    @Test func aLongGOPStartsWithTheEarlyCutThenItsGrid() throws {
        var c = LLHLSConfiguration()
        c.firstSegment = EarlyFirstSegment(length: .milliseconds(400))
        let d = try Fixtures.description(audio: false)
        var s = Fixtures.state(d, config: c)
        s.applyRung("360p", description: d, now: .now)
        Self.feed(&s, Self.source(seconds: 7, gop: 250, keyint: 250).filter { $0.kind == .video }) {
            $0 % 60 == 0 || $0 == 12
        }
        #expect(Array(Self.lengths(s.rendition(.video)).prefix(3)) == [0.4, 1.6, 2.0])
        #expect(Array(Self.lengths(try #require(s.rungs["360p"]).rendition).prefix(3)) == [0.4, 1.6, 2.0])
        #expect(s.mediaPlaylist(named: "360p")?.targetDuration == 2)
        #expect(try #require(s.multivariantPlaylist()).independentSegments)
    }

    /// The rung's first frames come late (an encoder starting up, SRT's bursts): the source has already cut at 0.4 s
    /// and 2.0 s when the rung starts. The rung must still cut there, under the source's MSNs (it once missed the cuts
    /// the source made before the rung's muxer was made, and numbered its segments one behind the source's).
    @Test func aRungThatStartsLateStillCutsWhereTheSourceDid() throws {
        var c = LLHLSConfiguration()
        c.firstSegment = EarlyFirstSegment(length: .milliseconds(400))
        let d = try Fixtures.description(audio: false)
        var s = Fixtures.state(d, config: c)
        s.applyRung("360p", description: d, now: .now)
        let video = Self.source(seconds: 7, gop: 250, keyint: 250).filter { $0.kind == .video }
        let lag = 75  // frames: the source is 2.5 s ahead when the rung's first frame comes
        for (i, f) in video.enumerated() {
            s.apply(f, now: .now)
            guard i >= lag else { continue }
            var rung = video[i - lag]
            let n = i - lag
            rung.isKeyframe = n % 60 == 0 || n == 12
            s.applyRung("360p", frame: rung, now: .now)
        }
        let source = Dictionary(uniqueKeysWithValues: s.rendition(.video).segments.map { ($0.msn, $0.startDTS) })
        let rung = try #require(s.rungs["360p"]).rendition.segments.filter(\.complete)
        #expect(Array(Self.lengths(try #require(s.rungs["360p"]).rendition).prefix(3)) == [0.4, 1.6, 2.0])
        #expect(rung.count >= 3)
        for seg in rung { #expect(source[seg.msn] == seg.startDTS, "MSN \(seg.msn)") }
    }

    @Test func withoutTheSettingTheFirstSegmentWaitsForTheSecondKeyframe() throws {
        var s = Fixtures.state(try Fixtures.description())
        let frames = Self.source(seconds: 3, gop: 30, keyint: 30)
        s.feed(frames.filter { $0.dts.seconds < 0.45 })
        #expect(s.multivariantPlaylist() == nil)
        s.feed(frames.filter { $0.dts.seconds >= 0.45 })
        #expect(Array(Self.lengths(s.rendition(.video)).prefix(2)) == [1.0, 1.0])
        #expect(try #require(s.multivariantPlaylist()).independentSegments)
    }

    /// Another encoder (no settings SEI): its interval is unknown, so TARGETDURATION could not be decided yet.
    @Test func anEncoderThatStatesNoIntervalGetsNoEarlyCut() throws {
        var s = Fixtures.state(try Fixtures.description(), config: Self.config)
        s.feed(Self.source(seconds: 4, gop: 30, keyint: nil))
        #expect(Array(Self.lengths(s.rendition(.video)).prefix(3)) == [1.0, 1.0, 1.0])
        #expect(try #require(s.multivariantPlaylist()).independentSegments)
    }

    /// A stated 2 s GOP: TARGETDURATION 2 from the statement (the 0.4 s first segment says nothing), the second
    /// segment runs to the next keyframe.
    @Test func aStatedTwoSecondGOPDecidesTargetDurationFromTheStatement() throws {
        var s = Fixtures.state(try Fixtures.description(audio: false), config: Self.config)
        s.feed(Self.source(seconds: 7, gop: 60, keyint: 60).filter { $0.kind == .video })
        #expect(Array(Self.lengths(s.rendition(.video)).prefix(3)) == [0.4, 1.6, 2.0])
        #expect(s.mediaPlaylist(.video)?.targetDuration == 2)
        #expect(s.grid.longGOP == nil)
    }
}
