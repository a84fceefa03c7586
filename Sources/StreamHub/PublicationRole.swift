/// Where a publication's frames come from, so the hub counts ingest once for every protocol.
public enum PublicationRole: Sendable, Equatable {
    /// From outside the gateway (RTMP, WHIP, SRT next): each frame reaches the hub's `onIngest`.
    case ingest
    /// Made inside the gateway (ladder rungs, the demo stream): not ingest.
    case derived
}
