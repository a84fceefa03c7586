import CodecFormats
import FMP4
import Foundation
import LLHLSPackager
import Logging
import MediaCore
import NIOCore
import TestSupport
import Testing

@testable import Recorder

/// Recorded playlists read back (golden table, round trip, fuzz), the listing's index and its pages, and a time
/// range cut from a recording on a real directory.
@Suite struct RecordingClipTests {
    static let t0 = WallTime(millisecondsSince1970: 1_795_680_000_000)

    /// (name, playlist text, segment URIs, init URIs, seconds, discontinuities, finished); nil: not a playlist.
    static let golden: [(String, String, [String]?, [String], [Double], [Bool], Bool)] = [
        (
            "two segments, a reconnect",
            """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:1
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-MAP:URI="video/init-0.mp4"
            #EXT-X-PROGRAM-DATE-TIME:2026-11-26T08:00:00.000Z
            #EXTINF:1.00000,
            video/1.m4s
            #EXT-X-DISCONTINUITY
            #EXT-X-MAP:URI="video/init-1.mp4"
            #EXTINF:0.96667,
            video/2.m4s
            #EXT-X-ENDLIST

            """,
            ["video/1.m4s", "video/2.m4s"], ["video/init-0.mp4", "video/init-1.mp4"], [1, 0.96667], [false, true], true
        ),
        (
            "growing, CRLF", "#EXTM3U\r\n#EXT-X-MAP:URI=\"a/i.mp4\"\r\n#EXTINF:2,\r\na/0.m4s\r\n", ["a/0.m4s"],
            ["a/i.mp4"],
            [2], [false], false
        ),
        ("not a playlist", "hello\n", nil, [], [], [], false),
        ("segment before EXTINF", "#EXTM3U\n#EXT-X-MAP:URI=\"i.mp4\"\nv/1.m4s\n", nil, [], [], [], false),
        ("segment before EXT-X-MAP", "#EXTM3U\n#EXTINF:1,\nv/1.m4s\n", nil, [], [], [], false),
        ("negative EXTINF", "#EXTM3U\n#EXT-X-MAP:URI=\"i\"\n#EXTINF:-1,\nv\n", nil, [], [], [], false),
    ]

    @Test(arguments: 0..<golden.count) func readsWhatTheRecorderWrites(_ i: Int) {
        let (name, text, uris, inits, seconds, discontinuities, finished) = Self.golden[i]
        let p = VODPlaylist(parsing: text)
        guard let uris else {
            #expect(p == nil, "\(name)")
            return
        }
        #expect(p?.entries.map(\.uri) == uris, "\(name)")
        #expect(p?.entries.map(\.initURI) == inits, "\(name)")
        #expect(p?.entries.map(\.duration.seconds) == seconds, "\(name)")
        #expect(p?.entries.map(\.discontinuity) == discontinuities, "\(name)")
        #expect(p?.finished == finished, "\(name)")
    }

    /// Property: what `render()` writes parses back to the same entries (durations to the 5 decimals written).
    @Test func renderedPlaylistsReadBack() {
        var rng = SeededRandom(seed: 3)
        for _ in 0..<300 {
            var p = VODPlaylist()
            for n in 0..<Int.random(in: 1...20, using: &rng) {
                p.entries.append(
                    .init(
                        uri: "video/\(n).m4s",
                        initURI: "video/init-\(n / 7).mp4",
                        duration: MediaTime(value: Int64.random(in: 1...400_000, using: &rng), timescale: 100_000),
                        programDateTime: Self.t0.advanced(by: .seconds(n)),
                        discontinuity: n > 0 && n % 7 == 0,
                        independent: true
                    )
                )
            }
            p.finished = Bool.random(using: &rng)
            let back = VODPlaylist(parsing: p.render())
            #expect(back == p)
        }
    }

    /// Fuzz: mutated playlists parse or are refused; nothing traps.
    @Test func mutatedPlaylistsNeverTrap() {
        var rng = SeededRandom(seed: 4)
        let text = Array(Self.golden[0].1.utf8)
        for _ in 0..<3_000 { _ = VODPlaylist(parsing: String(decoding: rng.mutate(text), as: UTF8.self)) }
    }

    static func summary(_ key: String, _ id: String, at s: Int64) -> RecordingSummary {
        RecordingSummary(
            key: key,
            id: id,
            started: WallTime(millisecondsSince1970: s * 1000),
            duration: .seconds(1),
            bytes: 10,
            finished: true
        )
    }

    @Test func theIndexPagesInListingOrderAndFiltersByKeyAndTime() {
        var ix = RecordingIndex()
        for s in [5, 1, 3, 2, 4] as [Int64] { ix.put(Self.summary(s % 2 == 0 ? "even" : "odd", "r\(s)", at: s)) }
        ix.put(Self.summary("odd", "r3", at: 3))  // An update keeps one row.
        #expect(ix.count == 5 && ix.totalBytes == 50)
        let ids = { (rows: [String]) in rows.compactMap { Recorder.cursor(ofRow: $0) } }
        #expect(
            ids(ix.page(key: nil, from: nil, to: nil, after: nil, limit: nil).rows)
                == ["odd/r1", "even/r2", "odd/r3", "even/r4", "odd/r5"]
        )
        let first = ix.page(key: nil, from: nil, to: nil, after: nil, limit: 2)
        #expect(ids(first.rows) == ["odd/r1", "even/r2"] && first.more)
        let cursor = ix.position(key: "even", id: "r2")
        let second = ix.page(key: nil, from: nil, to: nil, after: cursor, limit: 2)
        #expect(ids(second.rows) == ["odd/r3", "even/r4"] && second.more)
        let from = WallTime(millisecondsSince1970: 2000)
        let to = WallTime(millisecondsSince1970: 4000)
        #expect(ids(ix.page(key: "odd", from: from, to: to, after: nil, limit: nil).rows) == ["odd/r3"])
        ix.remove(Self.summary("odd", "r3", at: 3))
        #expect(ix.count == 4 && ix.totalBytes == 40 && ix.summary(key: "odd", id: "r3") == nil)
        #expect(ids(ix.page(key: "odd", from: nil, to: nil, after: nil, limit: nil).rows) == ["odd/r1", "odd/r5"])
    }

    /// Writes a 4-segment recording (1 s video segments from t = 100 s, audio aligned) under a temporary directory.
    static func recording() throws -> (Recorder, URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("clip-\(UUID().uuidString)")
        let dir = root.appendingPathComponent("cam/r1")
        let video = FMP4InitSegment.serialize(
            track: FMP4Track(
                trackID: 1,
                timescale: 90_000,
                media: .video(try VideoParameters(avcDecoderConfiguration: avcC))
            )
        )
        let audio = FMP4InitSegment.serialize(
            track: FMP4Track(
                trackID: 1,
                timescale: 48_000,
                media: .audio(try AudioParameters(audioSpecificConfig: [0x11, 0x90]))
            )
        )
        var w = RecordingWriter(key: "cam", id: "r1", started: t0)
        for msn in 0..<4 {
            for (rendition, initSection) in [("video", video), ("audio", audio)] {
                let isVideo = rendition == "video"
                let scale: UInt64 = isVideo ? 90_000 : 48_000
                let samples =
                    isVideo
                    ? (0..<30).map { FMP4Sample(duration: 3000, isSync: $0 == 0, data: [UInt8(msn), UInt8($0)]) }
                    : (0..<47).map { _ in FMP4Sample(duration: 1021, isSync: true, data: [UInt8(msn)]) }
                let data = FMP4Fragment.serialize(
                    sequenceNumber: UInt32(msn + 1),
                    trackID: 1,
                    baseMediaDecodeTime: (100 + UInt64(msn)) * scale,
                    samples: samples
                )
                let s = PackagedSegment(
                    key: StreamKey("cam")!,
                    rendition: rendition,
                    epoch: "e",
                    msn: msn,
                    duration: MediaTime(value: 90_000, timescale: 90_000),
                    discontinuity: false,
                    independent: true,
                    initIndex: 0,
                    initSection: initSection,
                    data: ByteBuffer(bytes: data),
                    programDateTime: t0.advanced(by: .seconds(msn)),
                    multivariant: nil
                )
                for write in w.add(s, multivariantFilter: { $0 }) {
                    let url = dir.appendingPathComponent(write.path)
                    try FileManager.default.createDirectory(
                        at: url.deletingLastPathComponent(),
                        withIntermediateDirectories: true
                    )
                    try Data(write.bytes).write(to: url)
                }
            }
        }
        for write in w.finish() { try Data(write.bytes).write(to: dir.appendingPathComponent(write.path)) }
        var config = RecorderConfiguration()
        config.directory = root.path
        let recorder = Recorder(configuration: config, logger: Logger(label: "test"))
        recorder.recover()
        return (recorder, root)
    }

    static let avcC: [UInt8] = [
        0x01, 0x64, 0x00, 0x1F, 0xFF, 0xE1, 0x00, 0x1A, 0x67, 0x64, 0x00, 0x1F, 0xAC, 0xD9, 0x40, 0x50, 0x05, 0xBB,
        0x01, 0x10, 0x00, 0x00, 0x03, 0x00, 0x10, 0x00, 0x00, 0x03, 0x03, 0xC0, 0xF1, 0x83, 0x19, 0x60, 0x01, 0x00,
        0x06, 0x68, 0xEB, 0xE3, 0xCB, 0x22, 0xC0, 0xFD, 0xF8, 0xF8, 0x00,
    ]

    @Test func aRangeStartsAtTheSegmentHoldingItsStartAndEndsWithTheOneHoldingItsEnd() throws {
        let (recorder, root) = try Self.recording()
        defer { try? FileManager.default.removeItem(at: root) }
        let clip = try recorder.clip(key: "cam", id: "r1", start: 1.5, duration: 1.2)
        #expect(clip.start == 1 && clip.finished)
        let boxes = try MP4Box.parse(clip.bytes)
        let moofs = boxes.filter { $0.type == "moof" }
        // Video segments 1 and 2 (1.0–3.0 s) and the audio of the same MSNs, interleaved.
        #expect(moofs.count == 4)
        let mdats = boxes.filter { $0.type == "mdat" }
        #expect(mdats.first.map { Array($0.payload.prefix(2)) } == [1, 0])
        #expect(abs(clip.duration - 2) < 0.01, "\(clip.duration)")
        let whole = try recorder.clip(key: "cam", id: "r1", start: 0, duration: nil)
        let wholeBoxes = try MP4Box.parse(whole.bytes)
        #expect(whole.start == 0 && boxes.count < wholeBoxes.count)
        #expect(abs(whole.duration - 4) < 0.01)
    }

    @Test func rangesOutsideTheRecordingAndBadNamesAreRefusedWithTheReason() throws {
        let (recorder, root) = try Self.recording()
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(throws: RecorderError.rangeNotSatisfiable("start 4.0 s is at or past the recording's end (4.0 s)")) {
            try recorder.clip(key: "cam", id: "r1", start: 4, duration: 1)
        }
        #expect(throws: RecorderError.self) { try recorder.clip(key: "cam", id: "r1", start: -1, duration: 1) }
        #expect(throws: RecorderError.invalidName("..")) {
            try recorder.clip(key: "cam", id: "..", start: 0, duration: 1)
        }
        #expect(throws: RecorderError.notFound("cam/r2")) {
            try recorder.clip(key: "cam", id: "r2", start: 0, duration: 1)
        }
    }
}
