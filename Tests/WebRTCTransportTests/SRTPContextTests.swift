import TestSupport
import Testing
import WebRTCTransport
import WebRTCWire

/// SRTP/SRTCP through libsrtp2: round trips, tampering, replays, and keys that came out of a real DTLS handshake.
@Suite("SRTPContext")
struct SRTPContextTests {
    static let profiles: [SRTPProfile] = [.aes128CmHmacSha1_80, .aeadAes128Gcm]

    static func key(_ profile: SRTPProfile, seed: UInt8 = 1) -> SRTPKey {
        SRTPKey(
            key: (0..<profile.keyLength).map { UInt8($0) &+ seed },
            salt: (0..<profile.saltLength).map { UInt8($0) &* 3 &+ seed }
        )
    }

    static func pair(_ profile: SRTPProfile) throws -> (sender: SRTPContext, receiver: SRTPContext) {
        let key = key(profile)
        return (
            try SRTPContext(profile: profile, key: key, direction: .outbound),
            try SRTPContext(profile: profile, key: key, direction: .inbound)
        )
    }

    /// RTP version 2, payload type 102 (H.264 in Chromium offers), given sequence number.
    static func rtp(sequence: UInt16, ssrc: UInt32 = 0x1234_5678, payload: [UInt8] = Array(0..<100)) -> [UInt8] {
        let timestamp = UInt32(sequence) &* 3000
        return [0x80, 102, UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
            + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: timestamp >> $0) }
            + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: ssrc >> $0) } + payload
    }

    /// RTCP receiver report with no report blocks (RFC 3550 §6.4.2), 8 bytes.
    static let receiverReport: [UInt8] = [0x80, 201, 0, 1, 0xCA, 0xFE, 0xBA, 0xBE]

    /// Authentication tag bytes each profile appends to SRTP.
    static func tagLength(_ profile: SRTPProfile) -> Int { profile == .aeadAes128Gcm ? 16 : 10 }

    @Test(arguments: profiles)
    func rtpSurvivesProtectThenUnprotect(profile: SRTPProfile) throws {
        let (sender, receiver) = try Self.pair(profile)
        for sequence in UInt16(65_500)..<UInt16(65_535) {
            let plain = Self.rtp(sequence: sequence)
            let protected = try sender.protectRTP(plain)
            #expect(protected.count == plain.count + Self.tagLength(profile))
            #expect(Array(protected.prefix(12)) == Array(plain.prefix(12)))
            #expect(protected[12..<plain.count] != plain[12...])
            #expect(try receiver.unprotectRTP(protected) == plain)
        }
    }

    @Test(arguments: profiles)
    func rtcpSurvivesProtectThenUnprotect(profile: SRTPProfile) throws {
        let (sender, receiver) = try Self.pair(profile)
        for _ in 0..<5 {
            let protected = try sender.protectRTCP(Self.receiverReport)
            // SRTCP adds the E flag + 31-bit index, then the tag (RFC 3711 §3.4).
            #expect(protected.count == Self.receiverReport.count + 4 + Self.tagLength(profile))
            #expect(try receiver.unprotectRTCP(protected) == Self.receiverReport)
        }
    }

    @Test(arguments: profiles)
    func tamperedPacketsFailAuthentication(profile: SRTPProfile) throws {
        let (sender, receiver) = try Self.pair(profile)
        var rtp = try sender.protectRTP(Self.rtp(sequence: 1))
        rtp[20] ^= 0x01
        #expect(throws: WebRTCTransportError.srtpAuthenticationFailed(packet: .rtp)) { try receiver.unprotectRTP(rtp) }
        var rtcp = try sender.protectRTCP(Self.receiverReport)
        rtcp[rtcp.count - 1] ^= 0x80
        #expect(throws: WebRTCTransportError.srtpAuthenticationFailed(packet: .rtcp)) {
            try receiver.unprotectRTCP(rtcp)
        }
        // The untouched packet with the same index still verifies: a forgery does not burn its slot.
        #expect(try receiver.unprotectRTP(try sender.protectRTP(Self.rtp(sequence: 2))) == Self.rtp(sequence: 2))
    }

    @Test(arguments: profiles)
    func replayedPacketsAreRejected(profile: SRTPProfile) throws {
        let (sender, receiver) = try Self.pair(profile)
        let rtp = try sender.protectRTP(Self.rtp(sequence: 7))
        _ = try receiver.unprotectRTP(rtp)
        #expect(throws: WebRTCTransportError.srtpReplay(packet: .rtp)) { try receiver.unprotectRTP(rtp) }
        let rtcp = try sender.protectRTCP(Self.receiverReport)
        _ = try receiver.unprotectRTCP(rtcp)
        #expect(throws: WebRTCTransportError.srtpReplay(packet: .rtcp)) { try receiver.unprotectRTCP(rtcp) }
    }

    @Test func reorderedPacketsInsideTheWindowAreAccepted() throws {
        let (sender, receiver) = try Self.pair(.aes128CmHmacSha1_80)
        let packets = try (100..<400).map { try sender.protectRTP(Self.rtp(sequence: UInt16($0))) }
        // Newest first: every older packet is still inside the 1024-packet window.
        for (offset, packet) in packets.enumerated().reversed() {
            #expect(try receiver.unprotectRTP(packet) == Self.rtp(sequence: UInt16(100 + offset)))
        }
    }

    @Test func outboundMayResendTheSamePacketToAnswerANack() throws {
        let (sender, _) = try Self.pair(.aes128CmHmacSha1_80)
        let first = try sender.protectRTP(Self.rtp(sequence: 9))
        #expect(try sender.protectRTP(Self.rtp(sequence: 9)) == first)
    }

    @Test func wrongKeyFailsAuthentication() throws {
        let sender = try SRTPContext(profile: .aeadAes128Gcm, key: Self.key(.aeadAes128Gcm), direction: .outbound)
        let other = try SRTPContext(
            profile: .aeadAes128Gcm,
            key: Self.key(.aeadAes128Gcm, seed: 2),
            direction: .inbound
        )
        let packet = try sender.protectRTP(Self.rtp(sequence: 1))
        #expect(throws: WebRTCTransportError.srtpAuthenticationFailed(packet: .rtp)) { try other.unprotectRTP(packet) }
    }

    @Test func keyOfTheWrongLengthIsRefused() {
        let short = SRTPKey(key: [1, 2, 3], salt: [4])
        #expect(throws: WebRTCTransportError.self) {
            try SRTPContext(profile: .aes128CmHmacSha1_80, key: short, direction: .inbound)
        }
    }

    @Test func shortOrRandomPacketsThrowWithoutCrashing() throws {
        let (_, receiver) = try Self.pair(.aes128CmHmacSha1_80)
        #expect(throws: WebRTCTransportError.malformedPacket("SRTP packet of 5 bytes")) {
            try receiver.unprotectRTP([0x80, 1, 2, 3, 4])
        }
        var random = SeededRandom(seed: 42)
        for _ in 0..<2000 {
            var bytes = random.bytes(Int.random(in: 0...200, using: &random))
            if !bytes.isEmpty { bytes[0] = 0x80 | (bytes[0] & 0x3F) }
            #expect(throws: WebRTCTransportError.self) { try receiver.unprotectRTP(bytes) }
            #expect(throws: WebRTCTransportError.self) { try receiver.unprotectRTCP(bytes) }
        }
    }

    @Test func keysExportedByDTLSProtectEachDirection() throws {
        var client = try DTLSEndpoint(
            role: .client,
            certificate: TestCertificates.client,
            remoteFingerprint: TestCertificates.server.fingerprint
        )
        var server = try DTLSEndpoint(
            role: .server,
            certificate: TestCertificates.server,
            remoteFingerprint: TestCertificates.client.fingerprint
        )
        var pair = DTLSPair()
        pair.handshake(client: &client, server: &server)
        let clientKeys = try #require(DTLSPair.keys(pair.clientEvents))
        let serverKeys = try #require(DTLSPair.keys(pair.serverEvents))
        // Publisher (DTLS client) to ingest (DTLS server), and RTCP feedback back.
        let publisher = try SRTPContext(material: clientKeys, direction: .outbound)
        let ingest = try SRTPContext(material: serverKeys, direction: .inbound)
        #expect(try ingest.unprotectRTP(try publisher.protectRTP(Self.rtp(sequence: 3))) == Self.rtp(sequence: 3))
        let feedback = try SRTPContext(material: serverKeys, direction: .outbound)
        let publisherIn = try SRTPContext(material: clientKeys, direction: .inbound)
        let report = try feedback.protectRTCP(Self.receiverReport)
        #expect(try publisherIn.unprotectRTCP(report) == Self.receiverReport)
        // Keys are directional: the ingest cannot unprotect its own outbound traffic.
        #expect(throws: WebRTCTransportError.srtpAuthenticationFailed(packet: .rtcp)) {
            try ingest.unprotectRTCP(try feedback.protectRTCP(Self.receiverReport))
        }
    }
}
