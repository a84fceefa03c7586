/// Why an SRT caller's stream id was refused; each case says what to send instead (SRT Access Control guidelines).
public enum SRTWireError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No stream id at all: the gateway cannot tell which stream to publish.
    case emptyStreamID
    /// Longer than the 512 characters SRTO_STREAMID allows.
    case streamIDTooLong(length: Int)
    /// A `#!::` item without `key=value`.
    case malformedItem(String)
    /// A `#!::` key given twice.
    case duplicateKey(String)
    /// No resource name (`r=` or the path of the other forms).
    case missingResource
    /// The resource is not `live/<key>` (or a bare key), or the key has characters a stream key cannot have.
    case invalidResource(String)
    /// A mode other than publish: play (`request`) and `bidirectional` need SRT egress, which does not exist yet.
    case unsupportedMode(String)
    /// A `t=` type other than `stream` (file transfer, auth-only).
    case unsupportedType(String)
    /// A `role=` other than `primary` or `backup`.
    case unsupportedRole(String)

    public var description: String {
        switch self {
        case .emptyStreamID: "empty stream id: send streamid=#!::r=live/<key>,m=publish"
        case .streamIDTooLong(let n): "stream id of \(n) characters (at most 512)"
        case .malformedItem(let item): "stream id item '\(item)' is not key=value"
        case .duplicateKey(let key): "stream id key '\(key)' given twice"
        case .missingResource: "stream id names no resource: send r=live/<key>"
        case .invalidResource(let r): "resource '\(r)' is not live/<key> with a valid stream key"
        case .unsupportedMode(let m):
            "mode '\(m)' refused: only m=publish is served (SRT playback is not supported yet)"
        case .unsupportedType(let t): "type '\(t)' refused: only t=stream is served"
        case .unsupportedRole(let r): "role '\(r)' refused: send role=primary (the default) or role=backup"
        }
    }
}
