import MediaCore

/// One publish attempt to authorize: the stream key, the credential presented with it, and how it arrived.
public struct PublishAuthRequest: Sendable, Equatable {
    /// The stream key the publisher will occupy.
    public var key: StreamKey
    /// What came with the key: an RTMP name's query (`cam1?s3cret` gives `s3cret`), a WHIP bearer token;
    /// nil when none was sent.
    public var credential: String?
    /// The peer's IP address, nil when unknown.
    public var peerIP: String?
    /// The protocol the publisher used.
    public var transport: PublishTransport

    /// Creates a request.
    public init(key: StreamKey, credential: String?, peerIP: String?, transport: PublishTransport) {
        self.key = key
        self.credential = credential
        self.peerIP = peerIP
        self.transport = transport
    }

    /// Key and credential as one name, `cam1` or `cam1?s3cret`: the form of `auth.publish.keys` entries and the
    /// webhook's `name` field (docs/AUTH.md), whatever the transport.
    public var presentedName: String { credential.map { "\(key.rawValue)?\($0)" } ?? key.rawValue }
}
