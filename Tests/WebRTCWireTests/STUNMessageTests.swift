import TestSupport
import Testing
import WebRTCWire

/// One RFC 5769 vector: its bytes, the message it encodes, and the short-term key.
struct STUNVector: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let message: STUNMessage
    var testDescription: String { name }

    static let password = Array("VOkJxbRl1RmTxUk/WvJxBt".utf8)
    static let transactionID = STUNTransactionID(bytes: hex("b7e7a701bc34d686fa87dfae"))!

    /// RFC 5769 §2.1–2.3 (padding bytes in these vectors are 0x20).
    static let all: [STUNVector] = [
        STUNVector(
            name: "2.1 sample request",
            bytes: hex(
                """
                00010058 2112a442 b7e7a701 bc34d686 fa87dfae 80220010 5354554e 20746573 7420636c 69656e74
                00240004 6e0001ff 80290008 932ff9b1 51263b36 00060009 6576746a 3a683676 59202020
                00080014 9aeaa70c bfd8cb56 781ef2b5 b2d3f249 c1b571a2 80280004 e57a3bcf
                """
            ),
            message: STUNMessage(
                type: .bindingRequest,
                transactionID: transactionID,
                attributes: [
                    .software("STUN test client"), .priority(0x6E00_01FF), .iceControlled(0x932F_F9B1_5126_3B36),
                    .username("evtj:h6vY"),
                ]
            )
        ),
        STUNVector(
            name: "2.2 IPv4 response",
            bytes: hex(
                """
                0101003c 2112a442 b7e7a701 bc34d686 fa87dfae 8022000b 74657374 20766563 746f7220
                00200008 0001a147 e112a643 00080014 2b91f599 fd9e90c3 8c7489f9 2af9ba53 f06be7d7
                80280004 c07d4c96
                """
            ),
            message: STUNMessage(
                type: .bindingSuccess,
                transactionID: transactionID,
                attributes: [.software("test vector"), .xorMappedAddress(TransportAddress("192.0.2.1:32853")!)]
            )
        ),
        STUNVector(
            name: "2.3 IPv6 response",
            bytes: hex(
                """
                01010048 2112a442 b7e7a701 bc34d686 fa87dfae 8022000b 74657374 20766563 746f7220
                00200014 0002a147 0113a9fa a5d3f179 bc25f4b5 bed2b9d9 00080014 a382954e 4be67bf1
                1784c97c 8292c275 bfe3ed41 80280004 c8fb0b4c
                """
            ),
            message: STUNMessage(
                type: .bindingSuccess,
                transactionID: transactionID,
                attributes: [
                    .software("test vector"),
                    .xorMappedAddress(TransportAddress("[2001:db8:1234:5678:11:2233:4455:6677]:32853")!),
                ]
            )
        ),
    ]
}

/// STUN message parsing, serialization, MESSAGE-INTEGRITY and FINGERPRINT against RFC 5769.
@Suite struct STUNMessageTests {
    @Test(arguments: STUNVector.all) func decodesRFC5769Vector(_ vector: STUNVector) throws {
        let parsed = try STUNMessage(parsing: vector.bytes)
        #expect(parsed.type == vector.message.type && parsed.transactionID == vector.message.transactionID)
        let plain = parsed.attributes.filter {
            if case .messageIntegrity = $0 { return false }
            if case .fingerprint = $0 { return false }
            return true
        }
        #expect(plain == vector.message.attributes)
        #expect(parsed.attributes.last?.type == STUNAttribute.Code.fingerprint)
        #expect(parsed.isAuthentic(key: STUNVector.password))
        #expect(!parsed.isAuthentic(key: Array("VOkJxbRl1RmTxUk/WvJxBu".utf8)))
    }

    @Test(arguments: STUNVector.all) func encodesRFC5769VectorByteForByte(_ vector: STUNVector) {
        let bytes = vector.message.serialized(integrityKey: STUNVector.password, fingerprint: true, padding: 0x20)
        #expect(bytes == vector.bytes)
    }

    @Test func hashesMatchPublishedCheckValues() {
        #expect(SHA1.hash(Array("abc".utf8)) == hex("a9993e364706816aba3e25717850c26c9cd0d89d"))
        #expect(SHA1.hash([UInt8]()) == hex("da39a3ee5e6b4b0d3255bfef95601890afd80709"))
        let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(SHA1.hash(long) == hex("84983e441c3bd26ebaae4aa1f95129e5e54670f1"))
        // RFC 2202 §3 test cases 2 and 6 (the second hashes a key longer than the block).
        let jefe = HMACSHA1.authenticate(Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
        #expect(jefe == hex("effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"))
        let bigKey = HMACSHA1.authenticate(
            Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            key: [UInt8](repeating: 0xAA, count: 80)
        )
        #expect(bigKey == hex("aa4ae5e15272d00e95705637ce8a3b55ed402112"))
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func messageTypesInterleaveMethodAndClass() {
        let table: [(STUNMessageType, UInt16)] = [
            (.bindingRequest, 0x0001), (.bindingSuccess, 0x0101), (.bindingError, 0x0111), (.bindingIndication, 0x0011),
            (STUNMessageType(method: 0x003, messageClass: .request), 0x0003),
            (STUNMessageType(method: 0xFFF, messageClass: .errorResponse), 0x3FFF),
        ]
        for (type, raw) in table {
            #expect(type.rawValue == raw)
            #expect(STUNMessageType(rawValue: raw) == type)
        }
    }

    @Test func rejectsWhatIsNotSTUN() {
        let good = STUNVector.all[0].bytes
        #expect(throws: WebRTCWireError.truncated(what: "STUN header", offset: 0, wanted: 20, available: 19)) {
            try STUNMessage(parsing: Array(good.prefix(19)))
        }
        var cookie = good
        cookie[4] ^= 1
        #expect(throws: WebRTCWireError.stunBadHeader(reason: "no magic cookie")) { try STUNMessage(parsing: cookie) }
        #expect(throws: WebRTCWireError.stunBadHeader(reason: "length 88 but the datagram holds 84 attribute bytes")) {
            try STUNMessage(parsing: Array(good.dropLast(4)))
        }
        // Python: zlib.crc32(flipped[:-8]) ^ 0x5354554E.
        var flipped = good
        flipped[30] ^= 1
        #expect(throws: WebRTCWireError.stunFingerprintMismatch(expected: 0xBC1C_03A4, found: 0xE57A_3BCF)) {
            try STUNMessage(parsing: flipped)
        }
        var runaway = good
        runaway[23] = 0x60  // SOFTWARE claims 96 bytes.
        #expect(throws: WebRTCWireError.truncated(what: "STUN attribute 0x8022", offset: 24, wanted: 96, available: 84))
        {
            try STUNMessage(parsing: runaway)
        }
    }

    @Test func integrityIsCheckedAfterAFingerprintlessSerialization() throws {
        let id = STUNTransactionID(bytes: [UInt8](repeating: 7, count: 12))!
        let request = STUNMessage.bindingRequest(
            transactionID: id,
            username: "srv:cli",
            priority: 1_853_817_087,
            controllingTieBreaker: 42,
            useCandidate: true
        )
        let parsed = try STUNMessage(parsing: request.serialized(integrityKey: [1, 2, 3]))
        #expect(parsed.isAuthentic(key: [1, 2, 3]) && !parsed.isAuthentic(key: [1, 2]))
        #expect(parsed.useCandidate && parsed.iceControlling == 42 && parsed.priority == 1_853_817_087)
        #expect(parsed.iceUsernameFragments.map { "\($0.receiver)|\($0.sender)" } == "srv|cli")
        let unsigned = try STUNMessage(parsing: request.serialized(fingerprint: true))
        #expect(!unsigned.isAuthentic(key: [1, 2, 3]))
    }

    @Test func errorResponseCarriesCodeAndReason() throws {
        let request = try STUNMessage(parsing: STUNVector.all[0].bytes)
        let error = STUNMessage.bindingError(to: request, error: .roleConflict)
        let parsed = try STUNMessage(parsing: error.serialized(integrityKey: [9], fingerprint: true))
        #expect(parsed.type == .bindingError && parsed.errorCode == .roleConflict)
        #expect(parsed.transactionID == request.transactionID)
    }

    @Test func transportAddressesParseAndPrint() {
        let table: [(String, [UInt8], UInt16, String)] = [
            ("192.0.2.1:32853", [192, 0, 2, 1], 32853, "192.0.2.1:32853"),
            ("[::1]:8189", [UInt8](repeating: 0, count: 15) + [1], 8189, "[::1]:8189"),
            ("[2001:DB8:0:0:1:0:0:1]:1", hex("20010db8000000000001000000000001"), 1, "[2001:db8::1:0:0:1]:1"),
            ("[fe80::]:9", hex("fe800000000000000000000000000000"), 9, "[fe80::]:9"),
        ]
        for (text, ip, port, printed) in table {
            let address = TransportAddress(text)
            #expect(address?.ip == ip && address?.port == port)
            #expect(address?.description == printed)
        }
        for bad in ["1.2.3:4", "256.0.0.1:1", "1.2.3.4", "[1::2::3]:4", "[::1]", "[1:2:3:4:5:6:7:8:9]:1", "::1:80"] {
            #expect(TransportAddress(bad) == nil, "\(bad)")
        }
    }

    @Test func randomBytesNeverCrash() {
        var rng = SeededRandom(seed: 0x5707)
        let seeds = STUNVector.all.map(\.bytes)
        for i in 0..<4_000 {
            var bytes = i % 2 == 0 ? rng.mutate(seeds[i % 3]) : rng.bytes(Int.random(in: 0...64, using: &rng))
            if i % 4 == 1, bytes.count >= 8 {
                bytes.replaceSubrange(4..<8, with: [0x21, 0x12, 0xA4, 0x42])
                bytes[0] &= 0x3F
            }
            if let message = try? STUNMessage(parsing: bytes) { _ = message.isAuthentic(key: [1]) }
        }
    }

    @Test func randomMessagesRoundTrip() throws {
        var rng = SeededRandom(seed: 0x5708)
        for _ in 0..<500 {
            let id = STUNTransactionID.random(using: &rng)
            var attributes: [STUNAttribute] = []
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                switch Int.random(in: 0..<6, using: &rng) {
                case 0: attributes.append(.username(String(repeating: "u", count: Int.random(in: 0...20, using: &rng))))
                case 1: attributes.append(.priority(UInt32.random(in: 0...UInt32.max, using: &rng)))
                case 2: attributes.append(.iceControlling(UInt64.random(in: 0...UInt64.max, using: &rng)))
                case 3:
                    let v6 = Bool.random(using: &rng)
                    let ip = rng.bytes(v6 ? 16 : 4)
                    attributes.append(
                        .xorMappedAddress(TransportAddress(ip: ip, port: UInt16.random(in: 0...65535, using: &rng))!)
                    )
                case 4: attributes.append(.other(type: 0x8050, value: rng.bytes(Int.random(in: 0...9, using: &rng))))
                default: attributes.append(.useCandidate)
                }
            }
            let message = STUNMessage(type: .bindingRequest, transactionID: id, attributes: attributes)
            let key = rng.bytes(Int.random(in: 1...30, using: &rng))
            let parsed = try STUNMessage(parsing: message.serialized(integrityKey: key, fingerprint: true))
            #expect(Array(parsed.attributes.dropLast(2)) == attributes)
            #expect(parsed.isAuthentic(key: key))
        }
    }
}
