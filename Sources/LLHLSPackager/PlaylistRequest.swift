/// The delivery directives of a playlist request (RFC 8216bis §6.2.5): `_HLS_msn`, `_HLS_part`, `_HLS_skip`.
public struct PlaylistRequest: Sendable, Hashable {
    /// Block until this MSN (and part) is available.
    public var msn: Int?
    /// With `msn`, block until this part of it is available.
    public var part: Int?
    /// `_HLS_skip=YES` or `v2`: answer with a delta update.
    public var skip: Bool
    /// Sent by an HTML media element (`<video src=…m3u8>`), not by a script: set by the HTTP layer from its headers.
    public var fromMediaElement = false
    /// The client's address, which tells a media element's reload from its first load (set by the HTTP layer).
    public var client: String?
    /// A plain request held until this segment is complete (`LLHLSStreamState.pinningStartupHold`); fixed on arrival.
    var heldUntilSegment: Int?

    /// Creates a request.
    public init(msn: Int? = nil, part: Int? = nil, skip: Bool = false) {
        self.msn = msn
        self.part = part
        self.skip = skip
    }

    /// True when the request asks to block.
    public var isBlocking: Bool { msn != nil }

    /// True when a raw query (`a=1&_HLS_msn=5`) asks to block, before its directives are read: the one test the
    /// origin's routing and its telemetry share (a malformed value still counts; it gets its 400 from `init(query:)`).
    public static func asksToBlock(query: some StringProtocol) -> Bool {
        query.utf8.split(separator: UInt8(ascii: "&")).contains { $0.starts(with: "_HLS_msn=".utf8) }
    }

    /// A media element's plain load not pinned yet: the only kind `LLHLSStreamState.pinningStartupHold` may hold.
    var mayBeHeldAtStartup: Bool { fromMediaElement && msn == nil && heldUntilSegment == nil }

    /// Parses directives from query items; unknown parameters are ignored, order does not matter (B7).
    public init(query: [(String, String)]) throws(PackagerError) {
        var msn: Int?
        var part: Int?
        var skip = false
        for (name, value) in query {
            switch name {
            case "_HLS_msn":
                guard let v = Int(value), v >= 0 else {
                    throw .badDirective("_HLS_msn must be a non-negative integer, got '\(value)'")
                }
                msn = v
            case "_HLS_part":
                guard let v = Int(value), v >= 0 else {
                    throw .badDirective("_HLS_part must be a non-negative integer, got '\(value)'")
                }
                part = v
            case "_HLS_skip":
                guard value == "YES" || value == "v2" else {
                    throw .badDirective("_HLS_skip must be YES or v2, got '\(value)'")
                }
                skip = true
            default:
                continue
            }
        }
        // B3: _HLS_part without _HLS_msn is a client error (MUST 400).
        if part != nil && msn == nil { throw .badDirective("_HLS_part requires _HLS_msn") }
        self.init(msn: msn, part: part, skip: skip)
    }
}
