import WebRTCWire

/// RFC 8839 §5.4: an ICE username fragment and password (`a=ice-ufrag`, `a=ice-pwd`).
public struct ICECredentials: Sendable, Hashable {
    /// At least 4 ice-chars.
    public var ufrag: String
    /// At least 22 ice-chars; the MESSAGE-INTEGRITY key for STUN sent to this agent.
    public var password: String

    public init(ufrag: String, password: String) {
        self.ufrag = ufrag
        self.password = password
    }

    /// RFC 8839 §5.4 ice-char: ALPHA / DIGIT / "+" / "/".
    static let iceChars = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")

    /// Fresh random credentials: 8-char ufrag (48 bits), 24-char password (144 bits, above the 128 RFC 8445 asks).
    public static func random() -> ICECredentials {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// Credentials drawn from `generator` (tests pass a seeded one).
    public static func random(using generator: inout some RandomNumberGenerator) -> ICECredentials {
        func draw(_ count: Int) -> String {
            String((0..<count).map { _ in iceChars.randomElement(using: &generator)! })
        }
        return ICECredentials(ufrag: draw(8), password: draw(24))
    }

    /// Key for MESSAGE-INTEGRITY under ICE short-term credentials (RFC 8489 §9.1.1: the password as is).
    var integrityKey: [UInt8] { Array(password.utf8) }
}

/// RFC 8445 §6.1.1: which agent nominates. A WHIP server is ICE-lite and so always controlled.
public enum ICERole: Sendable, Hashable {
    /// Answers checks and follows USE-CANDIDATE (our ingest).
    case controlled
    /// Sends checks with USE-CANDIDATE (our publisher).
    case controlling
}

/// Everything the transport needs from one offer/answer exchange to run a session.
public struct WebRTCSessionParameters: Sendable {
    /// Our ufrag and password, as written in our SDP.
    public var local: ICECredentials
    /// The peer's ufrag and password, from its SDP.
    public var remote: ICECredentials
    /// The peer's `a=fingerprint`.
    public var remoteFingerprint: DTLSFingerprint
    /// Our DTLS role (`.server` when we answered `a=setup:passive`).
    public var dtlsRole: DTLSRole
    /// Our ICE role.
    public var iceRole: ICERole
    /// Where to send checks when controlling (the peer's host candidates); unused when controlled.
    public var remoteCandidates: [TransportAddress]

    public init(
        local: ICECredentials,
        remote: ICECredentials,
        remoteFingerprint: DTLSFingerprint,
        dtlsRole: DTLSRole = .server,
        iceRole: ICERole = .controlled,
        remoteCandidates: [TransportAddress] = []
    ) {
        self.local = local
        self.remote = remote
        self.remoteFingerprint = remoteFingerprint
        self.dtlsRole = dtlsRole
        self.iceRole = iceRole
        self.remoteCandidates = remoteCandidates
    }
}
