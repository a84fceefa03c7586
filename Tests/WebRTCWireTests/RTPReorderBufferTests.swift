import TestSupport
import Testing
import WebRTCWire

/// Reordering, bounded waiting, NACK and loss reporting.
@Suite struct RTPReorderBufferTests {
    static let t0 = ContinuousClock.Instant.now

    static func packet(_ sequence: UInt16) -> RTPPacket {
        RTPPacket(
            payloadType: 96,
            sequenceNumber: sequence,
            timestamp: 0,
            ssrc: 1,
            payload: [UInt8(truncatingIfNeeded: sequence)]
        )
    }

    /// Arrival order (sequence, ms after t0) → sequences released, NACKed and lost by the end.
    static let table:
        [(name: String, arrivals: [(UInt16, Int)], released: [UInt16], missing: [UInt16], lost: [UInt16])] = [
            ("in order passes straight through", [(10, 0), (11, 1), (12, 2)], [10, 11, 12], [], []),
            ("a swap is put back in order", [(10, 0), (12, 1), (11, 2), (13, 3)], [10, 11, 12, 13], [11], []),
            ("the wrap is ordered", [(65534, 0), (0, 1), (65535, 2), (1, 3)], [65534, 65535, 0, 1], [65535], []),
            ("a duplicate is discarded", [(10, 0), (11, 1), (11, 2), (12, 3)], [10, 11, 12], [], []),
            (
                "a gap older than the wait is given up", [(10, 0), (13, 10), (14, 20), (15, 200)], [10, 13, 14, 15],
                [11, 12], [11, 12]
            ),
            (
                "a packet after its gap was given up is discarded", [(1, 0), (3, 0), (4, 200), (2, 201)], [1, 3, 4],
                [2], [2]
            ),
            (
                "a sender restart resynchronizes", [(100, 0), (101, 1), (40_000, 2), (40_001, 3)],
                [100, 101, 40_000, 40_001], [], []
            ),
        ]

    @Test func followsTheGoldenTable() {
        for row in Self.table {
            var buffer = RTPReorderBuffer()
            var released: [UInt16] = []
            var missing: [UInt16] = []
            var lost: [UInt16] = []
            for (sequence, ms) in row.arrivals {
                let output = buffer.insert(Self.packet(sequence), now: Self.t0 + .milliseconds(ms))
                released += output.released.map(\.sequenceNumber)
                missing += output.missing
                lost += output.lost
            }
            #expect(released == row.released, "\(row.name)")
            #expect(missing == row.missing, "\(row.name)")
            #expect(lost == row.lost, "\(row.name)")
        }
    }

    @Test func expiryReleasesWithoutANewPacket() {
        var buffer = RTPReorderBuffer(configuration: .init(maxWait: .milliseconds(50)))
        _ = buffer.insert(Self.packet(1), now: Self.t0)
        let held = buffer.insert(Self.packet(3), now: Self.t0 + .milliseconds(5))
        #expect(held.released.isEmpty && held.missing == [2] && buffer.outstanding == [2])
        #expect(buffer.expire(now: Self.t0 + .milliseconds(54)).released.isEmpty)
        let expired = buffer.expire(now: Self.t0 + .milliseconds(55))
        #expect(expired.released.map(\.sequenceNumber) == [3] && expired.lost == [2] && buffer.heldCount == 0)
    }

    @Test func capacityBoundsWhatIsHeld() {
        var buffer = RTPReorderBuffer(configuration: .init(capacity: 4, maxWait: .seconds(10)))
        _ = buffer.insert(Self.packet(1), now: Self.t0)
        var released: [UInt16] = []
        var lost: [UInt16] = []
        for sequence: UInt16 in 3...7 {
            let output = buffer.insert(Self.packet(sequence), now: Self.t0)
            released += output.released.map(\.sequenceNumber)
            lost += output.lost
            #expect(buffer.heldCount <= 4)
        }
        #expect(released == [3, 4, 5, 6, 7] && lost == [2])
    }

    @Test func randomOrderAndLossNeverCrashAndDepacketizeToTheInputWhenNothingIsLost() {
        var rng = SeededRandom(seed: 0xB0FF)
        for round in 0..<40 {
            let lossy = round % 2 == 1
            var packetizer = H264TestPacketizer(sequence: UInt16.random(in: 0...UInt16.max, using: &rng), mtu: 200)
            let gop = TestNAL.gop(count: 15, seed: round)
            var packets = gop.enumerated().flatMap { packetizer.packetize($1, timestamp: UInt32($0 * 3_000)) }
            // Local shuffles within a window of 8 keep every packet inside the buffer's reach.
            for i in packets.indices {
                let j = min(packets.count - 1, i + Int.random(in: 0..<8, using: &rng))
                if i != 0 { packets.swapAt(i, j) }
            }
            if lossy { packets.removeAll { _ in Int.random(in: 0..<25, using: &rng) == 0 } }
            var buffer = RTPReorderBuffer(configuration: .init(capacity: 64, maxWait: .milliseconds(100)))
            var depacketizer = H264Depacketizer()
            var units: [[UInt8]] = []
            var now = Self.t0
            for packet in packets {
                now += .milliseconds(1)
                for released in buffer.insert(packet, now: now).released {
                    for case .accessUnit(let unit) in depacketizer.push(released) { units.append(unit.data) }
                }
            }
            for released in buffer.expire(now: now + .seconds(1)).released {
                for case .accessUnit(let unit) in depacketizer.push(released) { units.append(unit.data) }
            }
            let expected = gop.map(TestNAL.avcc)
            if lossy {
                #expect(units.allSatisfy(expected.contains))
            } else {
                #expect(units == expected)
            }
        }
    }

    @Test func randomPacketsNeverCrashTheDepacketizer() {
        var rng = SeededRandom(seed: 0xB100)
        var depacketizer = H264Depacketizer()
        var buffer = RTPReorderBuffer(configuration: .init(capacity: 16))
        for i in 0..<5_000 {
            let packet = RTPPacket(
                marker: Bool.random(using: &rng),
                payloadType: 96,
                sequenceNumber: UInt16.random(in: 0...40, using: &rng) &+ UInt16(i / 10),
                timestamp: UInt32(i / 3),
                ssrc: 1,
                payload: rng.bytes(Int.random(in: 0...12, using: &rng))
            )
            for released in buffer.insert(packet, now: Self.t0 + .milliseconds(i)).released {
                _ = depacketizer.push(released)
            }
        }
    }
}
