import MediaCore

/// RFC 7587 §4.2: each RTP payload is exactly one Opus packet; the timestamp counts 48 kHz samples whatever the
/// encoder's internal rate.
public struct OpusDepacketizer: Sendable {
    private var lastSequence: UInt16?

    /// Sequence numbers skipped so far (concealed by the decoder, counted for metrics).
    public private(set) var lostPackets = 0

    /// A depacketizer.
    public init() {}

    /// The Opus packet in `packet`, or nil for an empty (DTX/padding) or duplicate packet.
    public mutating func push(_ packet: RTPPacket) -> OpusFrame? {
        if let last = lastSequence {
            switch RTPSequenceNumber.step(from: last, to: packet.sequenceNumber) {
            case .next, .restart: break
            case .stale: return nil
            case .gap(let missing): lostPackets += missing
            }
        }
        lastSequence = packet.sequenceNumber
        guard !packet.payload.isEmpty else { return nil }
        return OpusFrame(timestamp: packet.timestamp, data: packet.payload)
    }
}

/// One Opus packet with its 48 kHz RTP timestamp.
public struct OpusFrame: Equatable, Sendable {
    /// RTP timestamp (48 kHz, wraps).
    public var timestamp: UInt32
    /// The Opus packet (RFC 6716 §3), TOC byte first.
    public var data: [UInt8]

    /// A frame.
    public init(timestamp: UInt32, data: [UInt8]) {
        self.timestamp = timestamp
        self.data = data
    }

    /// RFC 6716 §3.1: samples at 48 kHz this packet decodes to, from its TOC byte and frame count (nil if malformed).
    public var sampleCount: Int? {
        guard let toc = data.first else { return nil }
        let config = Int(toc >> 3)
        let frameSamples: Int =
            switch config {
            case 0...11: [480, 960, 1920, 2880][config % 4]  // SILK: 10, 20, 40, 60 ms.
            case 12...15: [480, 960][config % 2]  // Hybrid: 10, 20 ms.
            default: [120, 240, 480, 960][config % 4]  // CELT: 2.5, 5, 10, 20 ms.
            }
        switch toc & 0x03 {
        case 0: return frameSamples
        case 1, 2: return 2 * frameSamples
        default:
            guard data.count >= 2 else { return nil }
            return Int(data[1] & 0x3F) * frameSamples
        }
    }

    /// The frame for the hub at decode time `dts` (every Opus packet is a sync point).
    public func mediaFrame(dts: MediaTime, stamps: HopStamps = HopStamps()) -> MediaFrame {
        MediaFrame(kind: .audio, dts: dts, isKeyframe: true, data: data, stamps: stamps)
    }
}
