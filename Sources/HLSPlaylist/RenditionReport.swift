/// EXT-X-RENDITION-REPORT (RFC 8216bis §4.4.5.4): where another rendition's live edge is.
public struct RenditionReport: Sendable, Equatable {
    /// URI of the other media playlist, relative to this one.
    public var uri: String
    /// MSN of its last segment, or of its last part's parent.
    public var lastMSN: Int
    /// Index of its last part, when it has parts.
    public var lastPart: Int?

    /// Creates a report.
    public init(uri: String, lastMSN: Int, lastPart: Int?) {
        self.uri = uri
        self.lastMSN = lastMSN
        self.lastPart = lastPart
    }

    /// The tag line.
    public func render() -> String {
        var line = "#EXT-X-RENDITION-REPORT:URI=\(quoted(uri)),LAST-MSN=\(lastMSN)"
        if let p = lastPart { line += ",LAST-PART=\(p)" }
        return line
    }
}
