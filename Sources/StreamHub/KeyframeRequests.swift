import MediaCore
import Synchronization

/// Who can make a stream's source send a keyframe now (RFC 4585 §6.3.1: WHIP ingest turns a request into a PLI or
/// FIR to the publisher). Consumers that need one — a WHEP viewer joining the passthrough, or its PLI — ask here
/// without knowing which protocol the stream came in by; sources that cannot (RTMP, files) never register.
public final class KeyframeRequests: Sendable {
    private let handlers = Mutex<[StreamKey: @Sendable () -> Void]>([:])

    /// An empty registry.
    public init() {}

    /// The publisher of `key` can be asked for keyframes by calling `handler` (which returns at once).
    public func register(key: StreamKey, _ handler: @escaping @Sendable () -> Void) {
        handlers.withLock { $0[key] = handler }
    }

    /// The publisher of `key` left.
    public func unregister(key: StreamKey) {
        handlers.withLock { _ = $0.removeValue(forKey: key) }
    }

    /// True when the source of `key` can be asked for a keyframe now.
    public func canRequest(key: StreamKey) -> Bool { handlers.withLock { $0[key] != nil } }

    /// Asks the source of `key` for a keyframe; false when it cannot be asked.
    @discardableResult
    public func request(key: StreamKey) -> Bool {
        guard let handler = handlers.withLock({ $0[key] }) else { return false }
        handler()
        return true
    }
}
