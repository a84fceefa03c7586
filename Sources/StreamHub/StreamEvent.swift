import MediaCore

/// What a reader of a stream receives, in publish order.
public enum StreamEvent: Sendable {
    /// The stream's tracks; sent first, and again whenever codec parameters change.
    case description(StreamDescription)
    /// One access unit.
    case frame(MediaFrame)
    /// The publisher left; no more events follow for this publication.
    case ended
}

/// Why the hub refused a request.
public enum StreamHubError: Error, Equatable, Sendable {
    /// Someone already publishes on this key.
    case alreadyPublishing(StreamKey)
    /// The key already has a backup publisher standing by (or on air).
    case backupTaken(StreamKey)
    /// The hub holds `limit` live streams already.
    case tooManyStreams(limit: Int)
}

/// A change in the set of live streams.
public struct HubAnnouncement: Sendable {
    /// The stream that went live.
    public let key: StreamKey
    /// Identifies this publishing session (changes on every reconnect).
    public let sessionID: String
    /// Where the publisher came from, e.g. `rtmp://203.0.113.7:50122`.
    public let origin: String
    /// For a watcher that asked for one (`StreamHub.announcements(attaching:)`): a reader attached before the
    /// publisher could send anything, so a publication that ends before the watcher gets to it is still read whole.
    public var reader: StreamReader? = nil
}
