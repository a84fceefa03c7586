import TestSupport
import Testing

@testable import Recorder

/// Start/stop as a value: which segments go to which recording with `record.enabled` on and off, renditions kept
/// aligned across a start and a stop, and the API's refusals.
@Suite struct RecordingControlTests {
    /// Feeds `msn` of `video` then `audio` (the packager closes video first) and returns where each went.
    static func feed(
        _ c: inout RecordingControl,
        _ msn: Int,
        epoch: String = "e1",
        renditions: [String] = ["video", "audio"]
    )
        -> [RecordingControl.Decision]
    {
        renditions.map { c.segment(key: "cam", epoch: epoch, rendition: $0, msn: msn) { "auto-\(epoch)" } }
    }

    @Test func enabledRecordsEveryStreamLifeFromItsFirstSegment() {
        var c = RecordingControl(automatic: true)
        #expect(Self.feed(&c, 0).map(\.recording) == ["auto-e1", "auto-e1"])
        #expect(Self.feed(&c, 1).map(\.recording) == ["auto-e1", "auto-e1"])
        #expect(c.ended(key: "cam") == ["auto-e1"])
        #expect(Self.feed(&c, 0, epoch: "e2").map(\.recording) == ["auto-e2", "auto-e2"])
    }

    @Test func aSegmentOfALifeThatEndedOpensNoNewRecording() {
        var c = RecordingControl(automatic: true)
        _ = Self.feed(&c, 0)
        #expect(c.ended(key: "cam") == ["auto-e1"])
        // A rung's last segment handed over after the end: before, it opened a second recording no end would finish.
        let late = c.segment(key: "cam", epoch: "e1", rendition: "360p", msn: 1) { "stray" }
        #expect(late == .init(recording: nil, afterEnd: true))
        #expect(c.current("cam") == nil)
        #expect(Self.feed(&c, 0, epoch: "e2").map(\.recording) == ["auto-e2", "auto-e2"])
    }

    @Test func disabledRecordsNothingUntilTheAPIStartsAndThenFromTheNextMSNForEveryRendition() throws {
        var c = RecordingControl(automatic: false)
        #expect(Self.feed(&c, 0).map(\.recording) == [nil, nil])
        // Video's segment 1 closed, audio's not yet: the recording begins at 2 for both.
        _ = c.segment(key: "cam", epoch: "e1", rendition: "video", msn: 1) { "x" }
        #expect(try c.start(key: "cam", publishing: true, id: "r1") == "r1")
        #expect(c.segment(key: "cam", epoch: "e1", rendition: "audio", msn: 1) { "x" }.recording == nil)
        #expect(Self.feed(&c, 2).map(\.recording) == ["r1", "r1"])
    }

    @Test func aStopKeepsTheLaggingRenditionsSegmentAndFinishesWhenItArrives() throws {
        var c = RecordingControl(automatic: false)
        _ = try c.start(key: "cam", publishing: true, id: "r1")
        _ = Self.feed(&c, 0)
        _ = c.segment(key: "cam", epoch: "e1", rendition: "video", msn: 1) { "x" }
        let stopped = try c.stop(key: "cam", publishing: true)
        #expect(stopped.id == "r1" && stopped.finish.isEmpty)
        let lagging = c.segment(key: "cam", epoch: "e1", rendition: "audio", msn: 1) { "x" }
        #expect(lagging == .init(recording: "r1", finish: ["r1"]))
        #expect(Self.feed(&c, 2).map(\.recording) == [nil, nil])
    }

    @Test func aStopWithEveryRenditionCaughtUpFinishesAtOnce() throws {
        var c = RecordingControl(automatic: true)
        _ = Self.feed(&c, 0)
        let stopped = try c.stop(key: "cam", publishing: true)
        #expect(stopped.id == "auto-e1" && stopped.finish == ["auto-e1"])
        // Stopped by the API: record.enabled does not reopen this stream life.
        #expect(Self.feed(&c, 1).map(\.recording) == [nil, nil])
        #expect(try c.start(key: "cam", publishing: true, id: "r2") == "r2")
        #expect(Self.feed(&c, 2).map(\.recording) == ["r2", "r2"])
    }

    @Test func theAPIRefusesWhatIsAlreadySoAndStreamsThatAreNotLive() throws {
        var c = RecordingControl(automatic: true)
        #expect(throws: RecorderError.notLive("cam")) { try c.start(key: "cam", publishing: false, id: "r") }
        #expect(throws: RecorderError.notLive("cam")) { try c.stop(key: "cam", publishing: false) }
        #expect(throws: RecorderError.notRecording("cam")) { try c.stop(key: "cam", publishing: true) }
        _ = Self.feed(&c, 0)
        #expect(throws: RecorderError.alreadyRecording(key: "cam", id: "auto-e1")) {
            try c.start(key: "cam", publishing: true, id: "r")
        }
        _ = try c.stop(key: "cam", publishing: true)
        #expect(throws: RecorderError.notRecording("cam")) { try c.stop(key: "cam", publishing: true) }
    }

    @Test func aStartBeforeTheFirstSegmentRecordsFromIt() throws {
        var c = RecordingControl(automatic: false)
        _ = try c.start(key: "cam", publishing: true, id: "r1")
        #expect(Self.feed(&c, 0).map(\.recording) == ["r1", "r1"])
    }

    @Test func aNewStreamLifeWithoutAnEndNoticeFinishesTheOldRecording() {
        var c = RecordingControl(automatic: true)
        _ = Self.feed(&c, 3)
        let d = Self.feed(&c, 0, epoch: "e2")
        #expect(d[0] == .init(recording: "auto-e2", finish: ["auto-e1"]))
    }

    @Test func theStreamsEndFinishesClosingRecordingsToo() throws {
        var c = RecordingControl(automatic: false)
        _ = try c.start(key: "cam", publishing: true, id: "r1")
        _ = c.segment(key: "cam", epoch: "e1", rendition: "video", msn: 0) { "x" }
        _ = c.segment(key: "cam", epoch: "e1", rendition: "audio", msn: 0) { "x" }
        _ = c.segment(key: "cam", epoch: "e1", rendition: "video", msn: 1) { "x" }
        _ = try c.stop(key: "cam", publishing: true)
        #expect(c.ended(key: "cam") == ["r1"])
        #expect(!c.knows("cam"))
    }

    /// Property: whatever the order of starts, stops and segments, every recording id that took a segment is
    /// finished exactly once by the end of the stream life, and no segment goes to two recordings.
    @Test func everyRecordingThatTookASegmentFinishesExactlyOnce() throws {
        var rng = SeededRandom(seed: 7)
        for _ in 0..<300 {
            var c = RecordingControl(automatic: rng.next() % 2 == 0)
            var took: Set<String> = []
            var finished: [String] = []
            var n = 0
            for msn in 0..<12 {
                for rendition in ["video", "audio"] {
                    switch rng.next() % 6 {
                    case 0:
                        n += 1
                        _ = try? c.start(key: "cam", publishing: true, id: "r\(n)")
                    case 1:
                        if let s = try? c.stop(key: "cam", publishing: true) { finished += s.finish }
                    default: break
                    }
                    let d = c.segment(key: "cam", epoch: "e", rendition: rendition, msn: msn) { "auto" }
                    if let r = d.recording { took.insert(r) }
                    finished += d.finish
                }
            }
            finished += c.ended(key: "cam")
            #expect(Set(finished).count == finished.count, "\(finished)")
            #expect(took.isSubset(of: Set(finished)), "\(took) \(finished)")
        }
    }
}
