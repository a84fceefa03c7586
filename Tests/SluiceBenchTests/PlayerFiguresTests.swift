import Foundation
import Testing

@testable import SluiceBench

/// The real-player figures computed from what the page posted: glass per presented frame, first frames, stalls,
/// switches and errors, each counted.
@Suite struct PlayerFiguresTests {
    typealias Frame = PlayerTrace.Frame
    typealias Event = PlayerTrace.Event

    /// Publisher started at t = 1_000_000 ms; viewer 1 shows frames every 33 ms from +900 ms, 800 ms behind capture.
    static let publishStart = 1_000_000.0

    static func frames(
        viewer: Int,
        from: Double,
        count: Int,
        behind: Double,
        height: Int = 360,
        presented: Int = 1
    )
        -> [Frame]
    {
        (0..<count).map { i in
            let shown = from + Double(i) * 33
            return Frame(
                viewer: viewer,
                capture: shown - behind,
                shown: shown,
                height: height,
                presented: presented + i
            )
        }
    }

    static func trace(frames: [Frame], events: [Event]) -> PlayerTrace {
        var t = PlayerTrace()
        t.add(.init(frames: frames, events: events, final: true))
        return t
    }

    @Test func glassIsShownMinusCaptureForViewerOneOnly() throws {
        let t = Self.trace(
            frames: Self.frames(viewer: 1, from: Self.publishStart + 900, count: 100, behind: 800)
                + Self.frames(viewer: 2, from: Self.publishStart + 9_000, count: 50, behind: 5_000),
            events: [Event(viewer: 2, at: Self.publishStart + 8_400, type: "start")]
        )
        let f = PlayerFigures(t, publishStart: Self.publishStart)
        let glass = try #require(f.glass)
        #expect(glass.count == 100 && glass.p50Ms == 800 && glass.p99Ms == 800)
        #expect(f.presented == 100 && f.unreadable == 0 && f.missed == 0)
        #expect(f.publishToFirstFrameMs == 900)
        #expect(f.joinToFirstFrameMs == 600)
        #expect(f.stalls == 0 && f.renditionSwitches == 0 && f.errors == 0 && f.heights == [360])
        // Viewer 2's own glass, over its 49 frames after the first.
        #expect(f.joinGlass?.count == 49 && f.joinGlass?.p50Ms == 5_000 && f.joinGlass?.p95Ms == 5_000)
    }

    @Test func joinGlassIsTheJoiningViewersFramesAfterItsFirstWithP95() throws {
        // Its first frame sits 3 s behind (left out); then 100 frames 601..700 ms behind, one of them unreadable.
        var joiner = Self.frames(viewer: 2, from: Self.publishStart + 9_000, count: 101, behind: 0)
        joiner[0].capture = joiner[0].shown - 3_000
        for i in 1...100 { joiner[i].capture = joiner[i].shown - Double(600 + i) }
        joiner[50].capture = nil
        let t = Self.trace(
            frames: Self.frames(viewer: 1, from: Self.publishStart + 900, count: 100, behind: 800) + joiner,
            events: [Event(viewer: 2, at: Self.publishStart + 8_800, type: "start")]
        )
        let f = PlayerFigures(t, publishStart: Self.publishStart)
        let join = try #require(f.joinGlass)
        // 99 samples (601..700 without 650): nearest rank 50 is 651, rank 95 is 696.
        #expect(join.count == 99 && join.p50Ms == 651 && join.p95Ms == 696 && join.p99Ms == 700)
        #expect(f.joinToFirstFrameMs == 200)
        // Viewer 1's glass is its own.
        #expect(f.glass?.p50Ms == 800 && f.glass?.count == 100)
    }

    @Test func unreadableAndMissedFramesAreCountedNotMeasured() throws {
        var frames = Self.frames(viewer: 1, from: Self.publishStart + 1_000, count: 10, behind: 700)
        frames[3].capture = nil
        // The browser presented 4 frames between callbacks 6 and 7 (3 never read).
        for i in 7..<10 { frames[i].presented += 3 }
        let f = PlayerFigures(Self.trace(frames: frames, events: []), publishStart: Self.publishStart)
        #expect(f.presented == 10 && f.unreadable == 1 && f.missed == 3)
        #expect(f.glass?.count == 9)
    }

    @Test func stallsCountWaitingAfterTheFirstFrameUntilPlayingOrTheNextFrame() {
        let start = Self.publishStart + 1_000
        let frames =
            Self.frames(viewer: 1, from: start, count: 10, behind: 700)
            + Self.frames(viewer: 1, from: start + 2_000, count: 10, behind: 1_100, presented: 11)
        let events = [
            Event(viewer: 1, at: start - 300, type: "waiting"),  // before the first frame: startup, not a stall
            Event(viewer: 1, at: start + 330, type: "waiting"),
            Event(viewer: 1, at: start + 1_330, type: "playing"),  // ends the first stall: 1000 ms
            Event(viewer: 1, at: start + 1_600, type: "waiting"),  // ended by the next frame at +2000: 400 ms
            Event(viewer: 2, at: start + 1_700, type: "waiting"),  // another viewer
        ]
        let f = PlayerFigures(Self.trace(frames: frames, events: events), publishStart: Self.publishStart)
        #expect(f.stalls == 2)
        #expect(abs(f.stalledMs - 1_400) < 0.001)
        #expect(f.glass?.p50Ms == 700 && f.glass?.p99Ms == 1_100)
    }

    @Test func renditionSwitchesAreHeightChangesAndEveryErrorIsCounted() {
        let start = Self.publishStart + 1_000
        let frames =
            Self.frames(viewer: 1, from: start, count: 5, behind: 700, height: 360)
            + Self.frames(viewer: 1, from: start + 165, count: 5, behind: 700, height: 480, presented: 6)
            + Self.frames(viewer: 1, from: start + 330, count: 5, behind: 700, height: 360, presented: 11)
        let events = [
            Event(
                viewer: 1,
                at: start - 500,
                type: "fatal",
                detail: "networkError/manifestLoadError 404 http://x/index.m3u8"
            ),
            Event(
                viewer: 1,
                at: start + 100,
                type: "error",
                detail: "networkError/levelLoadError 404 http://x/480p.m3u8"
            ),
            Event(
                viewer: 1,
                at: start + 120,
                type: "error",
                detail: "networkError/levelLoadTimeOut http://x/480p.m3u8"
            ),
            Event(viewer: 1, at: start + 200, type: "levelSwitched", detail: "480"),
            Event(viewer: 0, at: start + 300, type: "pageError", detail: "boom"),
        ]
        let f = PlayerFigures(Self.trace(frames: frames, events: events), publishStart: Self.publishStart)
        #expect(f.renditionSwitches == 2 && f.heights == [360, 480])
        #expect(f.errors == 4 && f.fatalErrors == 1 && f.levelLoadErrors == 2 && f.startupErrors == 1)
        #expect(f.errorSamples.count == 4 && f.errorSamples[0].contains("manifestLoadError"))
    }

    @Test func errorsAndStallsAfterThePublisherStoppedAreCountedApart() {
        let start = Self.publishStart + 1_000
        let end = start + 1_000
        let frames = Self.frames(viewer: 1, from: start, count: 40, behind: 700)
        let events = [
            Event(viewer: 1, at: start + 500, type: "error", detail: "networkError/levelLoadError 404 x"),
            Event(viewer: 1, at: end + 10, type: "error", detail: "networkError/levelLoadError 503 x"),
            Event(viewer: 1, at: end + 20, type: "fatal", detail: "networkError/levelLoadError 503 x"),
            Event(viewer: 1, at: end + 30, type: "waiting"),
        ]
        let f = PlayerFigures(
            Self.trace(frames: frames, events: events),
            publishStart: Self.publishStart,
            publishEnd: end
        )
        #expect(f.errors == 3 && f.afterEndErrors == 2)
        #expect(f.levelLoadErrors == 1 && f.fatalErrors == 0 && f.stalls == 0)
        #expect(f.errorSamples.count == 3)
    }

    @Test func noFramesMeansNoGlassAndNoFirstFrame() {
        let f = PlayerFigures(
            Self.trace(frames: [], events: [Event(viewer: 1, at: Self.publishStart + 10, type: "fatal", detail: "x")]),
            publishStart: Self.publishStart
        )
        #expect(f.glass == nil && f.publishToFirstFrameMs == nil && f.joinToFirstFrameMs == nil && f.joinGlass == nil)
        #expect(f.fatalErrors == 1 && f.startupErrors == 1)
    }

    @Test func thePagesBatchDecodesFromJSON() throws {
        let json = """
            {"frames":[{"viewer":1,"capture":1764063000123,"shown":1764063000900.5,"height":480,"presented":7},
                       {"viewer":1,"capture":null,"shown":1764063000933.8,"height":480,"presented":8}],
             "events":[{"viewer":1,"at":1764063000000.25,"type":"waiting","detail":"1.200"},
                       {"viewer":0,"at":1764063000001,"type":"version","detail":null}],
             "final":false}
            """
        let batch = try JSONDecoder().decode(PlayerTrace.Batch.self, from: Data(json.utf8))
        #expect(
            batch.frames.count == 2 && batch.frames[0].capture == 1_764_063_000_123 && batch.frames[1].capture == nil
        )
        #expect(batch.events[0].type == "waiting" && batch.events[1].detail == nil && !batch.final)
    }
}
