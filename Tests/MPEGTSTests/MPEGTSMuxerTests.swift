import CodecFormats
import Foundation
import MediaCore
import TestSupport
import Testing

@testable import MPEGTS

/// The muxer against our demuxer and ffprobe: frames out of ffmpeg's TS go back in and come out the same.
@Suite struct MPEGTSMuxerTests {
    /// ffmpeg's TS → frames → our TS.
    static func remuxed() throws -> (frames: [MediaFrame], description: StreamDescription, ts: [UInt8]) {
        var adapter = TSToStream()
        let source = try TSToStreamTests.ffmpegTS()
        let outputs = try adapter.feed(source, stamps: HopStamps()) + adapter.flush(stamps: HopStamps())
        let description = try #require(outputs.compactMap { if case .description(let d) = $0 { d } else { nil } }.first)
        let frames = TSToStreamTests.frames(outputs)
        var muxer = try MPEGTSMuxer(description: description)
        var ts: [UInt8] = []
        for f in frames { ts += try muxer.mux(f) }
        return (frames, description, ts)
    }

    @Test func framesSurviveARoundTripThroughOurMuxerAndDemuxer() throws {
        let (frames, description, ts) = try Self.remuxed()
        #expect(ts.count % 188 == 0)
        var adapter = TSToStream()
        let outputs = try adapter.feed(ts, stamps: HopStamps()) + adapter.flush(stamps: HopStamps())
        let again = TSToStreamTests.frames(outputs)
        // Per track: an audio PES completes at its length, a video PES only at the next one, so tracks interleave
        // differently on the way out.
        for kind in [MediaKind.video, .audio] {
            let before = frames.filter { $0.kind == kind }
            let after = again.filter { $0.kind == kind }
            #expect(after.count == before.count)
            #expect(after.map(\.data) == before.map(\.data), "\(kind) payloads differ")
            #expect(after.map(\.compositionOffset) == before.map(\.compositionOffset), "\(kind) offsets differ")
            #expect(after.map(\.isKeyframe) == before.map(\.isKeyframe), "\(kind) keyframes differ")
            let steps = zip(after, before).map { $0.dts.value - $1.dts.value }
            #expect(Set(steps).count == 1, "\(kind) decode times moved unevenly")
        }
        #expect(outputs.contains { if case .description(let d) = $0 { d == description } else { false } })
        #expect(adapter.demuxer.continuityErrors == 0)
    }

    @Test func ffprobeReadsOurTransportStreamFrameForFrame() throws {
        let (frames, _, ts) = try Self.remuxed()
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("ours.ts").path
        try Data(ts).write(to: URL(fileURLWithPath: path))
        let probe = try ExternalTool.run(
            "ffprobe",
            [
                "-v", "error", "-count_frames", "-show_entries", "stream=codec_name,nb_read_frames", "-of", "csv=p=0",
                path,
            ]
        ).output
        let video = frames.filter { $0.kind == .video }.count
        let audio = frames.filter { $0.kind == .audio }.count
        #expect(probe.contains("h264,\(video)"))
        #expect(probe.contains("aac,\(audio)"))
    }

    @Test func sectionsCarryTheMPEG2CRC() {
        // PAT of program 1 on PMT PID 0x1000, as FFmpeg writes it (its CRC_32 is 2A B1 04 B2).
        let pat = MPEGTSMuxer.section(tableID: 0, idExtension: 1, body: [0x00, 0x01, 0xF0, 0x00])
        #expect(pat.suffix(4) == [0x2A, 0xB1, 0x04, 0xB2])
        #expect(CRC32MPEG2.checksum(pat) == 0)
    }
}
