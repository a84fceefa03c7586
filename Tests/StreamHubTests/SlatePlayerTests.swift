import MediaCore
import Testing

@testable import StreamHub

/// The slate loops in real time: frames due by now, in time order, keyframe first in every loop, and a gap before
/// it caught up at once (up to a limit).
struct SlatePlayerTests {
    static let clip = SlateClip(
        description: StreamDescription(),
        video: (0..<3).map { i in
            MediaFrame(kind: .video, dts: .zero(timescale: 90_000), isKeyframe: i == 0, data: [UInt8(i)])
        },
        videoFrameDuration: MediaTime(value: 3_000, timescale: 90_000),
        audio: MediaFrame(kind: .audio, dts: .zero(timescale: 48_000), isKeyframe: true, data: [9]),
        audioFrameDuration: MediaTime(value: 1_024, timescale: 48_000)
    )

    @Test func framesComeWhenDueInTimeOrderLoopingTheGOP() {
        let start = ContinuousClock.now
        var player = SlatePlayer(clip: Self.clip, anchor: start, now: start)
        let first = player.due(now: start)
        #expect(first.map(\.kind) == [.video, .audio])
        let next = player.due(now: start + .milliseconds(100))
        let all = first + next
        let times = all.map(\.dts.seconds)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 + 1e-9 })
        let video = all.filter { $0.kind == .video }
        #expect(video.count == 4)
        #expect(video.map(\.isKeyframe) == [true, false, false, true])
        #expect(all.filter { $0.kind == .audio }.count == 5)
    }

    @Test func aGapBeforeTheSlateIsCaughtUpAtOnceButNotBeyondTheLimit() {
        let now = ContinuousClock.now
        var recent = SlatePlayer(clip: Self.clip, anchor: now - .milliseconds(500), now: now)
        #expect(recent.due(now: now).filter { $0.kind == .video }.count == 16)
        var old = SlatePlayer(clip: Self.clip, anchor: now - .seconds(30), now: now)
        #expect(old.due(now: now).filter { $0.kind == .video }.count == 61)
    }
}
