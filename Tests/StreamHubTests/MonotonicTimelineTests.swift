import MediaCore
import TestSupport
import Testing

@testable import StreamHub

/// A publisher's timestamps jumping mid-stream come out monotonic per track, both tracks moved by one offset.
struct MonotonicTimelineTests {
    /// One golden case: frames in (track, RTMP milliseconds), the times out, and the rebases logged.
    struct JumpCase: Sendable, CustomTestStringConvertible {
        var name: String
        var frames: [(MediaKind, Int64)]
        var out: [Int64]
        /// (track, from ms, to ms, offset ms).
        var rebases: [(MediaKind, Int64, Int64, Int64)] = []
        var testDescription: String { name }

        /// 30.000 s into the source: video at 30 fps, AAC at 48 kHz, interleaved as FFmpeg's FLV muxer sends them.
        static let start: [(MediaKind, Int64)] = [
            (.video, 30_000), (.audio, 30_000), (.video, 30_033), (.audio, 30_021), (.video, 30_067), (.audio, 30_043),
        ]
        static let startOut: [Int64] = [30_000, 30_000, 30_033, 30_021, 30_067, 30_043]

        static let all: [JumpCase] = [
            JumpCase(name: "steady", frames: start + [(.video, 30_100)], out: startOut + [30_100]),
            // An encoder restarted 20 s back: video goes on one frame after its last, audio moved as much lands 1 ms
            // after its due time and goes on there.
            JumpCase(
                name: "both tracks 20 s back",
                frames: start + [(.video, 10_100), (.audio, 10_065), (.video, 10_133), (.audio, 10_086)],
                out: startOut + [30_101, 30_065, 30_134, 30_086],
                rebases: [(.video, 30_067, 10_100, 20_001)]
            ),
            JumpCase(
                name: "both tracks 60 s forward, audio first",
                frames: start + [(.audio, 90_065), (.video, 90_100), (.audio, 90_086)],
                out: startOut + [30_065, 30_101, 30_086],
                rebases: [(.audio, 30_043, 90_065, -60_000)]
            ),
            // One track 1 s back: it goes on one frame after its last; video is untouched.
            JumpCase(
                name: "audio alone 1 s back",
                frames: start + [(.audio, 29_064), (.video, 30_100), (.audio, 29_086), (.video, 30_133)],
                out: startOut + [30_065, 30_100, 30_087, 30_133],
                rebases: [(.audio, 30_043, 29_064, 1_001)]
            ),
            JumpCase(
                name: "video alone 5 s forward",
                frames: start + [(.video, 35_100), (.audio, 30_065), (.video, 35_133)],
                out: startOut + [30_101, 30_065, 30_134],
                rebases: [(.video, 30_067, 35_100, -4_999)]
            ),
            // A gap under the forward limit is the source's own: kept.
            JumpCase(name: "2 s forward kept", frames: start + [(.video, 32_100)], out: startOut + [32_100]),
            // Tracks that start apart are not a jump: a track's first frame keeps its time.
            JumpCase(
                name: "video 10 s after audio",
                frames: [(.audio, 9_963), (.audio, 9_984), (.video, 10_000), (.audio, 10_005)],
                out: [9_963, 9_984, 10_000, 10_005]
            ),
            // Audio that starts after a jump takes the jump's offset.
            JumpCase(
                name: "audio first after the jump",
                frames: [(.video, 30_000), (.video, 30_033), (.video, 10_067), (.audio, 10_070)],
                out: [30_000, 30_033, 30_066, 30_069],
                rebases: [(.video, 30_033, 10_067, 19_999)]
            ),
            // The follower's first new frame lands before its own last: it goes on where it is due instead.
            JumpCase(
                name: "follower never goes back",
                frames: start + [(.video, 10_100), (.audio, 9_900)],
                out: startOut + [30_101, 30_065],
                rebases: [(.video, 30_067, 10_100, 20_001)]
            ),
            // The new encoder's audio starts 0.2 s after its video: the shift keeps them in sync, leaving that hole.
            JumpCase(
                name: "follower keeps sync past the snap",
                frames: start + [(.video, 10_100), (.audio, 10_300)],
                out: startOut + [30_101, 30_301],
                rebases: [(.video, 30_067, 10_100, 20_001)]
            ),
        ]
    }

    @Test(arguments: JumpCase.all)
    func goldenTable(_ c: JumpCase) {
        var t = MonotonicTimeline()
        var out: [Int64] = []
        var rebases: [MonotonicTimeline.Rebase] = []
        for (kind, ms) in c.frames {
            let frame = MediaFrame(kind: kind, dts: MediaTime(value: ms, timescale: 1_000), isKeyframe: true, data: [])
            let placed = t.place(frame)
            #expect(placed.frame.dts.timescale == 1_000)
            out.append(placed.frame.dts.value)
            if let r = placed.rebase { rebases.append(r) }
        }
        #expect(out == c.out)
        let want = c.rebases.map { kind, from, to, offset in
            MonotonicTimeline.Rebase(
                track: kind,
                from: MediaTime(value: from, timescale: 1_000),
                to: MediaTime(value: to, timescale: 1_000),
                offset: MediaTime(value: offset * 90, timescale: 90_000)
            )
        }
        #expect(rebases == want)
        #expect(t.rebases == want.count)
    }

    /// Random sources (video 30 fps at 90 kHz, AAC at 48 kHz, interleaved up to 60 ms apart) whose timestamps jump
    /// on both tracks (back any amount, forward past the limit) or on one track (back, or forward past the limit):
    /// each track's output never goes back, and the newest video and audio stay within 150 ms of each other.
    @Test func outputIsMonotonicPerTrackAndTracksStayInSync() {
        var rng = SeededRandom(seed: 0x51)
        for _ in 0..<300 {
            var timeline = MonotonicTimeline()
            var last: [MediaKind: MediaTime] = [:]
            for frame in Self.randomSource(&rng) {
                let out = timeline.place(frame).frame
                if let previous = last[frame.kind] { #expect(out.dts >= previous) }
                last[frame.kind] = out.dts
                if let v = last[.video], let a = last[.audio] {
                    let apart = abs((v - a).converted(to: 90_000).value)
                    #expect(apart <= 150 * 90, "video \(v.seconds) s, audio \(a.seconds) s")
                }
            }
        }
    }

    /// Frames in arrival order of one random publish, 4–20 s long, with 0–4 jumps.
    static func randomSource(_ rng: inout SeededRandom) -> [MediaFrame] {
        struct Shift {
            var at: Int64
            var by: Int64
            var only: MediaKind?
        }
        let length = Int64.random(in: 4_000...20_000, using: &rng)
        var shifts: [Shift] = []
        var at: Int64 = 0
        for _ in 0..<Int.random(in: 0...4, using: &rng) {
            at += Int64.random(in: 500...5_000, using: &rng)
            let back = Bool.random(using: &rng)
            let magnitude =
                back ? Int64.random(in: 1...60_000, using: &rng) : Int64.random(in: 3_500...60_000, using: &rng)
            let only: MediaKind? = Bool.random(using: &rng) ? nil : (Bool.random(using: &rng) ? .video : .audio)
            shifts.append(Shift(at: at, by: back ? -magnitude : magnitude, only: only))
        }
        // (arrival key, frame): each track in order, the two interleaved with jitter.
        var frames: [(Int64, MediaFrame)] = []
        let start = Int64.random(in: 0...100_000, using: &rng)
        for kind in [MediaKind.video, .audio] {
            let step: Double = kind == .video ? 1_000.0 / 30 : 1_024_000.0 / 48_000
            let scale: Int32 = kind == .video ? 90_000 : 48_000
            let jitter = kind == .audio ? Int64.random(in: 0...60, using: &rng) : 0
            var i = 0.0
            while Int64(i * step) < length {
                let ms = Int64(i * step)
                let moved = shifts.filter { $0.at <= ms && ($0.only == nil || $0.only == kind) }.reduce(0) {
                    $0 + $1.by
                }
                let ticks = (start + ms + moved) * Int64(scale) / 1_000
                let frame = MediaFrame(
                    kind: kind,
                    dts: MediaTime(value: ticks, timescale: scale),
                    isKeyframe: true,
                    data: []
                )
                frames.append((ms + jitter, frame))
                i += 1
            }
        }
        return frames.sorted { $0.0 < $1.0 }.map(\.1)
    }
}
