import Foundation
import MediaCore
import TestSupport
import Testing

@testable import MPEGTS

/// PAT/PMT sections across packets (§2.4.4.1–2), damaged ones, and programs that change mid-stream.
@Suite struct ProgramTablesTests {
    /// A PMT listing `count` streams, each with a 6-byte ISO 639 language descriptor: 11 bytes an entry.
    static func longPMT(count: Int) -> [UInt8] {
        var body = hex("E1 01 F0 00")
        for i in 0..<count {
            let pid = 0x101 + i
            body += [i == 0 ? 0x1B : 0x0F, 0xE0 | UInt8(pid >> 8), UInt8(pid & 0xFF), 0xF0, 0x06]
            body += [0x0A, 0x04, 0x65, 0x6E, 0x67, 0x00]
        }
        return MPEGTSMuxer.section(tableID: 0x02, idExtension: 1, body: body)
    }

    /// One way of packing the PMT into packets on PID 0x100.
    struct SplitCase: Sendable, CustomTestStringConvertible {
        var name: String
        /// Payloads of successive PMT packets (the first with payload_unit_start), built from the section.
        var payloads: @Sendable ([UInt8]) -> [(start: Bool, payload: [UInt8])]
        var testDescription: String { name }

        static let all: [SplitCase] = [
            SplitCase(name: "whole in one packet") { [(true, [0] + $0)] },
            SplitCase(name: "spans two packets") { s in [(true, [0] + s.prefix(183)), (false, Array(s.dropFirst(183)))]
            },
            SplitCase(name: "header split after table_id") { s in
                [(true, [0] + s.prefix(1)), (false, Array(s.dropFirst(1)))]
            },
            SplitCase(name: "tail ends the next unit-start packet before its pointer") { s in
                // The second packet starts a repeat of the section: pointer_field skips the first's last 10 bytes.
                [(true, [0] + s.dropLast(10)), (true, [10] + s.suffix(10) + s)]
            },
            SplitCase(name: "three packets, stuffing after") { s in
                [
                    (true, [0] + s.prefix(100)), (false, Array(s[100..<250])),
                    (false, Array(s.dropFirst(250)) + [0xFF, 0xFF]),
                ]
            },
        ]
    }

    @Test(arguments: SplitCase.all)
    func aPMTIsReadHoweverItIsSplitAcrossPackets(_ c: SplitCase) throws {
        let section = Self.longPMT(count: 24)
        #expect(section.count > 184)
        var ts = TSBuilder.packet(pid: 0, start: true, payload: TSBuilder.pat)
        for (start, payload) in c.payloads(section) {
            var rest = payload[...]
            var first = start
            // Payloads longer than a packet go on in continuation packets.
            while !rest.isEmpty {
                ts += TSBuilder.packet(pid: 0x100, start: first, payload: Array(rest.prefix(184)))
                rest = rest.dropFirst(184)
                first = false
            }
        }
        var demuxer = MPEGTSDemuxer()
        _ = try demuxer.feed(TSBuilder.numbered(ts))
        #expect(demuxer.streams.count == 24)
        #expect(demuxer.streams.first == TSElementaryStream(pid: 0x101, streamType: .h264))
        #expect(demuxer.streams.last == TSElementaryStream(pid: 0x101 + 23, streamType: .aacADTS))
        #expect(demuxer.droppedSections == 0)
    }

    @Test func aSectionWithABadCRCOrALostPacketIsDropped() throws {
        var bad = TSBuilder.pmt
        bad[bad.count - 1] ^= 0x01
        var demuxer = MPEGTSDemuxer()
        _ = try demuxer.feed(
            TSBuilder.numbered(
                TSBuilder.packet(pid: 0, start: true, payload: TSBuilder.pat)
                    + TSBuilder.packet(pid: 0x100, start: true, payload: bad)
            )
        )
        #expect(demuxer.streams.isEmpty)
        #expect(demuxer.droppedSections == 1)

        // The second of the PMT's two packets lost (continuity_counter 0 then 2): no streams from the first half.
        let section = Self.longPMT(count: 24)
        var lossy = MPEGTSDemuxer()
        _ = try lossy.feed(
            TSBuilder.numbered(TSBuilder.packet(pid: 0, start: true, payload: TSBuilder.pat))
                + TSBuilder.packet(pid: 0x100, start: true, payload: [0] + Array(section.prefix(183)), cc: 0)
                + TSBuilder.packet(pid: 0x100, start: false, payload: Array(section.dropFirst(183)), cc: 2)
        )
        #expect(lossy.streams.isEmpty)
        #expect(lossy.droppedSections == 1)
        #expect(lossy.continuityErrors == 1)
    }

    @Test func aPMTForAnotherProgramOrNotYetCurrentIsIgnored() throws {
        var next = TSBuilder.pmt
        next[6] &= 0xFE  // current_next_indicator 0: a table that applies later.
        let crc = CRC32MPEG2.checksum(next[1..<(next.count - 4)])
        next.replaceSubrange((next.count - 4)..., with: [24, 16, 8, 0].map { UInt8(crc >> $0 & 0xFF) })
        var demuxer = MPEGTSDemuxer()
        _ = try demuxer.feed(
            TSBuilder.numbered(
                TSBuilder.packet(pid: 0, start: true, payload: TSBuilder.pat)
                    + TSBuilder.packet(
                        pid: 0x100,
                        start: true,
                        payload: TSBuilder.pmt(streams: [(0x1B, 0x101)], program: 2)
                    )
                    + TSBuilder.packet(pid: 0x100, start: true, payload: next)
            )
        )
        #expect(demuxer.streams.isEmpty)
        #expect(demuxer.droppedSections == 0)
    }

    @Test func aNewPMTEndsTheUnboundedPESOfAPIDWhoseStreamTypeChanged() throws {
        let au: [UInt8] = [0, 0, 1, 0x41] + [UInt8](repeating: 0x5A, count: 350)
        let header = hex("00 00 01 E0 00 00 80 80 05 21 00 07 D8 61")
        let hevcAU: [UInt8] = [0, 0, 1, 0x02, 0x01] + [UInt8](repeating: 0x33, count: 20)
        let ts = TSBuilder.numbered(
            TSBuilder.packet(pid: 0, start: true, payload: TSBuilder.pat)
                + TSBuilder.packet(pid: 0x100, start: true, payload: TSBuilder.pmt)
                // Fills two packets exactly: still open when the program changes.
                + TSBuilder.pes(header: header, data: au)
                + TSBuilder.packet(
                    pid: 0x100,
                    start: true,
                    payload: TSBuilder.pmt(streams: [(0x24, 0x101)], version: 1)
                )
                + TSBuilder.pes(header: header, data: hevcAU)
        )
        var demuxer = MPEGTSDemuxer()
        let units = try demuxer.feed(ts) + demuxer.flush()
        #expect(units.map(\.stream.streamType) == [.h264, .h265])
        #expect(units.map(\.data) == [au, hevcAU])
        #expect(demuxer.programChanges == 1)
        #expect(demuxer.droppedPES == 0)
    }

    @Test func aPATPointingToANewPMTPIDIsFollowed() throws {
        let pat2 = [0] + MPEGTSMuxer.section(tableID: 0x00, idExtension: 2, body: hex("00 01 E2 00"))
        let ts = TSBuilder.numbered(
            TSBuilder.packet(pid: 0, start: true, payload: TSBuilder.pat)
                + TSBuilder.packet(pid: 0x100, start: true, payload: TSBuilder.pmt)
                + TSBuilder.packet(pid: 0, start: true, payload: pat2)
                // The old PMT PID is no longer read; the new one lists HEVC only.
                + TSBuilder.packet(pid: 0x100, start: true, payload: TSBuilder.pmt(streams: [(0x02, 0x101)]))
                + TSBuilder.packet(pid: 0x200, start: true, payload: TSBuilder.pmt(streams: [(0x24, 0x105)]))
        )
        var demuxer = MPEGTSDemuxer()
        _ = try demuxer.feed(ts)
        #expect(demuxer.streams == [TSElementaryStream(pid: 0x105, streamType: .h265)])
    }

    /// Property: any PMT, packed with random pointer positions and packet splits, yields the PMT's streams.
    @Test func randomPackingsOfRandomProgramsGiveTheirStreams() throws {
        var rng = SeededRandom(seed: 0x5EC7_1045)
        for _ in 0..<300 {
            let count = Int.random(in: 1...60, using: &rng)
            let streams = (0..<count).map { i in
                TSElementaryStream(pid: 0x101 + i, streamType: TSStreamType(rawValue: [0x1B, 0x24, 0x0F][i % 3]))
            }
            var body = hex("E1 01 F0 00")
            for s in streams {
                body += [s.streamType.rawValue, 0xE0 | UInt8(s.pid >> 8), UInt8(s.pid & 0xFF), 0xF0, 0]
            }
            let section = MPEGTSMuxer.section(tableID: 0x02, idExtension: 1, body: body)
            // Junk before the pointer (a section tail we never saw), then the section, then stuffing.
            let junk = rng.bytes(Int.random(in: 0...20, using: &rng))
            let stream =
                [UInt8(junk.count)] + junk + section
                + [UInt8](repeating: 0xFF, count: Int.random(in: 0...3, using: &rng))
            var ts = TSBuilder.packet(pid: 0, start: true, payload: TSBuilder.pat)
            var offset = 0
            while offset < stream.count {
                // pointer_field points inside its own packet (§2.4.4.2).
                let least = offset == 0 ? 1 + junk.count : 1
                let n = min(stream.count - offset, Int.random(in: least...184, using: &rng))
                ts += TSBuilder.packet(pid: 0x100, start: offset == 0, payload: Array(stream[offset..<offset + n]))
                offset += n
            }
            var demuxer = MPEGTSDemuxer()
            _ = try demuxer.feed(TSBuilder.numbered(ts))
            #expect(demuxer.streams == streams)
        }
    }
}
