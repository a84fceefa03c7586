import MediaCore
import Testing

@testable import LLHLSPackager

/// At a splice every track ends where the next timeline starts and starts there again. A hole of less than a frame
/// between audio and video at a switch (audio frames are 21 ms, video 33 ms, so their ends rarely meet) broke MSE's
/// buffered ranges: stock hls.js stalled on it until it jumped the hole (1.6 s once), Chromium's own player longer.
@Suite struct SpliceTrackEndsTests {
    /// 1.5 s of the first encoder, with `extraAudio` AAC frames more than `Fixtures.av` gives (whose audio ends 7 ms
    /// before its video; audio only until `audioStops` when given), then the second encoder, whose first audio frame
    /// comes `audioLate` seconds after its video.
    static func splice(extraAudio: Int, audioLate: Double, audioStops: Double? = nil) throws -> LLHLSStreamState {
        let d = try Fixtures.description()
        var s = Fixtures.state(d)
        var before = Fixtures.av(seconds: 1.5, gop: 30)
        let frame = 1024.0 / 48_000
        let lastAudio = before.filter { $0.kind == .audio }.count
        for n in 0..<extraAudio {
            let t = Double(lastAudio + n) * frame
            before.append(Fixtures.audioFrame(dts: MediaTime(value: Int64((t * 48_000).rounded()), timescale: 48_000)))
        }
        if let stop = audioStops { before.removeAll { $0.kind == .audio && $0.dts.seconds >= stop } }
        for f in before { s.apply(f, now: .now) }
        s.apply(try SpliceDiscontinuityTests.spliced(d, 1), now: .now)
        // The second encoder counts its own time: its video starts at 100 s, its audio `audioLate` after.
        var after: [(Double, MediaFrame)] = Fixtures.av(seconds: 2, from: 100, gop: 30, audio: false).map {
            ($0.dts.seconds, $0)
        }
        for n in 0..<90 {
            let t = 100 + audioLate + Double(n) * frame
            let dts = MediaTime(value: Int64((t * 48_000).rounded()), timescale: 48_000)
            after.append((t + 0.000_001, Fixtures.audioFrame(dts: dts)))
        }
        for (_, f) in after.sorted(by: { $0.0 < $1.0 }) { s.apply(f, now: .now) }
        return s
    }

    /// Where `name`'s segments around its first DISCONTINUITY end and start, in seconds.
    static func around(_ s: LLHLSStreamState, _ name: String) throws -> (end: Double, start: Double) {
        let segments = try #require(s.pipeline(named: name)?.rendition.segments)
        let i = try #require(segments.firstIndex { $0.discontinuity }, "\(name) has no DISCONTINUITY")
        let last = segments[i - 1]
        let first = segments[i]
        let seconds = { (ticks: Int64, timescale: Int32) in Double(ticks) / Double(timescale) }
        return (seconds(last.startDTS + last.duration, last.timescale), seconds(first.startDTS, first.timescale))
    }

    @Test(arguments: [(0, 0.012), (1, 0.012), (0, 0.0), (1, 0.020)])
    func everyTrackEndsAndStartsWhereTheTimelineTurns(extraAudio: Int, audioLate: Double) throws {
        let s = try Self.splice(extraAudio: extraAudio, audioLate: audioLate)
        let video = try Self.around(s, "video")
        let audio = try Self.around(s, "audio")
        let tick = 1.0 / 48_000
        #expect(abs(video.end - video.start) < tick, "video: a hole from \(video.end) to \(video.start)")
        #expect(abs(audio.end - audio.start) < tick, "audio: a hole from \(audio.end) to \(audio.start)")
        #expect(abs(audio.start - video.start) < tick, "audio starts at \(audio.start), video at \(video.start)")
    }

    /// A track that stopped well before the other (over a part) is not stretched to it: its last frame keeps its
    /// length (the missing time is listed as it was before, a GAP).
    @Test func aTrackThatStoppedLongBeforeTheOtherIsNotStretched() throws {
        let s = try Self.splice(extraAudio: 0, audioLate: 0, audioStops: 1.0)
        let segments = try #require(s.pipeline(named: "audio")?.rendition.segments)
        let split = try #require(segments.firstIndex { $0.discontinuity })
        let last = try #require(segments[..<split].last { $0.gapDuration == nil })
        let end = Double(last.startDTS + last.duration) / Double(last.timescale)
        #expect(end < 1.0 + 1024.0 / 48_000, "audio's last frame was stretched to \(end) s")
    }
}
