import LLHLSPackager

/// Recording settings (documented in Config/sluice.yaml under `record:`).
public struct RecorderConfiguration: Sendable, Equatable {
    /// Record every stream as it is published.
    public var enabled = false
    /// Where recordings go: `{directory}/{key}/{recording}/…`.
    public var directory = "recordings"
    /// Renditions kept (`video`, `audio`, rung names such as `480p`); empty keeps every one.
    public var renditions: Set<String> = ["video", "audio"]
    /// Recordings older than this (by their first sample) are removed; nil keeps them.
    public var maxAge: Duration?
    /// Total bytes over every recording beyond which the oldest are removed; nil: no limit. The recording being
    /// written is never removed.
    public var maxBytes: Int?
    /// Segments waiting for the disk before the oldest is dropped (each drop is counted and logged).
    public var queueCapacity = 4096

    /// Defaults (recording off).
    public init() {}

    /// Whether `rendition` is recorded.
    public func records(_ rendition: String) -> Bool { renditions.isEmpty || renditions.contains(rendition) }

    /// Whether `rendition` is kept while `sourceRendition` is what the multivariant lists for the source's video:
    /// `video` then means that rung, and an unlisted passthrough is never kept (its playlist would be an orphan).
    public func records(_ rendition: String, sourceRendition: String) -> Bool {
        if rendition == "video", sourceRendition != "video" { return false }
        return records(rendition) || (rendition == sourceRendition && records("video"))
    }

    /// Whether a packaged segment is kept (see `records(_:sourceRendition:)`).
    public func records(_ segment: PackagedSegment) -> Bool {
        records(segment.rendition, sourceRendition: segment.sourceRendition)
    }
}
