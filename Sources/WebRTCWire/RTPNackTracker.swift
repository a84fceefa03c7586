/// RFC 4585 §6.2.1 and §3.5.1: which missing sequence numbers to (re)request with a generic NACK, how often, and for
/// how long; a value the caller drives with instants so it stays clock-free.
public struct RTPNackTracker: Sendable {
    /// Retry policy.
    public struct Configuration: Sendable {
        /// Wait before asking again for the same packet (about one round trip).
        public var retryInterval: Duration = .milliseconds(40)
        /// Requests per packet before giving up.
        public var maxRequests: Int = 4
        /// Most sequence numbers tracked at once (the oldest are dropped beyond it).
        public var capacity: Int = 256

        /// Defaults: 40 ms between requests, 4 requests, 256 tracked.
        public init(retryInterval: Duration = .milliseconds(40), maxRequests: Int = 4, capacity: Int = 256) {
            self.retryInterval = retryInterval
            self.maxRequests = max(1, maxRequests)
            self.capacity = max(1, capacity)
        }
    }

    private struct Entry {
        var requests: Int
        var lastRequest: ContinuousClock.Instant?
    }

    private let configuration: Configuration
    private var entries: [UInt16: Entry] = [:]
    private var order: [UInt16] = []

    /// Requests sent so far (for metrics).
    public private(set) var requestsSent = 0

    /// An empty tracker.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Sequence numbers still awaited.
    public var pending: [UInt16] { order }

    /// Starts tracking `sequences` (from `RTPReorderBuffer.Output.missing`).
    public mutating func markMissing(_ sequences: [UInt16]) {
        for sequence in sequences where entries[sequence] == nil {
            entries[sequence] = Entry(requests: 0, lastRequest: nil)
            order.append(sequence)
        }
        while order.count > configuration.capacity { entries[order.removeFirst()] = nil }
    }

    /// Stops tracking a sequence number that arrived (or was given up by the reorder buffer).
    public mutating func resolve(_ sequence: UInt16) {
        guard entries.removeValue(forKey: sequence) != nil else { return }
        order.removeAll { $0 == sequence }
    }

    /// The sequence numbers to NACK at `now`: never asked, or asked `retryInterval` ago; exhausted ones are dropped.
    public mutating func due(now: ContinuousClock.Instant) -> [UInt16] {
        var result: [UInt16] = []
        for sequence in order {
            guard var entry = entries[sequence] else { continue }
            if let last = entry.lastRequest, last.duration(to: now) < configuration.retryInterval { continue }
            entry.requests += 1
            entry.lastRequest = now
            entries[sequence] = entry
            result.append(sequence)
        }
        requestsSent += result.count
        let exhausted = Set(order.filter { (entries[$0]?.requests ?? 0) >= configuration.maxRequests })
        if !exhausted.isEmpty {
            order.removeAll { exhausted.contains($0) }
            for sequence in exhausted { entries[sequence] = nil }
        }
        return result
    }
}
