/// SRT ingest settings (`srt.*` in Config/sluice.yaml); each default is the documented one.
public struct SRTIngestConfiguration: Sendable, Equatable {
    /// UDP port of the listener (`srt.port`); 0 turns SRT ingest off.
    public var port: Int = 8890
    /// Receive latency window (`srt.latency_ms`): how long libsrt may wait for a retransmission. SRT's default;
    /// the usual advice is 4 × RTT. Caller and listener settle on the larger of their two values.
    public var latency: Duration = .milliseconds(120)
    /// AES passphrase callers must present (`srt.passphrase`, 10–79 characters); nil accepts unencrypted callers.
    public var passphrase: String?
    /// AES key length in bytes with a passphrase (`srt.key_length`): 16 (AES-128), 24 or 32 (AES-256).
    public var keyLength: Int = 16
    /// Most SRT publishers at once (`srt.max_sessions`); more are refused at the handshake.
    public var maxSessions: Int = 64
    /// How often each session's libsrt statistics go to `/metrics`.
    public var statsInterval: Duration = .seconds(1)

    /// The defaults.
    public init() {}

    /// libsrt's passphrase bounds (SRTO_PASSPHRASE).
    public static let passphraseLengths = 10...79
}
