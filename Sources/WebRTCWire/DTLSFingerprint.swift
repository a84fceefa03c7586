/// RFC 8122 §5 and RFC 8842 §5: the certificate fingerprint and DTLS setup role carried in SDP.
public struct DTLSFingerprint: Hashable, Sendable, CustomStringConvertible {
    /// Hash function name as SDP writes it, lower-case (sha-256).
    public var algorithm: String
    /// The digest bytes.
    public var digest: [UInt8]

    /// A fingerprint from raw digest bytes.
    public init(algorithm: String, digest: [UInt8]) {
        self.algorithm = algorithm.lowercased()
        self.digest = digest
    }

    /// Parses `sha-256 AB:CD:…`; nil when the hex is malformed.
    public init?(sdpValue: String) {
        let parts = sdpValue.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2 else { return nil }
        let octets = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        let bytes = octets.compactMap { $0.count == 2 ? UInt8($0, radix: 16) : nil }
        guard !bytes.isEmpty, bytes.count == octets.count else { return nil }
        self.init(algorithm: String(parts[0]), digest: bytes)
    }

    /// `sha-256 AB:CD:…` (upper-case hex, RFC 8122 §5).
    public var description: String {
        let hex = digest.map { byte in
            let text = String(byte, radix: 16, uppercase: true)
            return byte < 16 ? "0" + text : text
        }
        return "\(algorithm) \(hex.joined(separator: ":"))"
    }
}

/// RFC 8842 §5.2 / RFC 4145 §4: who starts the DTLS handshake.
public enum DTLSSetup: String, Sendable {
    /// Either role (offers must say this, RFC 8842 §5.2; FFmpeg's WHIP muxer says `passive` instead).
    case actpass
    /// Will start the handshake (DTLS client).
    case active
    /// Will wait for the handshake (DTLS server).
    case passive
    /// No connection yet.
    case holdconn

    /// The role our answer takes: passive unless the offerer insists on being passive itself.
    public var answer: DTLSSetup { self == .passive ? .active : .passive }
}

/// Which end of DTLS we play once the answer is sent.
public enum DTLSRole: Sendable {
    /// We accept the ClientHello (answer `a=setup:passive`).
    case server
    /// We send the ClientHello (answer `a=setup:active`, for offers that say `passive`).
    case client
}
