/// RFC 4585 §3.5.1 sender side: the last packets of one SSRC kept by sequence number, to answer generic NACKs.
public struct RTPSendHistory: Sendable {
    private var slots: [(sequenceNumber: UInt16, bytes: [UInt8])?]

    /// Keeps the most recent `capacity` packets (at 30 fps and ~10 packets a frame, 1024 is over 3 s of video).
    public init(capacity: Int = 1024) { slots = Array(repeating: nil, count: max(1, capacity)) }

    /// Remembers a sent packet (plain RTP, before SRTP), replacing whatever held its slot.
    public mutating func store(sequenceNumber: UInt16, bytes: [UInt8]) {
        slots[Int(sequenceNumber) % slots.count] = (sequenceNumber, bytes)
    }

    /// The packet sent with `sequenceNumber`, if it is still remembered.
    public func packet(_ sequenceNumber: UInt16) -> [UInt8]? {
        guard let slot = slots[Int(sequenceNumber) % slots.count], slot.sequenceNumber == sequenceNumber else {
            return nil
        }
        return slot.bytes
    }
}
