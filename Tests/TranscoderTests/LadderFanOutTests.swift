import CodecFormats
import MediaCore
import Testing

@testable import Transcoder

/// The decoder thread's fan-out rules, without threads: IDRs at source keyframes, resync after a rung overflows.
@Suite struct LadderFanOutTests {
    private func unit(_ pts: Int64, key: Bool) -> MediaFrame {
        MediaFrame(
            kind: .video,
            dts: MediaTime(value: pts, timescale: 90_000),
            isKeyframe: key,
            data: [],
            stamps: HopStamps(capture: WallTime(millisecondsSince1970: pts))
        )
    }

    @Test func forcesIDRsExactlyAtSourceKeyframesAndHandsBackTheirStamps() {
        var fanOut = LadderFanOut(rungCount: 1)
        for pts in stride(from: Int64(0), to: 300_000, by: 3_000) { fanOut.note(unit(pts, key: pts % 90_000 == 0)) }
        for pts in stride(from: Int64(0), to: 300_000, by: 3_000) {
            let (forceIDR, stamps) = fanOut.take(pts)
            #expect(forceIDR == (pts % 90_000 == 0), "pts \(pts)")
            #expect(stamps.capture == WallTime(millisecondsSince1970: pts))
        }
    }

    /// `hls.first_segment_s` with the top rendition transcoded: with a stated 1 s interval, every rung also gets an IDR
    /// 0.4 s in, where the packager cuts.
    @Test func anEarlyFirstCutAddsOneIDRToTheSourceKeyframes() {
        let early = EarlyFirstSegment(length: .milliseconds(400), evenWithShortGOPs: true)
        let cadence = KeyframeCadence(target: .seconds(2), frameRate: 30, firstSegment: early)
        var fanOut = LadderFanOut(rungCount: 1, cadence: cadence)
        let text = "x264 - core 164 - H.264/MPEG-4 AVC codec - options: bframes=0 keyint=30"
        let uuid: [UInt8] = [
            0xDC, 0x45, 0xE9, 0xBD, 0xE6, 0xD9, 0x48, 0xB7, 0x96, 0x2C, 0xD8, 0x20, 0xD9, 0x23, 0xEE, 0xEF,
        ]
        let payload = uuid + Array(text.utf8) + [0]
        let sei: [UInt8] = [0x06, 0x05, UInt8(payload.count)] + payload + [0x80]
        var idrs: [Int64] = []
        for pts in stride(from: Int64(0), to: 270_000, by: 3_000) {
            var u = unit(pts, key: pts % 90_000 == 0)
            if pts == 0 { u.data = [0, 0, 0, UInt8(sei.count)] + sei }
            fanOut.note(u)
            if fanOut.take(pts).forceIDR { idrs.append(pts) }
        }
        #expect(idrs == [0, 36_000, 90_000, 180_000])
    }

    @Test func theFirstPictureIsAlwaysAnIDR() {
        var fanOut = LadderFanOut(rungCount: 2)
        fanOut.note(unit(6_000, key: false))
        let first = fanOut.take(6_000)
        fanOut.note(unit(9_000, key: false))
        let second = fanOut.take(9_000)
        #expect(first.forceIDR && !second.forceIDR)
    }

    @Test func anOverflowedRungSkipsUntilTheNextKeyframeWhileOthersContinue() {
        var fanOut = LadderFanOut(rungCount: 2)
        var decisions: [Bool] = []
        decisions.append(fanOut.accepts(rung: 0, forceIDR: true))
        fanOut.dropped(rung: 0)
        decisions.append(fanOut.accepts(rung: 0, forceIDR: false))
        let other = fanOut.accepts(rung: 1, forceIDR: false)
        decisions.append(fanOut.accepts(rung: 0, forceIDR: false))
        decisions.append(fanOut.accepts(rung: 0, forceIDR: true))
        decisions.append(fanOut.accepts(rung: 0, forceIDR: false))
        #expect(decisions == [true, false, false, true, true])
        #expect(other)
    }

    @Test func picturesTheDecoderNeverProducedDoNotAccumulate() {
        var fanOut = LadderFanOut(rungCount: 1)
        for pts in stride(from: Int64(0), to: 3_000 * 2_000, by: 3_000) { fanOut.note(unit(pts, key: false)) }
        _ = fanOut.take(3_000 * 1_999)
        // Everything older than the picture just taken was purged; a late take finds no stamps.
        let late = fanOut.take(0)
        #expect(late.stamps.capture == nil && !late.forceIDR)
    }
}
