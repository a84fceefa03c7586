import WebRTCWire

/// RFC 9725 §4.2 server choices for every WHIP session: which host candidates to announce, how long media waits for
/// a repair, and how many sessions the port carries.
public struct WHIPIngestConfiguration: Sendable {
    /// IP addresses announced as extra host candidates on the bound port, after the bound ones (a public IP in front
    /// of a 1:1 NAT, a container host's address); the transport still binds only its configured hosts.
    public var additionalHosts: [String] = []
    /// Longest a packet waits behind a gap for its retransmission before the gap is given up (both tracks).
    public var reorderWait: Duration = .milliseconds(150)
    /// Most WHIP sessions at once (0: no limit beyond the hub's stream limit); one more POST answers 503.
    public var maxSessions: Int = 0
    /// Largest SDP offer read, in bytes; a bigger one answers 413 before anything is parsed.
    public var maxOfferBytes: Int = SessionDescription.defaultSizeLimit
    /// How often each session's pipeline gives up gaps, re-sends NACKs and reports.
    public var tickInterval: Duration = .milliseconds(20)
    /// Longest a publisher goes without an IDR before a PLI/FIR asks for one (nil: 2 s; the gateway uses its HLS
    /// segment target so every segment can start on an IDR).
    public var keyframeInterval: Duration?
    /// The bitrate REMB offers publishers that negotiated `goog-remb`, in bits per second (0: send no REMB).
    public var maxBitrate: UInt64 = 2_500_000
    /// How often a session adds its receive counters to telemetry.
    public var metricsInterval: Duration = .milliseconds(250)

    /// The defaults.
    public init() {}

    /// The candidates an answer lists: `bound` first, then each additional host on the bound port, without repeats.
    public func candidates(bound: [TransportAddress]) -> [TransportAddress] {
        guard let port = bound.first?.port else { return bound }
        var out = bound
        for host in additionalHosts {
            guard let ip = TransportAddress.parseIP(host), let address = TransportAddress(ip: ip, port: port),
                !out.contains(address)
            else { continue }
            out.append(address)
        }
        return out
    }
}
