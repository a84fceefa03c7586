/// RFC 3550 §A.1 and RFC 4585 §6.2.1: a jitter/reorder buffer that releases packets in sequence order, waits a bounded
/// time or count for gaps, and reports which sequence numbers to NACK and which it gave up on.
public struct RTPReorderBuffer: Sendable {
    /// Bounds on what the buffer holds back.
    public struct Configuration: Sendable {
        /// Most packets held behind a gap before the gap is given up.
        public var capacity: Int = 512
        /// Longest a packet waits behind a gap before the gap is given up.
        public var maxWait: Duration = .milliseconds(150)
        /// A jump further than this (either way) is a sender restart, not reordering: the buffer resynchronizes.
        public var resyncDistance: Int = 3_000

        /// Defaults: 512 packets, 150 ms.
        public init(capacity: Int = 512, maxWait: Duration = .milliseconds(150)) {
            self.capacity = max(1, capacity)
            self.maxWait = maxWait
        }
    }

    /// What one call produced.
    public struct Output: Equatable, Sendable {
        /// Packets now in order, oldest first.
        public var released: [RTPPacket] = []
        /// Sequence numbers newly found missing (send a generic NACK for these).
        public var missing: [UInt16] = []
        /// Sequence numbers given up on (count them as lost; the depacketizer sees the jump).
        public var lost: [UInt16] = []
        /// True when the packet was a duplicate or arrived after its gap was given up.
        public var discarded = false
    }

    private let configuration: Configuration
    private var unwrapper = RTPSequenceUnwrapper()
    private var nextExpected: Int64?
    private var highest: Int64 = 0
    private var held: [Int64: (packet: RTPPacket, arrival: ContinuousClock.Instant)] = [:]

    /// An empty buffer.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Packets currently held behind a gap.
    public var heldCount: Int { held.count }

    /// Sequence numbers between the next expected and the newest held packet that have not arrived (for re-NACKing).
    public var outstanding: [UInt16] {
        guard let nextExpected, !held.isEmpty else { return [] }
        return (nextExpected..<highest).filter { held[$0] == nil }.map { UInt16(truncatingIfNeeded: $0) }
    }

    /// Adds a packet that arrived at `now`.
    public mutating func insert(_ packet: RTPPacket, now: ContinuousClock.Instant) -> Output {
        var output = Output()
        let sequence = unwrapper.unwrap(packet.sequenceNumber)
        if let expected = nextExpected, abs(sequence - expected) > Int64(configuration.resyncDistance) {
            // The sender restarted its sequence: hand over what is held and start again here.
            releaseAll(into: &output)
            nextExpected = nil
        }
        guard let expected = nextExpected else {
            nextExpected = sequence + 1
            highest = sequence
            output.released.append(packet)
            return output
        }
        guard sequence >= expected, held[sequence] == nil else {
            output.discarded = true
            return output
        }
        if sequence > highest {
            output.missing = (max(highest + 1, expected)..<sequence).map { UInt16(truncatingIfNeeded: $0) }
            highest = sequence
        }
        held[sequence] = (packet, now)
        drain(into: &output)
        enforceBounds(now: now, into: &output)
        return output
    }

    /// Gives up on gaps whose oldest waiting packet is older than `maxWait` at `now` (call on a timer tick).
    public mutating func expire(now: ContinuousClock.Instant) -> Output {
        var output = Output()
        enforceBounds(now: now, into: &output)
        return output
    }

    private mutating func drain(into output: inout Output) {
        guard var next = nextExpected else { return }
        while let entry = held.removeValue(forKey: next) {
            output.released.append(entry.packet)
            next += 1
        }
        nextExpected = next
    }

    private mutating func enforceBounds(now: ContinuousClock.Instant, into output: inout Output) {
        while let oldest = held.keys.min(), let next = nextExpected {
            let waited = held[oldest].map { $0.arrival.duration(to: now) } ?? .zero
            guard held.count > configuration.capacity || waited >= configuration.maxWait else { return }
            output.lost += (next..<oldest).map { UInt16(truncatingIfNeeded: $0) }
            nextExpected = oldest
            drain(into: &output)
        }
    }

    private mutating func releaseAll(into output: inout Output) {
        for key in held.keys.sorted() {
            if let next = nextExpected, key > next {
                output.lost += (next..<key).map { UInt16(truncatingIfNeeded: $0) }
            }
            output.released.append(held[key]!.packet)
            nextExpected = key + 1
        }
        held.removeAll()
    }
}
