import MediaCore
import Testing

@testable import FFmpegBridge

/// Merging per-track queues into one decode-ordered, non-negative timeline.
@Suite struct FrameInterleaverTests {
    /// A tiny seeded generator so the property test is reproducible.
    private struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    private func frame(_ kind: MediaKind, _ value: Int64, _ scale: Int32) -> MediaFrame {
        MediaFrame(kind: kind, dts: MediaTime(value: value, timescale: scale), isKeyframe: true, data: [])
    }

    @Test func shiftsEveryTrackByTheMostNegativeStart() {
        var i = FrameInterleaver(kinds: [.video, .audio])
        i.push(frame(.video, -6_000, 90_000))
        i.push(frame(.audio, -1_024, 48_000))
        let first = i.pop()
        #expect(first?.kind == .video)
        #expect(first?.dts == MediaTime(value: 0, timescale: 90_000))
        i.finish(.video)
        let second = i.pop()
        // Video led by 6000/90000 s = 3200 samples, so audio's -1024 lands at 2176.
        #expect(second?.dts == MediaTime(value: 2_176, timescale: 48_000))
    }

    @Test func waitsForEveryLiveTrackBeforeDeciding() {
        var i = FrameInterleaver(kinds: [.video, .audio])
        i.push(frame(.video, 0, 90_000))
        #expect(i.starving == .audio)
        #expect(i.pop() == nil)
        i.finish(.audio)
        #expect(i.pop()?.kind == .video)
        #expect(i.pop() == nil)
        #expect(i.starving == .video)
    }

    @Test(arguments: [1, 2, 3, 42, 2026] as [UInt64])
    func randomFeedsComeOutOrderedAndComplete(seed: UInt64) {
        var rng = SplitMix(state: seed)
        var i = FrameInterleaver(kinds: [.video, .audio])
        var next: [MediaKind: Int64] = [.video: -Int64.random(in: 0...9_000, using: &rng), .audio: -1_024]
        var left: [MediaKind: Int] = [
            .video: Int.random(in: 0...200, using: &rng), .audio: Int.random(in: 0...300, using: &rng),
        ]
        var out: [MediaFrame] = []
        var pushed = 0
        while !i.isDone {
            if let f = i.pop() {
                out.append(f)
                continue
            }
            guard let kind = i.starving else { break }
            if left[kind]! == 0 {
                i.finish(kind)
                continue
            }
            // Encoders hand over bursts of packets, not one at a time.
            for _ in 0..<Int.random(in: 1...4, using: &rng) where left[kind]! > 0 {
                i.push(frame(kind, next[kind]!, kind == .video ? 90_000 : 48_000))
                next[kind]! += kind == .video ? Int64.random(in: 1...6_000, using: &rng) : 1_024
                left[kind]! -= 1
                pushed += 1
            }
        }
        #expect(out.count == pushed)
        #expect(zip(out, out.dropFirst()).allSatisfy { $0.dts <= $1.dts })
        #expect(out.allSatisfy { $0.dts.value >= 0 })
    }
}
