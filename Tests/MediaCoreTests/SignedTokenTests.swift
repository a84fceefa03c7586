import MediaCore
import Testing

/// SHA-256 and HMAC against published vectors; signed keys and viewer tokens accept, expire and refuse.
struct SignedTokenTests {
    static func hex(_ b: [UInt8]) -> String {
        b.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    /// FIPS 180-4 examples and a two-block message.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func sha256MatchesTheStandardVectors(_ input: String, _ digest: String) {
        #expect(Self.hex(SHA256.hash(Array(input.utf8))) == digest)
    }

    /// RFC 4231 test cases 1, 2 and 6 (key longer than a block).
    @Test func hmacMatchesRFC4231() {
        let c1 = HMACSHA256.authenticationCode(for: Array("Hi There".utf8), key: [UInt8](repeating: 0x0b, count: 20))
        #expect(Self.hex(c1) == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(
            HMACSHA256.hex("what do ya want for nothing?", secret: "Jefe")
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        )
        let c6 = HMACSHA256.authenticationCode(
            for: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            key: [UInt8](repeating: 0xaa, count: 131)
        )
        #expect(Self.hex(c6) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func constantTimeEqualsComparesContentAndLength() {
        #expect(HMACSHA256.constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!HMACSHA256.constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!HMACSHA256.constantTimeEquals([1, 2, 3], [1, 2]))
    }

    @Test func signedKeyVerifiesUntilItsExpiry() throws {
        let sig = SignedToken.signature(key: "cam1", expiry: 2_000, secret: "s3cret")
        try SignedToken.verify(key: "cam1", expiry: 2_000, signature: sig, secret: "s3cret", now: 1_999)
        try SignedToken.verify(key: "cam1", expiry: 2_000, signature: sig.uppercased(), secret: "s3cret", now: 2_000)
        #expect(throws: SignedToken.Failure.expired(expiry: 2_000, now: 2_001)) {
            try SignedToken.verify(key: "cam1", expiry: 2_000, signature: sig, secret: "s3cret", now: 2_001)
        }
    }

    @Test func signatureForAnotherKeyExpiryOrSecretIsRefused() {
        let sig = SignedToken.signature(key: "cam1", expiry: 2_000, secret: "s3cret")
        #expect(throws: SignedToken.Failure.badSignature) {
            try SignedToken.verify(key: "cam2", expiry: 2_000, signature: sig, secret: "s3cret", now: 0)
        }
        #expect(throws: SignedToken.Failure.badSignature) {
            try SignedToken.verify(key: "cam1", expiry: 3_000, signature: sig, secret: "s3cret", now: 0)
        }
        #expect(throws: SignedToken.Failure.badSignature) {
            try SignedToken.verify(key: "cam1", expiry: 2_000, signature: sig, secret: "other", now: 0)
        }
    }

    @Test func queryAndViewerTokenShapesParse() throws {
        let parsed = SignedToken.parseQuery("foo=1&exp=1700000000&sig=abcd")
        #expect(parsed?.expiry == 1_700_000_000 && parsed?.signature == "abcd")
        #expect(SignedToken.parseQuery("exp=12") == nil)
        let token = SignedToken.viewerToken(key: "demo", expiry: 5_000, secret: "v")
        try SignedToken.verifyViewerToken(token[...], key: "demo", secret: "v", now: 4_000)
        #expect(throws: SignedToken.Failure.malformed) {
            try SignedToken.verifyViewerToken("nodash", key: "demo", secret: "v", now: 0)
        }
    }

    /// Seeded property: a signature verifies only with every input unchanged.
    @Test func randomKeysSignAndVerify() throws {
        var state: UInt64 = 0x5EED
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        for _ in 0..<200 {
            let key = String((0..<(1 + next() % 40)).map { _ in Character(UnicodeScalar(UInt8(97 + next() % 26))) })
            let secret = String(next())
            let expiry = Int64(next() % 1_000_000)
            let sig = SignedToken.signature(key: key, expiry: expiry, secret: secret)
            try SignedToken.verify(key: key, expiry: expiry, signature: sig, secret: secret, now: expiry)
            #expect(throws: SignedToken.Failure.badSignature) {
                try SignedToken.verify(key: key + "x", expiry: expiry, signature: sig, secret: secret, now: 0)
            }
        }
    }
}
