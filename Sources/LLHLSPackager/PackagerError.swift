import MediaCore

/// Why the packager refused a request or a stream (one error type for the module).
public enum PackagerError: Error, Equatable, Sendable {
    /// A `_HLS_*` query parameter was malformed or illegal, e.g. `_HLS_part` without `_HLS_msn`.
    case badDirective(String)
    /// No live or recently ended stream has this key.
    case unknownStream(StreamKey)
    /// A media URI that names nothing this stream has or hints.
    case unknownResource(String)
}
