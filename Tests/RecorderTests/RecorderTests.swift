import Foundation
import LLHLSPackager
import Logging
import MediaCore
import NIOCore
import Testing

@testable import Recorder

/// The recording's layout and playlists as values, the names a request may use, and crash recovery on a real
/// directory.
@Suite struct RecorderTests {
    static let t0 = WallTime(millisecondsSince1970: 1_795_680_000_000)

    static func segment(
        _ rendition: String,
        msn: Int,
        seconds: Double = 1,
        init index: Int = 0,
        discontinuity: Bool = false
    )
        -> PackagedSegment
    {
        PackagedSegment(
            key: StreamKey("cam")!,
            rendition: rendition,
            epoch: "ep1",
            msn: msn,
            duration: MediaTime(value: Int64(seconds * 90_000), timescale: 90_000),
            discontinuity: discontinuity,
            independent: true,
            initIndex: index,
            initSection: [0, 0, 0, 8, 0x66, 0x74, 0x79, 0x70],
            data: ByteBuffer(bytes: [UInt8](repeating: UInt8(msn), count: 100)),
            programDateTime: t0.advanced(by: .seconds(Double(msn - 1) * seconds)),
            multivariant: nil
        )
    }

    @Test func aGrowingRecordingIsAnEventPlaylistAndFinishesAsVOD() {
        var w = RecordingWriter(key: "cam", id: "r1", started: Self.t0)
        let first = w.add(Self.segment("video", msn: 1)) { $0 }
        #expect(first.map(\.path) == ["video/init-0.mp4", "video/1.m4s", "video.m3u8"])
        let second = w.add(Self.segment("video", msn: 2, init: 1, discontinuity: true)) { $0 }
        #expect(second.map(\.path) == ["video/init-1.mp4", "video/2.m4s", "video.m3u8"])
        let growing = String(decoding: second.last!.bytes, as: UTF8.self)
        #expect(growing.contains("#EXT-X-PLAYLIST-TYPE:EVENT") && !growing.contains("#EXT-X-ENDLIST"))
        let done = w.finish()
        #expect(
            String(decoding: done[0].bytes, as: UTF8.self) == """
                #EXTM3U
                #EXT-X-VERSION:7
                #EXT-X-TARGETDURATION:1
                #EXT-X-MEDIA-SEQUENCE:0
                #EXT-X-PLAYLIST-TYPE:VOD
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-MAP:URI="video/init-0.mp4"
                #EXT-X-PROGRAM-DATE-TIME:2026-11-26T08:00:00.000Z
                #EXTINF:1.00000,
                video/1.m4s
                #EXT-X-DISCONTINUITY
                #EXT-X-MAP:URI="video/init-1.mp4"
                #EXT-X-PROGRAM-DATE-TIME:2026-11-26T08:00:01.000Z
                #EXTINF:1.00000,
                video/2.m4s
                #EXT-X-ENDLIST

                """
        )
        #expect(w.summary.duration == .seconds(2) && w.summary.finished)
        #expect(w.summary.bytes == 200 + 16)
    }

    @Test func targetDurationIsTheLongestSegmentRoundedToTheNearestSecond() {
        var p = VODPlaylist()
        for s in [1.001, 1.49, 0.4] {
            p.entries.append(
                .init(
                    uri: "v.m4s",
                    initURI: "i.mp4",
                    duration: MediaTime(value: Int64(s * 90_000), timescale: 90_000),
                    programDateTime: Self.t0,
                    discontinuity: false,
                    independent: true
                )
            )
        }
        #expect(p.render().contains("#EXT-X-TARGETDURATION:1\n"))
    }

    @Test func theMultivariantKeepsOnlyRecordedRenditions() {
        let live = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="main",URI="audio.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720,AUDIO="audio"
            video.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,AUDIO="audio"
            360p.m3u8
            """
        let kept = RecordingWriter.filter(multivariant: live) { ["video", "audio"].contains($0) }
        #expect(kept?.contains("video.m3u8") == true && kept?.contains("360p") == false)
        #expect(kept?.contains("audio.m3u8") == true)
        #expect(RecordingWriter.filter(multivariant: live) { $0 == "audio" } == nil)
    }

    /// `video` means what the multivariant lists for the source: a rung at the source's size that replaces the
    /// passthrough (a long-GOP source, the fast-start bridge) is kept in its place, and the unlisted passthrough not.
    @Test(arguments: [
        ("video", "video", true), ("480p", "video", false), ("audio", "video", true),
        ("video", "480p", false), ("480p", "480p", true), ("360p", "480p", false), ("audio", "480p", true),
    ])
    func videoMeansTheListedSourceRendition(rendition: String, source: String, kept: Bool) {
        let c = RecorderConfiguration()
        #expect(c.records(rendition, sourceRendition: source) == kept)
        var all = RecorderConfiguration()
        all.renditions = []
        #expect(all.records(rendition, sourceRendition: source) == !(rendition == "video" && source != "video"))
    }

    @Test(arguments: [
        ("cam", true), ("20261126T084000Z-ep1", true), ("video", true), ("1.m4s", true), ("..", false),
        (".hidden", false), ("a/b", false), ("", false), ("%2e%2e", false), ("a b", false),
    ])
    func onlyPlainNamesReachTheDisk(_ name: String, _ valid: Bool) {
        #expect(RecordingName.isValid(name) == valid)
    }

    @Test func programDateTimeReadsBackWhatItWrote() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let t = WallTime(millisecondsSince1970: Int64.random(in: 0...4_102_444_800_000, using: &rng))
            let text = "#EXT-X-PROGRAM-DATE-TIME:\(t.iso8601)\n"
            #expect(Recorder.firstProgramDateTime(text) == t, "\(t.iso8601)")
        }
    }

    @Test func recoveryFinishesWhatACrashLeftAsEventAndIndexesIt() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("rec-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let dir = root.appendingPathComponent("cam/20261126T084000Z-ep1")
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("video"),
            withIntermediateDirectories: true
        )
        var w = RecordingWriter(key: "cam", id: "20261126T084000Z-ep1", started: Self.t0)
        let writes =
            w.add(Self.segment("video", msn: 1), multivariantFilter: { $0 })
            + w.add(Self.segment("video", msn: 2), multivariantFilter: { $0 })
        for write in writes {
            try Data(write.bytes).write(to: dir.appendingPathComponent(write.path))
        }
        var config = RecorderConfiguration()
        config.directory = root.path
        let recorder = Recorder(configuration: config, logger: Logger(label: "test"))
        recorder.recover()
        let text = try String(contentsOf: dir.appendingPathComponent("video.m3u8"), encoding: .utf8)
        #expect(text.contains("#EXT-X-PLAYLIST-TYPE:VOD") && text.hasSuffix("#EXT-X-ENDLIST\n"))
        let listed = recorder.recordings(key: "cam")
        #expect(listed.map(\.id) == ["20261126T084000Z-ep1"])
        #expect(listed.first?.duration == .seconds(2) && listed.first?.started == Self.t0)
        #expect(try recorder.file(key: "cam", id: "20261126T084000Z-ep1", path: "video/2.m4s").bytes.count == 100)
        #expect(throws: RecorderError.invalidName("..")) {
            try recorder.file(key: "cam", id: "..", path: "video.m3u8")
        }
        #expect(throws: RecorderError.notFound("cam/other")) {
            try recorder.file(key: "cam", id: "other", path: "video.m3u8")
        }
    }
}
