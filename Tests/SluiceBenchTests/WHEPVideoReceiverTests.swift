import CodecFormats
import MediaCore
import TestSupport
import Testing
import WebRTCWire

@testable import SluiceBench

/// The WHEP viewer's receive path over packets from our own packetizer: STAP-A for SPS/PPS/SEI, FU-A at and past
/// the payload limit, reordering, loss, and the capture clock read back.
struct WHEPVideoReceiverTests {
    static let pt: UInt8 = 102
    static let mtu = 1_200
    static let capture = WallTime(nanosecondsSince1970: 1_764_000_000_123_456_000)

    /// AVCC of one access unit: NAL units with 4-byte lengths.
    static func avcc(_ nals: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        for n in nals {
            let length = UInt32(n.count)
            out += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            out += n
        }
        return out
    }

    static let sps: [UInt8] = [0x67, 0x64, 0x00, 0x1F, 0xAC, 0xD9, 0x40, 0x50]
    static let pps: [UInt8] = [0x68, 0xEB, 0xE3, 0xCB]

    /// A slice NAL of exactly `size` bytes (header included).
    static func slice(idr: Bool, size: Int) -> [UInt8] {
        [idr ? 0x65 : 0x41] + (1..<size).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) }
    }

    /// A keyframe (SPS, PPS, capture SEI, IDR of `idrSize`) and its packets at `timestamp`.
    static func keyframe(idrSize: Int, timestamp: UInt32, packetizer: inout H264Packetizer) throws -> [RTPPacket] {
        let au = avcc([sps, pps, CaptureTimeSEI.nalUnit(capture: capture), slice(idr: true, size: idrSize)])
        return try packetizer.packetize(avcc: au, timestamp: timestamp)
    }

    /// Golden: what the wire looks like around the limit, and that each comes back as one frame with its clock.
    @Test(arguments: [
        // The IDR fills one payload exactly: STAP-A (SPS, PPS, SEI) + one single-NAL packet.
        (1_200, [24, 5], 2),
        // One byte more: STAP-A + two FU-A fragments (FU indicator 28, start then end).
        (1_201, [24, 28, 28], 3),
        // Three fragments, the middle one full.
        (3_000, [24, 28, 28, 28], 4),
    ])
    func keyframeAtTheLimitComesBackWhole(idrSize: Int, types: [Int], packets: Int) throws {
        var packetizer = H264Packetizer(maxPayloadSize: Self.mtu, payloadType: Self.pt, ssrc: 5, sequenceNumber: 65_534)
        let wire = try Self.keyframe(idrSize: idrSize, timestamp: 90_000, packetizer: &packetizer)
        #expect(wire.count == packets)
        #expect(wire.map { Int($0.payload[0] & 0x1F) } == types)
        #expect(wire.allSatisfy { $0.payload.count <= Self.mtu })
        #expect(wire.last?.marker == true && wire.dropLast().allSatisfy { !$0.marker })
        if idrSize > Self.mtu {
            #expect(wire[1].payload[1] & 0x80 != 0 && wire.last.map { $0.payload[1] & 0x40 != 0 } == true)
        }
        var receiver = WHEPVideoReceiver(payloadType: Self.pt)
        let t0 = ContinuousClock.now
        let arrival = WallTime(nanosecondsSince1970: Self.capture.nanosecondsSince1970 + 40_000_000)
        var frames: [WHEPVideoReceiver.Frame] = []
        for p in wire { frames += receiver.receive(p.serialized(), arrival: arrival, now: t0).frames }
        #expect(frames.count == 1)
        let f = try #require(frames.first)
        #expect(f.capture == Self.capture && f.isKeyframe && f.timestamp == 90_000 && f.completed == arrival)
        // SPS, PPS, SEI and the IDR, each with a 4-byte length.
        #expect(
            f.bytes == Self.sps.count + Self.pps.count + CaptureTimeSEI.nalUnit(capture: Self.capture).count + idrSize
                + 16
        )
        #expect(receiver.packetsReceived == packets && receiver.packetsLost == 0)
    }

    @Test func reorderedFragmentsStillMakeOneFrame() throws {
        var packetizer = H264Packetizer(maxPayloadSize: Self.mtu, payloadType: Self.pt, ssrc: 5, sequenceNumber: 10)
        var wire = try Self.keyframe(idrSize: 3_000, timestamp: 0, packetizer: &packetizer)
        wire.swapAt(1, 2)
        var receiver = WHEPVideoReceiver(payloadType: Self.pt)
        let frames = wire.flatMap { receiver.receive($0.serialized(), arrival: .now(), now: .now).frames }
        #expect(frames.count == 1 && frames.first?.capture == Self.capture)
    }

    @Test func lossAsksForAKeyframeAndDropsUntilOne() throws {
        var packetizer = H264Packetizer(maxPayloadSize: Self.mtu, payloadType: Self.pt, ssrc: 5, sequenceNumber: 100)
        var receiver = WHEPVideoReceiver(payloadType: Self.pt, maxWait: .milliseconds(50))
        let t0 = ContinuousClock.now
        var frames = 0
        for p in try Self.keyframe(idrSize: 500, timestamp: 0, packetizer: &packetizer) {
            frames += receiver.receive(p.serialized(), arrival: .now(), now: t0).frames.count
        }
        // A P-frame in three fragments loses its middle one.
        let p1 = try packetizer.packetize(avcc: Self.avcc([Self.slice(idr: false, size: 3_000)]), timestamp: 3_000)
        for p in [p1[0], p1[2]] { frames += receiver.receive(p.serialized(), arrival: .now(), now: t0).frames.count }
        let expired = receiver.expire(now: t0 + .milliseconds(60), wall: .now())
        #expect(expired.needsKeyframe)
        #expect(receiver.packetsLost == 1)
        // The next P-frame is not decodable without the lost reference; the next keyframe is.
        let p2 = try packetizer.packetize(avcc: Self.avcc([Self.slice(idr: false, size: 100)]), timestamp: 6_000)
        for p in p2 { frames += receiver.receive(p.serialized(), arrival: .now(), now: t0).frames.count }
        #expect(frames == 1)
        for p in try Self.keyframe(idrSize: 500, timestamp: 9_000, packetizer: &packetizer) {
            frames += receiver.receive(p.serialized(), arrival: .now(), now: t0).frames.count
        }
        #expect(frames == 2)
    }

    @Test func otherPayloadTypesAndGarbageAreNotVideo() {
        var receiver = WHEPVideoReceiver(payloadType: Self.pt)
        let opus = RTPPacket(marker: true, payloadType: 111, sequenceNumber: 1, timestamp: 0, ssrc: 9, payload: [0xFC])
        #expect(receiver.receive(opus.serialized(), arrival: .now(), now: .now).frames.isEmpty)
        #expect(receiver.receive([0x01, 0x02], arrival: .now(), now: .now).frames.isEmpty)
        #expect(receiver.packetsReceived == 0 && receiver.malformed == 1)
    }
}

/// Property: whatever arrives (random bytes, packets with random payloads and sequence numbers), the receiver
/// neither crashes nor emits a frame it could not have reassembled, and counts what it could not parse.
struct WHEPVideoReceiverPropertyTests {
    @Test(arguments: [1, 2, 3, 4]) func arbitraryInputNeverCrashesAndOnlyWholeFramesComeOut(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var receiver = WHEPVideoReceiver(payloadType: 102, maxWait: .milliseconds(20))
        let t0 = ContinuousClock.now
        var frames: [WHEPVideoReceiver.Frame] = []
        for i in 0..<3_000 {
            let now = t0 + .milliseconds(i)
            let bytes: [UInt8]
            if random.next() % 3 == 0 {
                bytes = random.bytes(Int(random.next() % 64))
            } else {
                let payload = random.bytes(Int(1 + random.next() % 40))
                bytes = RTPPacket(
                    marker: random.next() % 4 == 0,
                    payloadType: 102,
                    sequenceNumber: UInt16(truncatingIfNeeded: i + Int(random.next() % 3)),
                    timestamp: UInt32(i / 4) * 3_000,
                    ssrc: 5,
                    payload: payload
                ).serialized()
            }
            frames += receiver.receive(bytes, arrival: .now(), now: now).frames
            if i % 50 == 0 { frames += receiver.expire(now: now, wall: .now()).frames }
        }
        // Every frame out started on an IDR (the depacketizer drops until one) and holds its NAL units.
        #expect(frames.allSatisfy { $0.bytes > 4 })
        #expect(frames.first.map(\.isKeyframe) ?? true)
        #expect(receiver.packetsReceived + receiver.malformed <= 3_000)
    }
}
