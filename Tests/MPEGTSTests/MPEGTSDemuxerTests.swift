import CodecFormats
import Foundation
import MediaCore
import TestSupport
import Testing

@testable import MPEGTS

/// Builds transport packets by hand (ISO/IEC 13818-1 §2.4.3.2), stuffing with an adaptation field.
enum TSBuilder {
    /// PAT: program 1 → PMT PID 0x100 (pointer_field 0, then the section).
    static let pat = [0] + MPEGTSMuxer.section(tableID: 0x00, idExtension: 1, body: hex("00 01 E1 00"))
    /// PMT: AAC on 0x102 listed first, then H.264 on 0x101.
    static let pmt = pmt(streams: [(0x0F, 0x102), (0x1B, 0x101)])

    /// A PMT of program 1 (PCR on 0x101) listing `streams` (stream_type, PID), after a zero pointer_field.
    static func pmt(streams: [(type: UInt8, pid: Int)], program: UInt16 = 1, version: UInt8 = 0) -> [UInt8] {
        var body = hex("E1 01 F0 00")
        for s in streams { body += [s.type, 0xE0 | UInt8(s.pid >> 8), UInt8(s.pid & 0xFF), 0xF0, 0x00] }
        var section = MPEGTSMuxer.section(tableID: 0x02, idExtension: program, body: body)
        if version != 0 {
            section[5] = 0xC1 | version << 1
            section = Array(section.dropLast(4))
            let crc = CRC32MPEG2.checksum(section)
            section += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        }
        return [0] + section
    }

    /// One 188-byte packet carrying `payload` (at most 184 bytes), stuffed to size.
    static func packet(pid: Int, start: Bool, payload: [UInt8], cc: UInt8 = 0) -> [UInt8] {
        precondition(payload.count <= 184)
        var p: [UInt8] = [0x47, (start ? 0x40 : 0) | UInt8(pid >> 8), UInt8(pid & 0xFF)]
        let stuffing = 184 - payload.count
        if stuffing == 0 {
            p.append(0x10 | (cc & 0x0F))
        } else {
            p.append(0x30 | (cc & 0x0F))
            p.append(UInt8(stuffing - 1))
            if stuffing > 1 { p += [0x00] + [UInt8](repeating: 0xFF, count: stuffing - 2) }
        }
        return p + payload
    }

    /// Numbers each PID's packets that carry a payload 0, 1, 2… (continuity_counter, §2.4.3.3).
    static func numbered(_ ts: [UInt8]) -> [UInt8] {
        var out = ts
        var counters: [Int: UInt8] = [:]
        var i = 0
        while i + 188 <= out.count {
            if out[i] == 0x47, out[i + 3] & 0x10 != 0 {
                let pid = Int(out[i + 1] & 0x1F) << 8 | Int(out[i + 2])
                let cc = counters[pid, default: 0]
                out[i + 3] = out[i + 3] & 0xF0 | cc
                counters[pid] = (cc + 1) & 0x0F
            }
            i += 188
        }
        return out
    }

    /// The H.264 units of a whole buffer.
    static func video(in bytes: [UInt8]) -> [TSAccessUnit] {
        MPEGTSDemuxer.accessUnits(in: bytes).filter { $0.stream.streamType == .h264 }
    }

    /// A video PES split over as many packets as needed.
    static func pes(pid: Int = 0x101, header: [UInt8], data: [UInt8]) -> [UInt8] {
        let whole = header + data
        var out: [UInt8] = []
        var offset = 0
        while offset < whole.count {
            let n = min(184, whole.count - offset)
            out += packet(pid: pid, start: offset == 0, payload: Array(whole[offset..<offset + n]))
            offset += n
        }
        return out
    }
}

/// One hand-made PTS/DTS field and its value.
struct TimestampCase: Sendable, CustomTestStringConvertible {
    let bytes: String
    let value: Int64
    var testDescription: String { bytes }

    static let all = [
        TimestampCase(bytes: "39 8D 15 CF 13", value: 0x1_2345_6789),
        TimestampCase(bytes: "2F FF FF FF FF", value: 0x1_FFFF_FFFF),
        TimestampCase(bytes: "21 00 07 D8 61", value: 126_000),
        TimestampCase(bytes: "11 00 07 C0 F1", value: 123_000),
    ]
}

/// The MPEG-TS demuxer against hand-made packets, ffmpeg's muxer and random input.
@Suite struct MPEGTSDemuxerTests {
    @Test(arguments: TimestampCase.all) func readsThe33BitTimestampLayout(_ c: TimestampCase) {
        #expect(PESPacket.timestamp(hex(c.bytes)[...]) == c.value)
    }

    @Test func followsPATAndPMTToTheH264PIDAndJoinsASplitPES() {
        let au1 = [0, 0, 0, 1, 0x09, 0xF0, 0, 0, 0, 1, 0x65] + [UInt8](repeating: 0xAB, count: 300)
        let au2: [UInt8] = [0, 0, 0, 1, 0x41, 0x9A]
        var ts = TSBuilder.packet(pid: 0, start: true, payload: TSBuilder.pat)
        ts += TSBuilder.packet(pid: 0x100, start: true, payload: TSBuilder.pmt)
        ts += TSBuilder.packet(
            pid: 0x102,
            start: true,
            payload: [0, 0, 1, 0xC0, 0, 3, 0x80, 0x80, 0x05] + [0x21, 0, 7, 0xD8, 0x61]
        )
        // PTS 126000 + DTS 123000, unbounded length; then a PTS-only PES with PES_packet_length set.
        ts += TSBuilder.pes(header: hex("00 00 01 E0 00 00 80 C0 0A 31 00 07 D8 61 11 00 07 C0 F1"), data: au1)
        ts += TSBuilder.pes(header: hex("00 00 01 E0 00 0E 80 80 05 21 00 07 D8 61"), data: au2)
        let units = TSBuilder.video(in: TSBuilder.numbered(ts))
        #expect(units.count == 2)
        #expect(
            units.first
                == TSAccessUnit(
                    stream: TSElementaryStream(pid: 0x101, streamType: .h264),
                    pts: MediaTime(value: 126_000, timescale: 90_000),
                    dts: MediaTime(value: 123_000, timescale: 90_000),
                    data: au1
                )
        )
        #expect(units.last?.data == au2)
        #expect(units.last?.dts == units.last?.pts)
    }

    @Test func resynchronisesAfterGarbageBeforeTheSyncByte() throws {
        let au: [UInt8] = [0, 0, 1, 0x65, 0x88]
        let ts =
            TSBuilder.packet(pid: 0, start: true, payload: TSBuilder.pat)
            + TSBuilder.packet(pid: 0x100, start: true, payload: TSBuilder.pmt)
            + TSBuilder.pes(header: hex("00 00 01 E0 00 00 80 80 05 21 00 07 D8 61"), data: au)
        var demuxer = MPEGTSDemuxer()
        let units = try demuxer.feed([0x00, 0x13, 0x37] + TSBuilder.numbered(ts)) + demuxer.flush()
        #expect(units.map(\.data) == [au])
        #expect(demuxer.skippedBytes == 3)
    }

    /// ffmpeg's own TS muxer with x264 B-frames (pts ≠ dts): the demuxer sees the packets ffprobe sees.
    @Test func readsFFmpegsTransportStreamLikeFFprobe() throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let ts = dir.appendingPathComponent("b.ts").path
        try #require(
            ExternalTool.run(
                "ffmpeg",
                [
                    "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30",
                    "-t", "2",
                    "-c:v", "libx264", "-g", "30", "-bf", "2", "-f", "mpegts", ts,
                ]
            ).status == 0
        )
        let demuxed = TSBuilder.video(in: Array(try Data(contentsOf: URL(fileURLWithPath: ts))))
        let probe = try ExternalTool.run(
            "ffprobe",
            ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts,dts,size", "-of", "csv=p=0", ts]
        ).output
        let expected = probe.split(separator: "\n").map { $0.split(separator: ",").map { Int64($0) ?? -1 } }
        #expect(expected.count == 60)
        #expect(demuxed.map { [$0.pts.value, $0.dts.value, Int64($0.data.count)] } == expected)
        #expect(demuxed.contains { $0.pts != $0.dts })
    }

    /// x264 access units with our SEI put in each, muxed by ffmpeg into TS (as nginx-rtmp would pass them on).
    @Test func findsTheCaptureClockOfEveryAccessUnitFFmpegMuxed() throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let raw = dir.appendingPathComponent("in.h264").path
        let stamped = dir.appendingPathComponent("stamped.h264").path
        let ts = dir.appendingPathComponent("out.ts").path
        // Raw H.264 carries no timestamps, so ffmpeg can only re-time it without B-frames.
        try #require(
            ExternalTool.run(
                "ffmpeg",
                [
                    "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30",
                    "-t", "2",
                    "-c:v", "libx264", "-g", "30", "-bf", "0", "-x264-params", "aud=1", "-f", "h264", raw,
                ]
            ).status == 0
        )
        let units = try Self.accessUnits(annexB: Array(Data(contentsOf: URL(fileURLWithPath: raw))))
        #expect(units.count == 60)
        let base: Int64 = 1_763_000_000_000_000
        var out: [UInt8] = []
        for (i, unit) in units.enumerated() {
            let withClock = try CaptureTimeSEI.inserting(
                capture: WallTime(nanosecondsSince1970: (base + Int64(i) * 33_333) * 1_000),
                intoAVCC: H264.avcc(fromAnnexB: unit)
            )
            out += try H264.annexB(fromAVCC: withClock)
        }
        try Data(out).write(to: URL(fileURLWithPath: stamped))
        try #require(
            ExternalTool.run(
                "ffmpeg",
                [
                    "-hide_banner", "-loglevel", "error", "-y", "-fflags", "+genpts", "-r", "30", "-f", "h264", "-i",
                    stamped,
                    "-c", "copy", "-f", "mpegts", ts,
                ]
            ).status == 0
        )
        let demuxed = TSBuilder.video(in: Array(try Data(contentsOf: URL(fileURLWithPath: ts))))
        #expect(demuxed.count == 60)
        #expect(zip(demuxed, demuxed.dropFirst()).allSatisfy { $1.pts.value - $0.pts.value == 3_000 })
        let clocks = demuxed.compactMap { CaptureTimeSEI.captureTime(inAnnexB: $0.data) }
        #expect(clocks == (0..<60).map { WallTime(nanosecondsSince1970: (base + Int64($0) * 33_333) * 1_000) })
    }

    @Test func anySplitOfTheInputGivesTheSameAccessUnits() throws {
        var rng = SeededRandom(seed: 0x75_5EED)
        for _ in 0..<50 {
            var ts =
                TSBuilder.packet(pid: 0, start: true, payload: TSBuilder.pat)
                + TSBuilder.packet(pid: 0x100, start: true, payload: TSBuilder.pmt)
            for i in 0..<Int.random(in: 1...6, using: &rng) {
                let pts = hex("21 00 07 D8 61")
                ts += TSBuilder.pes(
                    header: [0, 0, 1, 0xE0, 0, 0, 0x80, 0x80, 5] + pts,
                    data: [0, 0, 1, 0x41, UInt8(i)] + rng.bytes(Int.random(in: 0...600, using: &rng))
                )
            }
            ts = TSBuilder.numbered(ts)
            let whole = TSBuilder.video(in: ts)
            var demuxer = MPEGTSDemuxer()
            var pieces: [TSAccessUnit] = []
            var offset = 0
            while offset < ts.count {
                let n = min(ts.count - offset, Int.random(in: 1...400, using: &rng))
                pieces += try demuxer.feed(ts[offset..<offset + n])
                offset += n
            }
            pieces += demuxer.flush()
            #expect(pieces == whole)
        }
    }

    @Test func randomAndDamagedPacketsNeverCrash() {
        var rng = SeededRandom(seed: 0xBAD_7500)
        let valid =
            TSBuilder.packet(pid: 0, start: true, payload: TSBuilder.pat)
            + TSBuilder.packet(pid: 0x100, start: true, payload: TSBuilder.pmt)
            + TSBuilder.pes(
                header: hex("00 00 01 E0 00 00 80 C0 0A 31 00 07 D8 61 11 00 07 C0 F1"),
                data: rng.bytes(500)
            )
        for _ in 0..<2_000 {
            _ = TSBuilder.video(in: rng.bytes(Int.random(in: 0...800, using: &rng)))
            var damaged = valid
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                damaged[Int.random(in: 0..<damaged.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            // Packets whose sync byte survived stay aligned; the rest is skipped.
            _ = TSBuilder.video(in: damaged)
        }
    }

    /// Splits an Annex B stream into access units at each access unit delimiter (type 9).
    static func accessUnits(annexB data: [UInt8]) throws -> [[UInt8]] {
        var units: [[UInt8]] = []
        for nal in H264.nalUnits(annexB: data) {
            if H264.nalType(nal) == H264NALUnitType.aud.rawValue || units.isEmpty { units.append([]) }
            units[units.count - 1] += [0, 0, 0, 1] + nal
        }
        return units
    }
}
