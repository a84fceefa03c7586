import MediaCore
import Testing

/// Keyframe requests are paced, deferred inside the window and answered by any keyframe that passes meanwhile.
struct KeyframeRequestPacerTests {
    /// One step at `ms`: a request, a keyframe passing, or a tick; and whether the source is asked then.
    struct Step: Sendable, CustomTestStringConvertible {
        enum Event: Sendable {
            case request
            case keyframe
            case tick
        }
        let ms: Int
        let event: Event
        let asks: Bool
        var testDescription: String { "\(ms) ms \(event) → \(asks ? "ask" : "-")" }
    }

    /// A 500 ms pacer through joins, PLIs, natural keyframes and ticks (the golden timeline).
    static let timeline: [Step] = [
        .init(ms: 0, event: .tick, asks: false),  // Nothing wanted yet.
        .init(ms: 10, event: .request, asks: true),  // First request: at once.
        .init(ms: 100, event: .request, asks: false),  // Inside the window: deferred.
        .init(ms: 200, event: .request, asks: false),  // Folded into the deferred one.
        .init(ms: 509, event: .tick, asks: false),  // Window not over yet.
        .init(ms: 510, event: .tick, asks: true),  // Window over: the deferred request goes out.
        .init(ms: 540, event: .tick, asks: false),  // Only once.
        .init(ms: 600, event: .request, asks: false),  // Deferred…
        .init(ms: 650, event: .keyframe, asks: false),  // …and answered by the keyframe that passed.
        .init(ms: 1_100, event: .tick, asks: false),  // So nothing is asked when the window ends.
        .init(ms: 1_200, event: .keyframe, asks: false),  // A natural keyframe does not open a window…
        .init(ms: 1_210, event: .request, asks: true),  // …so a request right after it goes out at once.
    ]

    @Test func requestsGoOutAtOnceOrAtTheEndOfTheWindowNeverDropped() {
        var pacer = KeyframeRequestPacer(interval: .milliseconds(500))
        let t0 = ContinuousClock.now
        for step in Self.timeline {
            let now = t0.advanced(by: .milliseconds(step.ms))
            let asked: Bool
            switch step.event {
            case .request: asked = pacer.requested(now: now)
            case .keyframe:
                pacer.keyframePassed()
                asked = false
            case .tick: asked = pacer.tick(now: now)
            }
            #expect(asked == step.asks, "\(step.testDescription)")
        }
        #expect(pacer.passed == 3 && pacer.deferred == 3 && !pacer.isDeferred)
    }

    @Test func theDeferredRequestIsDueOneIntervalAfterTheLastOneAsked() {
        var pacer = KeyframeRequestPacer(interval: .milliseconds(300))
        let t0 = ContinuousClock.now
        #expect(pacer.deferredUntil == nil)
        let first = pacer.requested(now: t0)
        #expect(first && pacer.deferredUntil == nil)
        let second = pacer.requested(now: t0.advanced(by: .milliseconds(20)))
        #expect(!second)
        #expect(pacer.deferredUntil == t0.advanced(by: .milliseconds(300)))
    }
}
