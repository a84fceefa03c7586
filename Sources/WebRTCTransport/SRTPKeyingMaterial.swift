import WebRTCWire

/// RFC 5764 §4.1.2 / RFC 7714 §14.2: the SRTP protection profiles negotiated through DTLS `use_srtp`.
public enum SRTPProfile: UInt16, Sendable, Hashable {
    /// AES-128 counter mode, HMAC-SHA1 80-bit tag: every WebRTC peer supports it.
    case aes128CmHmacSha1_80 = 0x0001
    /// AES-128 GCM, 16-byte tag.
    case aeadAes128Gcm = 0x0007

    /// Master key length in bytes.
    public var keyLength: Int { 16 }
    /// Master salt length in bytes (RFC 3711 §8.2: 112 bits; RFC 7714 §12: 96 bits).
    public var saltLength: Int {
        switch self {
        case .aes128CmHmacSha1_80: 14
        case .aeadAes128Gcm: 12
        }
    }
}

/// One direction's SRTP master key and salt.
public struct SRTPKey: Sendable, Hashable {
    public let key: [UInt8]
    public let salt: [UInt8]

    public init(key: [UInt8], salt: [UInt8]) {
        self.key = key
        self.salt = salt
    }
}

/// RFC 5764 §4.2: keys exported with label "EXTRACTOR-dtls_srtp", split into client and server halves.
public struct SRTPKeyingMaterial: Sendable, Hashable {
    /// RFC 5705 exporter label for DTLS-SRTP.
    public static let exporterLabel = "EXTRACTOR-dtls_srtp"

    public let profile: SRTPProfile
    /// Keys the DTLS client protects its SRTP with.
    public let client: SRTPKey
    /// Keys the DTLS server protects its SRTP with.
    public let server: SRTPKey
    /// Our DTLS role, which says which half is ours.
    public let localRole: DTLSRole

    /// Bytes to export for `profile`: two keys and two salts.
    static func exportLength(for profile: SRTPProfile) -> Int { 2 * (profile.keyLength + profile.saltLength) }

    /// Splits exported bytes laid out client_key | server_key | client_salt | server_salt.
    init(profile: SRTPProfile, exported: [UInt8], localRole: DTLSRole) {
        let k = profile.keyLength
        let s = profile.saltLength
        precondition(exported.count == 2 * (k + s), "exporter length")
        self.profile = profile
        self.client = SRTPKey(key: Array(exported[0..<k]), salt: Array(exported[(2 * k)..<(2 * k + s)]))
        self.server = SRTPKey(key: Array(exported[k..<(2 * k)]), salt: Array(exported[(2 * k + s)..<(2 * k + 2 * s)]))
        self.localRole = localRole
    }

    /// The half we protect outgoing packets with.
    public var local: SRTPKey { localRole == .client ? client : server }
    /// The half the peer protects with, so the one we unprotect with.
    public var remote: SRTPKey { localRole == .client ? server : client }
}
