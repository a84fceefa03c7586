import Testing
import WebRTCWire

/// RFC 7983 first-byte demultiplexing on the shared UDP port.
@Suite struct PacketClassTests {
    /// First bytes at every range boundary and the class each must get.
    static let boundaries: [([UInt8], PacketClass)] = [
        ([], .unknown), ([0x00, 0x01], .stun), ([0x03], .stun), ([0x04], .unknown), ([0x0F], .unknown),
        ([0x10], .zrtp), ([0x13], .zrtp), ([0x14], .dtls), ([0x16, 0xFE, 0xFD], .dtls), ([0x3F], .dtls),
        ([0x40], .turnChannel), ([0x4F], .turnChannel), ([0x50], .unknown), ([0x7F], .unknown),
        ([0x80, 0x60], .rtp), ([0x90, 0xE0], .rtp), ([0x80, 0xC8], .rtcp), ([0x81, 0xC9], .rtcp),
        ([0x81, 0xCD], .rtcp), ([0x80, 0xDF], .rtcp), ([0x80, 0xBF], .rtp), ([0x80], .rtp), ([0xBF, 0x00], .rtp),
        ([0xC0], .unknown), ([0xFF], .unknown),
    ]

    @Test func classifiesEveryRangeBoundary() {
        for (bytes, expected) in Self.boundaries { #expect(PacketClass(classifying: bytes) == expected, "\(bytes)") }
    }

    @Test func classifiesEveryFirstByteWithoutCrashing() {
        var counts: [PacketClass: Int] = [:]
        for byte in 0...255 { counts[PacketClass(classifying: [UInt8(byte), 0x60]), default: 0] += 1 }
        #expect(counts == [.stun: 4, .zrtp: 4, .dtls: 44, .turnChannel: 16, .rtp: 64, .unknown: 124])
    }

    @Test func realSTUNRequestIsSTUN() {
        #expect(PacketClass(classifying: STUNVector.all[0].bytes) == .stun)
        #expect(STUNMessage.looksLikeSTUN(STUNVector.all[0].bytes))
        #expect(!STUNMessage.looksLikeSTUN([0x00, 0x01] + [UInt8](repeating: 0, count: 18)))
    }
}
