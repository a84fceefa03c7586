import MediaCore
import Testing

@testable import Transcoder

/// The fast-start bridge's handover, as a value: which pictures its rung encodes and when the source's frames go.
@Suite struct FirstKeyframeIntervalBridgeTests {
    static func unit(_ n: Int64, key: Bool) -> MediaFrame {
        MediaFrame(kind: .video, dts: MediaTime(value: n * 3_000, timescale: 90_000), isKeyframe: key, data: [UInt8(n)])
    }

    /// Golden: keyframes at 0 and 30; the decoder returns each picture two units late (frame threads).
    @Test func picturesBeforeTheSecondKeyframeAreEncodedAndTheSourceFollowsInOrder() {
        var bridge = FirstKeyframeIntervalBridge(earlyCut: 12 * 3_000)
        var sent: [Int64] = []
        var encoded: [Int64] = []
        for n: Int64 in 0..<40 {
            sent += bridge.note(Self.unit(n, key: n % 30 == 0)).map { $0.dts.value / 3_000 }
            guard n >= 2 else { continue }
            let (encode, release) = bridge.picture(at: (n - 2) * 3_000)
            if encode { encoded.append(n - 2) }
            sent += release.map { $0.dts.value / 3_000 }
        }
        #expect(encoded == Array(0..<30))
        // Unit 30 waited for picture 30 (decoded at unit 32); the rest went as they came.
        #expect(sent == Array(30..<40))
        #expect(bridge.handover == 30 * 3_000 && bridge.handedOver && bridge.held.isEmpty)
    }

    @Test func aRefusedFrameSkipsToTheNextKeyframe() {
        var bridge = FirstKeyframeIntervalBridge(earlyCut: 3_000)
        _ = bridge.note(Self.unit(0, key: true))
        _ = bridge.note(Self.unit(1, key: true))
        _ = bridge.picture(at: 3_000)
        bridge.refused()
        #expect(bridge.note(Self.unit(2, key: false)).isEmpty)
        #expect(bridge.note(Self.unit(3, key: true)).map(\.dts.value) == [9_000])
        #expect(bridge.note(Self.unit(4, key: false)).map(\.dts.value) == [12_000])
    }

    /// A keyframe before the early cut (an x264 scene cut) is encoded over; the first one after it takes over.
    @Test func aKeyframeBeforeTheEarlyCutDoesNotTakeOver() {
        var bridge = FirstKeyframeIntervalBridge(earlyCut: 12 * 3_000)
        for n: Int64 in 0..<20 { _ = bridge.note(Self.unit(n, key: n == 0 || n == 5 || n == 15)) }
        #expect(bridge.handover == Int64(15 * 3_000))
        #expect(bridge.picture(at: 5 * 3_000).encode)
    }

    @Test func aStreamThatEndsBeforeTheHandoverDrainsWhatItHeld() {
        var bridge = FirstKeyframeIntervalBridge(earlyCut: 12 * 3_000)
        #expect(bridge.drain().isEmpty)
        _ = bridge.note(Self.unit(0, key: true))
        _ = bridge.note(Self.unit(30, key: true))
        _ = bridge.note(Self.unit(31, key: false))
        #expect(bridge.picture(at: 0).encode)
        #expect(bridge.drain().map(\.dts.value) == [90_000, 93_000])
    }

    /// Property: for any decoder delay, every picture before the handover is encoded, every source frame from it is
    /// sent once, in order, and none before the decoder has passed the handover.
    @Test(arguments: 0..<6)
    func anyDecoderDelayKeepsTheOrder(delay: Int64) {
        var bridge = FirstKeyframeIntervalBridge(earlyCut: 12 * 3_000)
        var sent: [Int64] = []
        var encoded: [Int64] = []
        var decoderPassedHandover = false
        for n: Int64 in 0..<(60 + delay) {
            if n < 60 {
                let out = bridge.note(Self.unit(n, key: n % 24 == 0))
                #expect(out.isEmpty || decoderPassedHandover)
                sent += out.map { $0.dts.value / 3_000 }
            }
            let p = n - delay
            guard p >= 0, p < 60 else { continue }
            let (encode, release) = bridge.picture(at: p * 3_000)
            if p >= 24 { decoderPassedHandover = true }
            if encode { encoded.append(p) }
            sent += release.map { $0.dts.value / 3_000 }
        }
        #expect(encoded == Array(0..<24))
        #expect(sent == Array(24..<60))
    }
}
