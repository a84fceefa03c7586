import CodecFormats
import MediaCore
import WebRTCWire

/// RFC 3550 §A.1 and RFC 6184 §5.6–5.8, receive side of the bench's WHEP viewer: decrypted RTP in arrival order →
/// reordered → H.264 access units (STAP-A, FU-A, single NAL) → each complete frame with its SEI capture clock.
///
/// A frame is complete when the packet that finishes it (the marker, or the next timestamp) arrived: what a browser
/// could hand its decoder at the earliest, so capture → complete is glass-to-glass before decode and display.
struct WHEPVideoReceiver: Sendable {
    /// One complete access unit.
    struct Frame: Sendable, Equatable {
        /// The publisher's capture clock from the SEI; nil when the frame carried none.
        var capture: WallTime?
        /// When the packet that completed it arrived.
        var completed: WallTime
        /// RTP timestamp (90 kHz).
        var timestamp: UInt32
        var isKeyframe: Bool
        /// Access unit size in bytes (AVCC).
        var bytes: Int
    }

    /// What one call produced.
    struct Output: Sendable, Equatable {
        var frames: [Frame] = []
        /// The depacketizer cannot go on without an IDR (first join, loss, corrupt payload).
        var needsKeyframe = false
    }

    /// The payload type the server chose for H.264; packets of any other type are not video.
    let payloadType: UInt8
    private var reorder: RTPReorderBuffer
    private var depacketizer = H264Depacketizer()
    private var statistics: RTPReceiverStatistics?
    /// RTP packets of `payloadType` received (duplicates included) and given up as lost by the reorder buffer.
    private(set) var packetsReceived = 0
    private(set) var packetsLost = 0
    /// Packets that failed to parse.
    private(set) var malformed = 0

    /// A receiver for `payloadType`; gaps wait `maxWait` for late packets before they count as lost.
    init(payloadType: UInt8, maxWait: Duration = .milliseconds(100)) {
        self.payloadType = payloadType
        reorder = RTPReorderBuffer(configuration: .init(capacity: 1_024, maxWait: maxWait))
    }

    /// Packets the sender says it sent minus those that came (RFC 3550 §6.4.1 cumulative lost), once any arrived.
    var cumulativeLost: Int64 { statistics?.cumulativeLost ?? 0 }

    /// Takes one decrypted RTP packet that arrived at `arrival` (`now` on the monotonic clock).
    mutating func receive(_ bytes: [UInt8], arrival: WallTime, now: ContinuousClock.Instant) -> Output {
        guard let packet = try? RTPPacket(parsing: bytes) else {
            malformed += 1
            return Output()
        }
        guard packet.payloadType == payloadType else { return Output() }
        packetsReceived += 1
        if statistics?.ssrc != packet.ssrc { statistics = RTPReceiverStatistics(ssrc: packet.ssrc, clockRate: 90_000) }
        statistics?.record(packet, arrival: now)
        return depacketize(reorder.insert(packet, now: now), completed: arrival)
    }

    /// Gives up on gaps older than `maxWait` (call on a timer: a lost last packet must not hold every later frame).
    mutating func expire(now: ContinuousClock.Instant, wall: WallTime) -> Output {
        depacketize(reorder.expire(now: now), completed: wall)
    }

    private mutating func depacketize(_ released: RTPReorderBuffer.Output, completed: WallTime) -> Output {
        packetsLost += released.lost.count
        var output = Output()
        for packet in released.released {
            for action in depacketizer.push(packet) {
                switch action {
                case .accessUnit(let unit):
                    output.frames.append(
                        Frame(
                            capture: CaptureTimeSEI.captureTime(inAVCC: unit.data),
                            completed: completed,
                            timestamp: unit.timestamp,
                            isKeyframe: unit.isKeyframe,
                            bytes: unit.data.count
                        )
                    )
                case .needsKeyframe:
                    output.needsKeyframe = true
                }
            }
        }
        return output
    }
}
