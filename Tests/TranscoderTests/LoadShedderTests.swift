import MediaCore
import Testing

@testable import Transcoder

/// The ladder's load-shedding decisions as a value: a timeline of queue states in, the steps out, in order.
@Suite struct LoadShedderTests {
    /// The default 1080p ladder below a passthrough: 720p, 480p, 360p.
    static let ladder = [
        ShedRung(name: "720p", pixels: 1280 * 720),
        ShedRung(name: "480p", pixels: 854 * 480),
        ShedRung(name: "360p", pixels: 640 * 360),
    ]

    /// One observation: at `t` seconds, these rungs are behind (or the decoder), or everything is calm.
    struct Tick {
        var t: Double
        var load: LadderLoad

        static func behind(_ t: Double, _ rungs: String...) -> Tick { Tick(t: t, load: LadderLoad(behind: rungs)) }
        static func decoder(_ t: Double) -> Tick { Tick(t: t, load: LadderLoad(decoderBehind: true)) }
        static func calm(_ t: Double) -> Tick { Tick(t: t, load: LadderLoad(calm: true)) }
        static func busy(_ t: Double) -> Tick { Tick(t: t, load: LadderLoad()) }
    }

    /// Runs `ticks` (every 0.5 s from `from` to `to` with the same load) and returns the steps with their times.
    private func run(
        _ shedder: inout LoadShedder,
        _ ticks: [Tick],
        start: ContinuousClock.Instant
    ) -> [(Double, ShedAction)] {
        var out: [(Double, ShedAction)] = []
        for tick in ticks {
            for (action, _) in shedder.observe(tick.load, now: start + .milliseconds(Int64(tick.t * 1000))) {
                out.append((tick.t, action))
            }
        }
        return out
    }

    private func every(_ from: Double, _ to: Double, _ make: (Double) -> Tick) -> [Tick] {
        stride(from: from, through: to, by: 0.5).map(make)
    }

    @Test func queueGrowthStepsThePresetThenDropsTheMiddleRungThenRecoversInReverseOrder() {
        var shedder = LoadShedder(rungs: Self.ladder, normalPreset: "veryfast", policy: LoadSheddingPolicy())
        let t0 = ContinuousClock.now
        // 720p behind from 0 s to 5 s (after its drop at 4 s no queue is fed), then everything calm until 40 s.
        let ticks = every(0, 5) { .behind($0, "720p") } + every(5.5, 40) { .calm($0) }
        let steps = run(&shedder, ticks, start: t0)
        let golden: [(Double, ShedAction)] = [
            (2, .fasterPreset(rung: "720p", preset: "superfast")),
            (4, .drop(rung: "720p")),
            (15.5, .restore(rung: "720p")),
            (25.5, .normalPreset(rung: "720p", preset: "veryfast")),
        ]
        #expect(steps.map(\.0) == golden.map(\.0))
        #expect(steps.map(\.1) == golden.map(\.1))
        #expect(!shedder.isShedding)
    }

    /// A publisher that reconnects into the same overload: the new ladder starts with the old one's steps in force and
    /// its recovery wait, undoes them last-first after that calm, and skips steps naming a rung it does not have.
    @Test func aNewSessionStartsWithThePreviousSessionsStepsAndUndoesThemLastFirst() {
        var first = LoadShedder(rungs: Self.ladder, normalPreset: "veryfast", policy: LoadSheddingPolicy())
        let t0 = ContinuousClock.now
        _ = run(&first, every(0, 5) { .behind($0, "720p") }, start: t0)
        #expect(first.inForce == [.fasterPreset(rung: "720p", preset: "superfast"), .drop(rung: "720p")])
        let memory = ShedMemory()
        let key = StreamKey("cam")!
        memory.store(first.memory, for: key, now: t0)
        let kept = memory.recall(key, within: .seconds(120), now: t0 + .seconds(30))
        #expect(kept == first.memory)

        let rungs = Self.ladder + [ShedRung(name: "240p", pixels: 426 * 240)]
        var next = LoadShedder(rungs: rungs, normalPreset: "veryfast", policy: LoadSheddingPolicy(), remembering: kept)
        #expect(next.inForce == first.inForce)
        #expect(next.modes == ["720p": .dropped, "480p": .normal, "360p": .normal, "240p": .normal])
        #expect(next.isShedding)
        let steps = run(&next, every(0, 30) { .calm($0) }, start: t0 + .seconds(40))
        #expect(steps.map(\.0) == [10, 20])
        #expect(steps.map(\.1) == [.restore(rung: "720p"), .normalPreset(rung: "720p", preset: "veryfast")])

        // A ladder without the remembered rung (another source size) inherits nothing.
        let other = LoadShedder(
            rungs: [ShedRung(name: "360p", pixels: 640 * 360)],
            normalPreset: "veryfast",
            policy: LoadSheddingPolicy(),
            remembering: kept
        )
        #expect(other.inForce.isEmpty)
    }

    @Test func theMemoryForgetsAfterTheLongestRecoveryAndWhenNothingWasShed() {
        let memory = ShedMemory()
        let key = StreamKey("cam")!
        let t0 = ContinuousClock.now
        let state = LoadShedder.Memory(steps: [.drop(rung: "480p")], recoveryWait: .seconds(10))
        memory.store(state, for: key, now: t0)
        #expect(memory.recall(key, within: .seconds(120), now: t0 + .seconds(121)) == nil)
        memory.store(state, for: key, now: t0)
        memory.store(LoadShedder.Memory(steps: [], recoveryWait: .seconds(10)), for: key, now: t0)
        #expect(memory.recall(key, within: .seconds(120), now: t0) == nil)
        // A disabled policy starts clean whatever was kept.
        var off = LoadSheddingPolicy()
        off.enabled = false
        #expect(
            LoadShedder(rungs: Self.ladder, normalPreset: "veryfast", policy: off, remembering: state).inForce.isEmpty
        )
    }

    @Test func aBacklogShorterThanThePatienceShedsNothing() {
        var shedder = LoadShedder(rungs: Self.ladder, normalPreset: "veryfast", policy: LoadSheddingPolicy())
        let ticks =
            every(0, 1.5) { .behind($0, "480p") } + every(2, 3) { .busy($0) } + every(3.5, 5) { .behind($0, "480p") }
        #expect(run(&shedder, ticks, start: .now).isEmpty)
    }

    @Test func theLowestRungGoesLastAndTheTopRungNever() {
        let rungs = [ShedRung(name: "1080p", pixels: 1920 * 1080, isTop: true)] + Self.ladder
        var shedder = LoadShedder(rungs: rungs, normalPreset: "veryfast", policy: LoadSheddingPolicy())
        // The 360p rung itself stays behind: its preset first, then the middle rungs go, most expensive first, then
        // 360p itself; the source-size top rung stays.
        let steps = run(&shedder, every(0, 14) { .behind($0, "360p") }, start: .now)
        #expect(
            steps.map(\.1) == [
                .fasterPreset(rung: "360p", preset: "superfast"), .drop(rung: "720p"), .drop(rung: "480p"),
                .drop(rung: "360p"), .exhausted,
            ]
        )
        #expect(steps.map(\.0) == [2, 4, 6, 8, 10])
        #expect(shedder.dropped == ["720p", "480p", "360p"])
    }

    @Test func aBehindDecoderStepsTheMostExpensiveRungsPresetFirst() {
        var shedder = LoadShedder(rungs: Self.ladder, normalPreset: "veryfast", policy: LoadSheddingPolicy())
        let steps = run(&shedder, every(0, 6) { .decoder($0) }, start: .now)
        #expect(
            steps.map(\.1) == [
                .fasterPreset(rung: "720p", preset: "superfast"), .fasterPreset(rung: "480p", preset: "superfast"),
                .fasterPreset(rung: "360p", preset: "superfast"),
            ]
        )
    }

    @Test func withoutAFasterPresetTheFirstStepDrops() {
        var policy = LoadSheddingPolicy()
        policy.fastPreset = nil
        var shedder = LoadShedder(rungs: Self.ladder, normalPreset: "veryfast", policy: policy)
        #expect(run(&shedder, every(0, 2) { .behind($0, "720p") }, start: .now).map(\.1) == [.drop(rung: "720p")])
    }

    @Test func loadReturningSoonAfterARestoreDoublesTheRecoveryWait() {
        var shedder = LoadShedder(rungs: Self.ladder, normalPreset: "veryfast", policy: LoadSheddingPolicy())
        let t0 = ContinuousClock.now
        // Shed 720p's preset at 2 s; calm from 2.5 s restores it at 12.5 s; behind again at once: shed at 15 s.
        var ticks = every(0, 2) { .behind($0, "720p") } + every(2.5, 12.5) { .calm($0) }
        ticks += every(13, 15) { .behind($0, "720p") } + every(15.5, 45) { .calm($0) }
        let steps = run(&shedder, ticks, start: t0)
        #expect(steps.map(\.0) == [2, 12.5, 15, 35.5], "the second recovery waits 20 s of calm, not 10")
        #expect(shedder.recoveryWait == .seconds(20))
    }

    @Test func halfwayLoadNeitherShedsNorRecovers() {
        var shedder = LoadShedder(rungs: Self.ladder, normalPreset: "veryfast", policy: LoadSheddingPolicy())
        let t0 = ContinuousClock.now
        _ = run(&shedder, every(0, 2) { .behind($0, "720p") }, start: t0)
        // Queues between low and behind: the preset step stays in force however long it lasts.
        #expect(run(&shedder, every(2.5, 60) { .busy($0) }, start: t0).isEmpty)
        #expect(shedder.modes["720p"] == .fast)
    }

    @Test func disabledSheddingDoesNothing() {
        var policy = LoadSheddingPolicy()
        policy.enabled = false
        var shedder = LoadShedder(rungs: Self.ladder, normalPreset: "veryfast", policy: policy)
        #expect(run(&shedder, every(0, 30) { .behind($0, "720p") }, start: .now).isEmpty)
    }
}

/// The gauge that feeds the shedder: an overflowing queue stays "behind" while it drains, for the patience after its
/// last refusal, so sustained overload with drop-and-resync cycles looks sustained.
@Suite struct LadderLoadGaugeTests {
    @Test func aQueueThatRefusedStaysBehindForTheMemoryThenTurnsLow() {
        var gauge = LadderLoadGauge(memory: .seconds(2))
        let t0 = ContinuousClock.now
        func at(_ s: Double, depth: Int, refused: Int, skipping: Bool = false) -> QueueState {
            gauge.behind(
                "720p",
                depth: depth,
                capacity: 30,
                refusedTotal: refused,
                skipping: skipping,
                now: t0 + .milliseconds(Int64(s * 1000))
            )
        }
        let golden: [(Double, Int, Int, Bool, QueueState)] = [
            // seconds, depth, refused total, skipping → behind, low (shedder); lagging, drained (packager)
            (0, 2, 0, false, QueueState(behind: false, low: true, lagging: false, drained: false)),
            (0.5, 16, 0, false, QueueState(behind: true, low: false, lagging: true, drained: false)),
            (1, 30, 4, false, QueueState(behind: true, low: false, lagging: true, drained: false)),
            (1.5, 0, 4, true, QueueState(behind: true, low: false, lagging: true, drained: false)),
            (2.5, 0, 4, false, QueueState(behind: true, low: false, lagging: true, drained: false)),
            (3.1, 3, 4, false, QueueState(behind: false, low: true, lagging: false, drained: false)),
            (3.5, 10, 4, false, QueueState(behind: false, low: false, lagging: true, drained: false)),
            (4, 1, 4, false, QueueState(behind: false, low: true, lagging: false, drained: true)),
        ]
        for (s, depth, refused, skipping, want) in golden {
            #expect(at(s, depth: depth, refused: refused, skipping: skipping) == want, "at \(s) s")
        }
    }
}
