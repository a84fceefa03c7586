import MediaCore

/// The three stream id forms encoders send, read into the stream key to publish and its credential.
///
/// - SRT Access Control guidelines (Haivision/srt docs/features/access-control.md): `#!::r=live/KEY,m=publish,
///   u=USER,s=SESSION[,t=stream][,h=HOST]`; `m` defaults to `request` when absent; unknown keys are ignored.
/// - MediaMTX: `publish:live/KEY[:user:pass]` (`read:` is play).
/// - A bare `live/KEY` (or `KEY`): publish.
///
/// The credential is what PublishAuth compares and verifies: the resource's `?query` if it has one (signed keys:
/// `r=live/cam1?exp=…&sig=…`), else `s=` (access control) or the password (MediaMTX).
public struct SRTStreamID: Sendable, Equatable {
    /// The hub stream key.
    public var key: StreamKey
    /// The credential presented with the key, nil when none.
    public var credential: String?
    /// `u=` or the MediaMTX user, for logs.
    public var user: String?
    /// `role=backup`: the caller is the key's hot standby (`role=primary`, the default, is the main publisher).
    public var backup = false

    /// SRTO_STREAMID's limit.
    public static let maximumLength = 512

    /// Creates a parsed id.
    public init(key: StreamKey, credential: String? = nil, user: String? = nil) {
        self.key = key
        self.credential = credential
        self.user = user
    }

    /// Parses a caller's stream id; throws why it cannot publish.
    public init(parsing text: String) throws(SRTWireError) {
        guard !text.isEmpty else { throw .emptyStreamID }
        guard text.count <= Self.maximumLength else { throw .streamIDTooLong(length: text.count) }
        if text.hasPrefix("#!::") {
            self = try Self.accessControl(String(text.dropFirst(4)))
        } else if text.hasPrefix("publish:") || text.hasPrefix("read:") {
            self = try Self.mediaMTX(text)
        } else {
            self = try Self.resource(text, credential: nil, user: nil)
        }
    }

    /// `key=value` items separated by commas; the value runs to the next comma (it may hold `=`).
    private static func accessControl(_ body: String) throws(SRTWireError) -> SRTStreamID {
        var items: [String: String] = [:]
        for item in body.split(separator: ",", omittingEmptySubsequences: false) {
            guard let eq = item.firstIndex(of: "="), eq != item.startIndex else { throw .malformedItem(String(item)) }
            let key = String(item[..<eq])
            guard items[key] == nil else { throw .duplicateKey(key) }
            items[key] = String(item[item.index(after: eq)...])
        }
        let mode = items["m"] ?? "request"
        guard mode == "publish" else { throw .unsupportedMode(items["m"] == nil ? "request (the default)" : mode) }
        if let type = items["t"], type != "stream" { throw .unsupportedType(type) }
        guard let r = items["r"], !r.isEmpty else { throw .missingResource }
        var id = try resource(r, credential: items["s"].flatMap { $0.isEmpty ? nil : $0 }, user: items["u"])
        switch items["role"] {
        case nil, "primary": break
        case "backup": id.backup = true
        case let role?: throw .unsupportedRole(role)
        }
        return id
    }

    /// `publish:PATH[:USER:PASS]`; `read:` is play.
    private static func mediaMTX(_ text: String) throws(SRTWireError) -> SRTStreamID {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts[0] == "publish" else { throw .unsupportedMode(parts[0]) }
        guard parts.count == 2 || parts.count == 4 else { throw .malformedItem(text) }
        guard !parts[1].isEmpty else { throw .missingResource }
        let user = parts.count == 4 ? parts[2] : nil
        let pass = parts.count == 4 && !parts[3].isEmpty ? parts[3] : nil
        return try resource(parts[1], credential: pass, user: user)
    }

    /// `live/KEY[?query]` or `KEY[?query]`: the query, when present, is the credential.
    private static func resource(_ r: String, credential: String?, user: String?) throws(SRTWireError) -> SRTStreamID {
        var path = Substring(r)
        var credential = credential
        if let q = path.firstIndex(of: "?") {
            let query = path[path.index(after: q)...]
            if !query.isEmpty { credential = String(query) }
            path = path[..<q]
        }
        if path.hasPrefix("live/") { path = path.dropFirst(5) }
        guard !path.isEmpty else { throw .missingResource }
        guard let key = StreamKey(String(path)) else { throw .invalidResource(r) }
        return SRTStreamID(key: key, credential: credential, user: user.flatMap { $0.isEmpty ? nil : $0 })
    }
}
