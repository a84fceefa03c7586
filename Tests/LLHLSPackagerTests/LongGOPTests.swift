import CodecFormats
import HLSPlaylist
import MediaCore
import Testing

@testable import LLHLSPackager

/// OBS's defaults (keyframe interval 250 frames): no segment exceeds the target, and the multivariant claims
/// EXT-X-INDEPENDENT-SEGMENTS only for renditions whose segments all start on an IDR.
@Suite struct LongGOPTests {
    /// x264's settings SEI as FFmpeg's libx264 writes it into the first IDR (`-g 250`), then an IDR slice.
    static func x264IDR() -> [UInt8] {
        let uuid: [UInt8] = [
            0xDC, 0x45, 0xE9, 0xBD, 0xE6, 0xD9, 0x48, 0xB7, 0x96, 0x2C, 0xD8, 0x20, 0xD9, 0x23, 0xEE, 0xEF,
        ]
        let text =
            "x264 - core 164 r3095 baee400 - H.264/MPEG-4 AVC codec - options: bframes=2 keyint=250 keyint_min=25"
        let payload = uuid + Array(text.utf8) + [0]
        let sei: [UInt8] = [0x06, 0x05, UInt8(payload.count)] + payload + [0x80]
        let slice: [UInt8] = [0x65, 0x88, 0x84, 0x00]
        return [0, 0, 0, UInt8(sei.count)] + sei + [0, 0, 0, UInt8(slice.count)] + slice
    }

    /// 30 fps source frames with RTMP millisecond timestamps and a keyframe every 250 frames.
    static func source(seconds: Double, settingsSEI: Bool) -> [MediaFrame] {
        Fixtures.av(seconds: seconds, gop: 250, audio: false, millisecond: true).enumerated().map { n, f in
            var f = f
            if n == 0 && settingsSEI { f.data = x264IDR() }
            return f
        }
    }

    /// Segment lengths in seconds (complete ones).
    static func lengths(_ r: PublishedRendition) -> [Double] {
        r.segments.filter(\.complete).map { Double($0.duration) / Double($0.timescale) }
    }

    @Test func theLadderTranscodesTheTopRenditionWithIDRsOnTheGridAlignedWithTheSource() throws {
        let d = try Fixtures.description(audio: false)
        var s = Fixtures.state(d)
        // The ladder's rung at the source's own size: an IDR every 60 frames (2 s), as its fan-out forces them.
        s.applyRung("360p", description: d, now: .now)
        for (n, frame) in Self.source(seconds: 12, settingsSEI: true).enumerated() {
            s.apply(frame, now: .now)
            var rung = frame
            rung.isKeyframe = n % 60 == 0
            s.applyRung("360p", frame: rung, now: .now)
        }
        #expect(s.grid.longGOP == .encoderSettings(keyint: 250, seconds: 250.0 / 30))
        let video = Self.lengths(s.rendition(.video))
        let rung = try #require(s.rungs["360p"]).rendition
        #expect(video.count >= 4 && video.allSatisfy { abs($0 - 2) < 0.02 }, "\(video)")
        // Same MSNs at the same media times, every one starting on an IDR.
        let source = Dictionary(uniqueKeysWithValues: s.rendition(.video).segments.map { ($0.msn, $0.startDTS) })
        let complete = rung.segments.filter(\.complete)
        #expect(complete.count >= 4)
        for seg in complete {
            #expect(source[seg.msn] == seg.startDTS, "MSN \(seg.msn)")
            #expect(seg.parts.first?.independent == true, "MSN \(seg.msn)")
        }
        #expect(!s.rendition(.video).everySegmentIndependent)
        // The multivariant lists the rung instead of the passthrough and may claim independent segments.
        let mv = try #require(s.multivariantPlaylist())
        #expect(mv.variants.map(\.uri) == ["360p.m3u8"])
        #expect(mv.independentSegments)
        #expect(s.mediaPlaylist(named: "360p")?.renditionReports.map(\.uri) ?? ["?"] == [])
        #expect(s.longGOPNote?.contains("rendition 360p") == true)
    }

    @Test func withoutALadderTheSourceIsCutOnTheGridAndClaimsNoIndependentSegments() throws {
        var s = Fixtures.state(try Fixtures.description(audio: false))
        // No settings SEI (another encoder): the long GOP shows once 2.15 s pass without a keyframe.
        let events = s.feed(Self.source(seconds: 12, settingsSEI: false))
        #expect(s.grid.longGOP == .observed(secondsWithoutKeyframe: 2.167))
        let video = Self.lengths(s.rendition(.video))
        // 2.167 s (cut where the long GOP showed), then 1.833 s to the next grid point, then 2 s each.
        #expect(video.count >= 4 && video.allSatisfy { $0 <= 2.168 }, "\(video)")
        #expect(abs(video[0] - 2.167) < 0.001 && abs(video[1] - 1.833) < 0.001, "\(video)")
        let mv = try #require(s.multivariantPlaylist())
        #expect(mv.variants.map(\.uri) == ["video.m3u8"])
        #expect(!mv.independentSegments)
        #expect(s.longGOPNote?.contains("no EXT-X-INDEPENDENT-SEGMENTS") == true)
        // The event carries what the log line's metadata says.
        let found = events.compactMap { e -> LongGOPFinding? in if case .longGOPDetected(let f) = e { f } else { nil } }
        #expect(found.count == 1 && "\(found[0].evidence)" == "no keyframe for 2.2 s" && found[0].gridSeconds == "2.0")
    }

    /// Without the settings SEI the long GOP shows only as the first segment closes, while the ladder's source-size
    /// rung is still opening: the first multivariant waits for that rung (at most `rungStartLimit`) instead of listing
    /// the passthrough it replaces (CI once served `video.m3u8` to the first player that asked, 2026-11-29).
    @Test func theFirstMultivariantWaitsForTheSourceSizeRungThatReplacesThePassthrough() throws {
        let d = try Fixtures.description(audio: false)
        var small = try Fixtures.video()
        small.width /= 2
        small.height /= 2
        func ladder(awaiting: Bool) -> LLHLSStreamState {
            var c = LLHLSConfiguration()
            c.awaitsSourceRung = awaiting
            var s = Fixtures.state(d, config: c)
            s.applyRung("180p", description: StreamDescription(video: small, audio: nil), now: .now)
            return s
        }
        // The ladder forces rung IDRs where the source is cut: 0, 2.167 s (where the long GOP showed), then 2 s apart.
        func isRungIDR(_ n: Int) -> Bool { n == 0 || n == 65 || (n >= 120 && n % 60 == 0) }
        var s = ladder(awaiting: true)
        var plain = ladder(awaiting: false)
        let frames = Self.source(seconds: 7, settingsSEI: false)
        for (n, frame) in frames.enumerated() where n <= 70 {
            var rung = frame
            rung.isKeyframe = isRungIDR(n)
            s.apply(frame, now: .now)
            s.applyRung("180p", frame: rung, now: .now)
            plain.apply(frame, now: .now)
            plain.applyRung("180p", frame: rung, now: .now)
        }
        #expect(s.grid.longGOP == .observed(secondsWithoutKeyframe: 2.167))
        #expect(s.rungs["180p"]?.rendition.lastCompleteMSN != nil)
        #expect(try #require(plain.multivariantPlaylist()).variants.map(\.uri) == ["video.m3u8", "180p.m3u8"])
        #expect(s.multivariantPlaylist() == nil, "the source-size rung is on its way")
        let later = ContinuousClock.now + RenditionListing.rungStartLimit + .milliseconds(10)
        #expect(try #require(s.multivariantPlaylist(now: later)).variants.map(\.uri) == ["video.m3u8", "180p.m3u8"])
        // The rung at the source's size opens and starts at the next grid point (4 s): it replaces the passthrough.
        s.applyRung("360p", description: d, now: .now)
        for (n, frame) in frames.enumerated() where n > 70 {
            var rung = frame
            rung.isKeyframe = isRungIDR(n)
            s.apply(frame, now: .now)
            s.applyRung("180p", frame: rung, now: .now)
            if n >= 120 { s.applyRung("360p", frame: rung, now: .now) }
        }
        #expect(try #require(s.multivariantPlaylist()).variants.map(\.uri) == ["360p.m3u8", "180p.m3u8"])
    }

    @Test func aMultivariantServedBeforeTheFirstKeyframelessCutAlreadyClaimsNoIndependence() throws {
        var s = Fixtures.state(try Fixtures.description(audio: false))
        // One second in: every segment so far starts on the IDR, but x264 said keyint=250.
        s.feed(Self.source(seconds: 12, settingsSEI: true).prefix(30))
        #expect(s.rendition(.video).everySegmentIndependent)
        #expect(s.multivariantPlaylist().map { !$0.independentSegments } ?? true)
        s.end(now: .now)
        #expect(try #require(s.multivariantPlaylist()).independentSegments == false)
    }

    @Test func aOneSecondGOPKeepsKeyframeCutsAndThePassthrough() throws {
        let d = try Fixtures.description(audio: false)
        var s = Fixtures.state(d)
        s.feed(Fixtures.av(seconds: 10, gop: 30, audio: false, millisecond: true))
        #expect(s.grid.longGOP == nil && s.longGOPNote == nil)
        #expect(s.rendition(.video).everySegmentIndependent)
        #expect(try #require(s.multivariantPlaylist()).independentSegments)
    }
}
