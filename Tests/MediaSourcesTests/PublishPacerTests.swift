import MediaCore
import MediaSources
import Testing

/// Pacing and looping, checked without a clock.
@Suite struct PublishPacerTests {
    private func video(_ n: Int64) -> MediaFrame {
        MediaFrame(kind: .video, dts: MediaTime(value: n * 3_000, timescale: 90_000), isKeyframe: n == 0, data: [])
    }

    @Test func framesAreDueAtTheirDecodeTimeFromTheFirstFrame() {
        var pacer = PublishPacer()
        guard case .send(_, let d0) = pacer.schedule(video(0)), case .send(_, let d3) = pacer.schedule(video(3)) else {
            Issue.record("expected sends")
            return
        }
        #expect(d0 == .zero)
        #expect(d3 == .milliseconds(100))
    }

    @Test func stopsAtTheDuration() {
        var pacer = PublishPacer(duration: .seconds(1))
        var sent = 0
        for n in 0..<100 {
            guard case .send = pacer.schedule(video(Int64(n))) else { break }
            sent += 1
        }
        #expect(sent == 30)
    }

    @Test func timestampsKeepRisingAcrossLoops() {
        var pacer = PublishPacer()
        for n in 0..<30 { _ = pacer.schedule(video(Int64(n))) }
        pacer.sourceRewound()
        guard case .send(let frame, let due) = pacer.schedule(video(0)) else {
            Issue.record("expected a send")
            return
        }
        #expect(frame.dts == MediaTime(value: 90_000, timescale: 90_000))
        #expect(due == .seconds(1))
    }
}
