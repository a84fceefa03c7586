import WebRTCWire

/// A small RFC 6184 packetizer for building test input: STAP-A for runs of small NAL units, FU-A above the MTU.
struct H264TestPacketizer {
    var sequence: UInt16
    let ssrc: UInt32 = 0x5EED
    let mtu: Int

    /// Packets for one access unit; the last one carries the marker.
    mutating func packetize(_ nals: [[UInt8]], timestamp: UInt32) -> [RTPPacket] {
        var payloads: [[UInt8]] = []
        var stap: [[UInt8]] = []
        func flushStap() {
            if stap.count == 1 { payloads.append(stap[0]) }
            if stap.count > 1 {
                let nri = stap.map { $0[0] & 0x60 }.max() ?? 0
                payloads.append([nri | 24] + stap.flatMap { [UInt8($0.count >> 8), UInt8($0.count & 0xFF)] + $0 })
            }
            stap = []
        }
        for nal in nals {
            if nal.count > mtu {
                flushStap()
                let body = Array(nal.dropFirst())
                let chunks = stride(from: 0, to: body.count, by: mtu - 2).map {
                    Array(body[$0..<min($0 + mtu - 2, body.count)])
                }
                for (i, chunk) in chunks.enumerated() {
                    let start: UInt8 = i == 0 ? 0x80 : 0
                    let end: UInt8 = i == chunks.count - 1 ? 0x40 : 0
                    payloads.append([nal[0] & 0xE0 | 28, start | end | nal[0] & 0x1F] + chunk)
                }
            } else {
                let stapSize = 1 + stap.reduce(0) { $0 + 2 + $1.count } + 2 + nal.count
                if stapSize > mtu { flushStap() }
                stap.append(nal)
            }
        }
        flushStap()
        return payloads.enumerated().map { i, payload in
            defer { sequence &+= 1 }
            return RTPPacket(
                marker: i == payloads.count - 1,
                payloadType: 96,
                sequenceNumber: sequence,
                timestamp: timestamp,
                ssrc: ssrc,
                payload: payload
            )
        }
    }
}

/// NAL units and AVCC helpers for the depacketizer tests.
enum TestNAL {
    static let sps: [UInt8] = [0x67, 0x42, 0xE0, 0x1F, 0xDA, 0x01, 0x40, 0x16, 0xEC, 0x04, 0x40]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]

    /// A slice NAL of `type` (5 IDR, 1 non-IDR) with `size` bytes, content seeded by `seed`.
    static func slice(type: UInt8, size: Int, seed: Int) -> [UInt8] {
        [0x60 | type] + (1..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed) }
    }

    /// NAL units to AVCC with 4-byte lengths.
    static func avcc(_ nals: [[UInt8]]) -> [UInt8] {
        nals.flatMap { nal -> [UInt8] in
            let n = UInt32(nal.count)
            let prefix: [UInt8] = [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)]
            return prefix + nal
        }
    }

    /// A GOP: IDR access unit (SPS, PPS, IDR) followed by `count - 1` P access units of varied sizes.
    static func gop(count: Int, seed: Int, bigEvery: Int = 3) -> [[[UInt8]]] {
        (0..<count).map { i in
            i == 0
                ? [sps, pps, slice(type: 5, size: 3_000 + seed % 500, seed: seed)]
                : [slice(type: 1, size: i % bigEvery == 0 ? 2_500 : 40 + (i * 37 + seed) % 900, seed: seed + i)]
        }
    }
}
