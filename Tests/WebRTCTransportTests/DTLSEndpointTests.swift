import TestSupport
import Testing
import WebRTCTransport
import WebRTCWire

/// DTLS-SRTP between two real OpenSSL endpoints in memory: handshake, fingerprints, keys, bad input.
@Suite("DTLSEndpoint")
struct DTLSEndpointTests {
    typealias Certs = TestCertificates

    static func client(expects: DTLSFingerprint = Certs.server.fingerprint) throws -> DTLSEndpoint {
        try DTLSEndpoint(role: .client, certificate: Certs.client, remoteFingerprint: expects)
    }

    static func server(expects: DTLSFingerprint = Certs.client.fingerprint) throws -> DTLSEndpoint {
        try DTLSEndpoint(role: .server, certificate: Certs.server, remoteFingerprint: expects)
    }

    @Test func clientAndServerCompleteTheHandshakeAndAgreeOnSRTPKeys() throws {
        var client = try Self.client()
        var server = try Self.server()
        var pair = DTLSPair()
        pair.handshake(client: &client, server: &server)
        #expect(client.state == .connected)
        #expect(server.state == .connected)
        let clientKeys = try #require(DTLSPair.keys(pair.clientEvents))
        let serverKeys = try #require(DTLSPair.keys(pair.serverEvents))
        #expect(clientKeys.profile == .aeadAes128Gcm)
        #expect(clientKeys.client == serverKeys.client)
        #expect(clientKeys.server == serverKeys.server)
        #expect(clientKeys.client != clientKeys.server)
        #expect(clientKeys.local == serverKeys.remote && clientKeys.remote == serverKeys.local)
        #expect(clientKeys.localRole == .client && serverKeys.localRole == .server)
        #expect(clientKeys.client.key.count == 16 && clientKeys.client.salt.count == 12)
        #expect(server.keyingMaterial == serverKeys)
        #expect(pair.clientSent.allSatisfy { $0.count <= 1200 } && pair.serverSent.allSatisfy { $0.count <= 1200 })
    }

    @Test func eachHandshakeExportsFreshKeys() throws {
        var c1 = try Self.client()
        var s1 = try Self.server()
        var c2 = try Self.client()
        var s2 = try Self.server()
        var first = DTLSPair()
        var second = DTLSPair()
        first.handshake(client: &c1, server: &s1)
        second.handshake(client: &c2, server: &s2)
        let a = try #require(DTLSPair.keys(first.serverEvents))
        let b = try #require(DTLSPair.keys(second.serverEvents))
        #expect(a.client != b.client)
    }

    @Test func serverRejectsAClientWhoseCertificateDoesNotMatchTheSDPFingerprint() throws {
        var client = try Self.client()
        var server = try Self.server(expects: Certs.stranger.fingerprint)
        var pair = DTLSPair()
        pair.handshake(client: &client, server: &server)
        #expect(server.state == .failed)
        #expect(server.keyingMaterial == nil)
        #expect(
            DTLSPair.failure(pair.serverEvents)
                == .fingerprintMismatch(expected: Certs.stranger.fingerprint, actual: Certs.client.fingerprint)
        )
        // The server's alert reaches the client, which fails too instead of waiting.
        #expect(client.state == .failed)
        #expect(DTLSPair.keys(pair.clientEvents) == nil)
    }

    @Test func clientRejectsAServerWhoseCertificateDoesNotMatchTheSDPFingerprint() throws {
        var client = try Self.client(expects: Certs.stranger.fingerprint)
        var server = try Self.server()
        var pair = DTLSPair()
        pair.handshake(client: &client, server: &server)
        #expect(client.state == .failed)
        #expect(
            DTLSPair.failure(pair.clientEvents)
                == .fingerprintMismatch(expected: Certs.stranger.fingerprint, actual: Certs.server.fingerprint)
        )
        #expect(server.state == .failed)
    }

    @Test func fingerprintWithAnotherHashIsCheckedWithThatHash() throws {
        let sha512 = DTLSFingerprint(algorithm: "sha-512", digest: Array(repeating: 0, count: 64))
        var client = try Self.client()
        var server = try Self.server(expects: sha512)
        var pair = DTLSPair()
        pair.handshake(client: &client, server: &server)
        guard case .fingerprintMismatch(_, let actual) = DTLSPair.failure(pair.serverEvents) else {
            Issue.record("expected a fingerprint mismatch, got \(pair.serverEvents)")
            return
        }
        #expect(actual?.algorithm == "sha-512" && actual?.digest.count == 64)
    }

    @Test func fingerprintWithAnUnknownHashIsRefusedUpFront() {
        let md5 = DTLSFingerprint(algorithm: "md5", digest: Array(repeating: 0, count: 16))
        #expect(throws: WebRTCTransportError.unsupportedFingerprintAlgorithm("md5")) {
            _ = try DTLSEndpoint(role: .server, certificate: Certs.server, remoteFingerprint: md5)
        }
    }

    @Test func certificateFingerprintIsSHA256InSDPForm() throws {
        let fingerprint = Certs.server.fingerprint
        #expect(fingerprint.algorithm == "sha-256" && fingerprint.digest.count == 32)
        #expect(DTLSFingerprint(sdpValue: fingerprint.description) == fingerprint)
        #expect(fingerprint.description.wholeMatch(of: /sha-256 [0-9A-F]{2}(:[0-9A-F]{2}){31}/) != nil)
        #expect(Certs.client.fingerprint != fingerprint)
    }

    @Test func clientArmsARetransmissionTimerAndAnEarlyTimeoutSendsNothing() throws {
        var client = try Self.client()
        var server = try Self.server()
        #expect(server.timeout() == nil)
        let hello = client.start()
        #expect(hello.count == 1)
        let armed = client.timeout()
        let timeout = try #require(armed)
        #expect(timeout > .zero && timeout <= .seconds(1))
        #expect(client.handleTimeout().isEmpty)
        var pair = DTLSPair()
        pair.handshake(client: &client, server: &server, clientHello: hello)
        #expect(client.state == .connected)
        #expect(client.timeout() == nil && server.timeout() == nil)
    }

    @Test func closeNotifyEndsThePeer() throws {
        var client = try Self.client()
        var server = try Self.server()
        var pair = DTLSPair()
        pair.handshake(client: &client, server: &server)
        let goodbye = client.close()
        #expect(client.state == .closed)
        var events: [DTLSAction] = []
        for case .send(let datagram) in goodbye { events += server.receive(datagram) }
        #expect(events.contains(.closed))
        #expect(server.state == .closed)
        #expect(server.receive(pair.clientSent[0]).isEmpty)
    }

    @Test func garbageAfterConnectingIsIgnored() throws {
        var client = try Self.client()
        var server = try Self.server()
        var pair = DTLSPair()
        pair.handshake(client: &client, server: &server)
        var random = SeededRandom(seed: 7)
        for _ in 0..<500 {
            // RFC 7983 routes first bytes 20...63 to DTLS, so garbage in that range is what can reach us.
            var garbage = random.bytes(Int.random(in: 1...300, using: &random))
            garbage[0] = UInt8.random(in: 20...63, using: &random)
            _ = server.receive(garbage)
            _ = client.receive(garbage)
        }
        #expect(server.state == .connected && client.state == .connected)
    }

    @Test(arguments: 0..<24)
    func corruptedHandshakeRecordsNeverCrashNorYieldMismatchedKeys(seed: Int) throws {
        var client = try Self.client()
        var server = try Self.server()
        var pair = DTLSPair()
        var random = SeededRandom(seed: UInt64(seed))
        pair.handshake(client: &client, server: &server) { datagrams in
            datagrams = datagrams.flatMap { datagram -> [[UInt8]] in
                switch Int.random(in: 0..<4, using: &random) {
                case 0: [random.mutate(datagram), datagram]
                case 1: [datagram, random.mutate(datagram)]
                case 2: [random.mutate(datagram)]
                default: [datagram]
                }
            }
        }
        // A side may fail or stall (its retransmission would recover it), but keys it reports always match.
        #expect([.connected, .failed, .handshaking].contains(client.state))
        #expect([.connected, .failed, .handshaking].contains(server.state))
        if let c = DTLSPair.keys(pair.clientEvents), let s = DTLSPair.keys(pair.serverEvents) {
            #expect(c.client == s.client && c.server == s.server)
        }
        if client.state == .failed { #expect(DTLSPair.failure(pair.clientEvents) != nil) }
        if server.state == .failed { #expect(DTLSPair.failure(pair.serverEvents) != nil) }
    }
}
