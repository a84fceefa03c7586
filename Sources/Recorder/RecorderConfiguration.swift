/// Recording settings (documented in Config/sluice.yaml under `record:`).
public struct RecorderConfiguration: Sendable, Equatable {
    /// Record every stream as it is published.
    public var enabled = false
    /// Where recordings go: `{directory}/{key}/{recording}/…`.
    public var directory = "recordings"
    /// Renditions kept (`video`, `audio`, rung names such as `480p`); empty keeps every one.
    public var renditions: Set<String> = ["video", "audio"]
    /// Segments waiting for the disk before the oldest is dropped (each drop is counted and logged).
    public var queueCapacity = 4096

    /// Defaults (recording off).
    public init() {}

    /// Whether `rendition` is recorded.
    public func records(_ rendition: String) -> Bool { renditions.isEmpty || renditions.contains(rendition) }
}
