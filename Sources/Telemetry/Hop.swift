/// A stretch of a frame's trip through the gateway whose latency is measured (DESIGN.md "Latency model").
public enum Hop: String, CaseIterable, Sendable, Codable, Comparable {
    /// First byte of the frame received → frame parsed and handed to the hub.
    case ingest
    /// Source access unit handed to the decoder → its picture out of the decoder (ladder only).
    case decode
    /// Decoded picture handed to a rung → its encoded packet out of x264 (per rung).
    case encode
    /// Frame in at the packager (ingested, or encoded for a rung) → the part holding it published.
    case package
    /// Part published → the first HTTP response carrying it written (once per part).
    case deliver
    /// Publisher capture wall clock → viewer has the frame (measured by the bench viewer, not the gateway).
    case glass
    /// Publisher capture wall clock (SEI) → the part holding the frame published: when it becomes downloadable.
    case available

    /// Order of the pipeline, for tables.
    public static func < (lhs: Hop, rhs: Hop) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// What kind of resource an HTTP request asked for, the `kind` label of `sluice_http_requests_total`.
public enum HTTPRequestKind: String, CaseIterable, Sendable {
    /// A media playlist request carrying `_HLS_msn` (blocking reload).
    case playlistBlocking = "playlist-blocking"
    /// A media playlist request without delivery directives.
    case playlist
    /// The multivariant playlist (`index.m3u8`).
    case multivariant
    /// An LL-HLS part (`MSN.PART.m4s`).
    case part
    /// A whole segment (`MSN.m4s`).
    case segment
    /// An init section (`init-N.mp4`).
    case initSection = "init"
    /// Anything else (`/healthz`, `/metrics`, pages, unknown paths).
    case other
}
