import CodecFormats
import Foundation
import MediaCore
import TestSupport
import Testing

@testable import MPEGTS

/// TS bytes to hub frames: ffmpeg's muxer (B-frames + AAC), lost packets, wraps and jumps, bad input.
@Suite struct TSToStreamTests {
    /// 2 s of 30 fps H.264 with two B-frames and 48 kHz AAC, muxed by ffmpeg into TS.
    static func ffmpegTS() throws -> [UInt8] { try ffmpegTSCounted().bytes }

    /// The same, with the video packets ffprobe counts in it.
    static func ffmpegTSCounted() throws -> (bytes: [UInt8], videoPackets: Int) {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let ts = dir.appendingPathComponent("av.ts").path
        try #require(
            ExternalTool.run(
                "ffmpeg",
                [
                    "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "2",
                    "-c:v", "libx264", "-g", "30", "-bf", "2", "-c:a", "aac", "-f", "mpegts", ts,
                ]
            ).status == 0
        )
        let videoPackets = try #require(try ToolRunner.packetCounts(ts)["video"])
        return (Array(try Data(contentsOf: URL(fileURLWithPath: ts))), videoPackets)
    }

    static func frames(_ outputs: [TSToStream.Output]) -> [MediaFrame] {
        outputs.compactMap { if case .frame(let f) = $0 { f } else { nil } }
    }

    @Test func ffmpegsTransportStreamBecomesBothTracksWithCompositionOffsets() throws {
        let (ts, videoPackets) = try Self.ffmpegTSCounted()
        var adapter = TSToStream()
        var outputs: [TSToStream.Output] = []
        // SRT's message size: seven packets at a time.
        var offset = 0
        while offset < ts.count {
            let n = min(1316, ts.count - offset)
            outputs += try adapter.feed(ts[offset..<offset + n], stamps: HopStamps())
            offset += n
        }
        let descriptions = outputs.compactMap { if case .description(let d) = $0 { d } else { nil } }
        #expect(descriptions.count == 1)
        #expect(descriptions.first?.video?.width == 320)
        #expect(descriptions.first?.audio?.sampleRate == 48_000)
        let frames = Self.frames(outputs)
        let video = frames.filter { $0.kind == .video }
        let audio = frames.filter { $0.kind == .audio }
        // Every frame ffprobe finds comes out, the last at the latest with the flush (its PES ends only at end of
        // stream, unless the muxer closed it; which one depends on how ffmpeg's encoder was threaded).
        let held = Self.frames(try adapter.flush(stamps: HopStamps())).filter { $0.kind == .video }.count
        #expect(held <= 1, "\(held) held")
        #expect(video.count + held == videoPackets && videoPackets == 60, "\(video.count) + \(held) of \(videoPackets)")
        #expect(video.first?.isKeyframe == true)
        #expect(video.contains { $0.compositionOffset.value > 0 })
        #expect(zip(video, video.dropFirst()).allSatisfy { $0.dts < $1.dts })
        #expect(zip(audio, audio.dropFirst()).allSatisfy { $1.dts.value - $0.dts.value == 1920 })
        // The last PES of each track ends only at end of stream: ~94 AAC frames in 2 s, minus one PES.
        #expect(audio.count >= 85)
        // Parameter sets and delimiters moved to the description: samples hold slices (and SEI) only.
        let types = try video.flatMap { try H264.nalUnits(avcc: $0.data).map(H264.nalType) }
        #expect(!types.contains(7) && !types.contains(8) && !types.contains(9))
        #expect(frames.allSatisfy { $0.dts.value >= 0 })
    }

    /// 30 fps on the 90 kHz grid is 33 333.3 µs a frame: each video time is moved to a whole 100 µs (9 ticks), at most
    /// 4 ticks (44 µs) from where it was, so MSE's microsecond buffer ends exactly where the next part begins.
    @Test func videoTimesSitOnWholeMicroseconds() throws {
        var adapter = TSToStream()
        let outputs = try adapter.feed(try Self.ffmpegTS(), stamps: HopStamps()) + adapter.flush(stamps: HopStamps())
        let video = Self.frames(outputs).filter { $0.kind == .video }
        #expect(video.count == 60)
        #expect(video.allSatisfy { $0.dts.value % 9 == 0 && ($0.dts.value + $0.compositionOffset.value) % 9 == 0 })
        let steps = zip(video, video.dropFirst()).map { $1.dts.value - $0.dts.value }
        // Steps of 2 997 or 3 006 ticks, never drifting: the last frame is within 4 ticks of its exact time.
        #expect(steps.allSatisfy { abs($0 - 3_000) <= 9 } && abs(steps.reduce(0, +) - 59 * 3_000) <= 4)
        #expect(TSToStream.onMicrosecondGrid(3_000) == 2_997 && TSToStream.onMicrosecondGrid(6_000) == 6_003)
    }

    @Test func aLostPacketDropsOnlyThePESItBelongedTo() throws {
        let au: [UInt8] = [0, 0, 1, 0x41] + [UInt8](repeating: 0x5A, count: 600)
        var ts =
            TSBuilder.packet(pid: 0, start: true, payload: TSBuilder.pat)
            + TSBuilder.packet(pid: 0x100, start: true, payload: TSBuilder.pmt)
        for _ in 0..<3 { ts += TSBuilder.pes(header: hex("00 00 01 E0 00 00 80 80 05 21 00 07 D8 61"), data: au) }
        ts = TSBuilder.numbered(ts)
        // The second PES's second packet (each PES spans four packets; PAT and PMT come first).
        let lost = 2 + 4 + 1
        ts.removeSubrange(lost * 188..<(lost + 1) * 188)
        var demuxer = MPEGTSDemuxer()
        let units = try demuxer.feed(ts) + demuxer.flush()
        #expect(units.count == 2)
        #expect(units.allSatisfy { $0.data == au })
        #expect(units.last?.followsDiscontinuity == false)
        #expect(demuxer.continuityErrors == 1)
        #expect(demuxer.droppedPES == 1)
    }

    @Test func timelineUndoesThe33BitWrapAndBridgesAJump() {
        var t = TSTimeline()
        let start = t.time(of: (1 << 33) - 3000)
        #expect(t.time(of: 0) == start + 3000)
        #expect(t.time(of: 3000) == start + 6000)
        // An encoder restart far away continues 9 ticks (100 µs) after the last time.
        #expect(t.time(of: 5_000_000_000) == start + 6009)
        #expect(t.time(of: 5_000_003_000) == start + 9009)
        #expect(t.jumps == 1)
    }

    @Test func bytesThatAreNotATransportStreamCloseTheSession() {
        var adapter = TSToStream()
        let junk = [UInt8](repeating: 0x11, count: 4000)
        #expect(throws: MPEGTSError.notTransportStream(skippedBytes: 4000 - 187)) {
            try adapter.feed(junk, stamps: HopStamps())
        }
    }

    @Test func aProgramWithoutH264HEVCOrAACIsRefusedWithItsStreamTypes() {
        // PMT: one MPEG-2 video stream (0x02) on 0x101.
        let ts = TSBuilder.numbered(
            TSBuilder.packet(pid: 0, start: true, payload: TSBuilder.pat)
                + TSBuilder.packet(pid: 0x100, start: true, payload: TSBuilder.pmt(streams: [(0x02, 0x101)]))
        )
        var adapter = TSToStream()
        #expect(throws: MPEGTSError.noSupportedStream(streamTypes: [0x02])) {
            try adapter.feed(ts, stamps: HopStamps())
        }
    }
}

/// When a PES ends: at its declared length, at its stuffed last packet, or (unbounded, unstuffed) at the next one.
@Suite struct PESEndTests {
    @Test func anUnboundedPESEndsAtItsStuffedLastPacketNotAtTheNextPES() throws {
        let au: [UInt8] = [0, 0, 1, 0x41] + [UInt8](repeating: 0x5A, count: 300)
        let ts = TSBuilder.numbered(
            TSBuilder.packet(pid: 0, start: true, payload: TSBuilder.pat)
                + TSBuilder.packet(pid: 0x100, start: true, payload: TSBuilder.pmt)
                + TSBuilder.pes(header: hex("00 00 01 E0 00 00 80 80 05 21 00 07 D8 61"), data: au)
        )
        var demuxer = MPEGTSDemuxer()
        // Nothing after it: the unit is out before any next PES starts.
        let units = try demuxer.feed(ts)
        #expect(units.map(\.data) == [au])
        #expect(demuxer.flush().isEmpty)
    }

    @Test func anUnboundedPESThatFillsItsLastPacketWaitsForTheNextOne() throws {
        // 14-byte header + 354 bytes = 368 = two full packets: no stuffing, so the end is only known at the next PES.
        let au: [UInt8] = [0, 0, 1, 0x41] + [UInt8](repeating: 0x5A, count: 350)
        let ts = TSBuilder.numbered(
            TSBuilder.packet(pid: 0, start: true, payload: TSBuilder.pat)
                + TSBuilder.packet(pid: 0x100, start: true, payload: TSBuilder.pmt)
                + TSBuilder.pes(header: hex("00 00 01 E0 00 00 80 80 05 21 00 07 D8 61"), data: au)
        )
        var demuxer = MPEGTSDemuxer()
        #expect(try demuxer.feed(ts).isEmpty)
        #expect(demuxer.flush().map(\.data) == [au])
    }
}
