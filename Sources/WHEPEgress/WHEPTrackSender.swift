import CodecFormats
import MediaCore
import WebRTCWire

/// RFC 3550 §5.1/§6.4.1, RFC 6184 and RFC 7587 sender side of one stream track, shared by every viewer: frames
/// become RTP once (one SSRC, one sequence space), are kept for NACKs, and anchor the sender reports.
///
/// Payload types differ per viewer (each offer numbers its codecs), so packets carry `placeholderPayloadType` and
/// each viewer stamps its own before SRTP.
struct WHEPTrackSender: Sendable {
    /// Payload type in the shared packets; `WHEPViewer` overwrites it.
    static let placeholderPayloadType: UInt8 = 96

    let kind: MediaKind
    let ssrc: UInt32
    let clockRate: Int64
    /// RTP timestamp = this + presentation time at the clock rate (random start, RFC 3550 §5.1).
    private(set) var timestampOffset: UInt32
    /// Set after the publisher left: the next frame's timestamp continues the old timeline by the wall time between.
    private var rebase = false
    private var packetizer: H264Packetizer
    /// The next packet's sequence number.
    private(set) var sequence: UInt16
    private(set) var history: RTPSendHistory
    /// Where the RTP clock stood against the wall clock at the last frame sent.
    private var anchor: (wall: WallTime, rtp: UInt32)?
    /// The last frame's RTP timestamp.
    var lastTimestamp: UInt32? { anchor?.rtp }
    private(set) var packets: UInt32 = 0
    private(set) var octets: UInt32 = 0
    /// Sequence number of the newest packet.
    private(set) var lastSequenceNumber: UInt16?
    /// SPS and PPS put in front of keyframes that lack them (a WebRTC receiver has no avcC).
    var parameterSets: [[UInt8]] = []

    init(kind: MediaKind, ssrc: UInt32, historyCapacity: Int, maxPayloadSize: Int) {
        var generator = SystemRandomNumberGenerator()
        self.kind = kind
        self.ssrc = ssrc
        clockRate = kind == .video ? 90_000 : 48_000
        timestampOffset = UInt32.random(in: 0...UInt32.max, using: &generator)
        sequence = UInt16.random(in: 0...UInt16.max, using: &generator)
        packetizer = H264Packetizer(
            maxPayloadSize: maxPayloadSize,
            payloadType: Self.placeholderPayloadType,
            ssrc: ssrc,
            sequenceNumber: sequence
        )
        history = RTPSendHistory(capacity: historyCapacity)
    }

    /// Takes SPS/PPS from an avcC for in-band repetition on keyframes.
    mutating func setDecoderConfiguration(_ avcC: [UInt8]) {
        guard let record = try? AVCDecoderConfigurationRecord(parsing: avcC) else { return }
        parameterSets = record.sequenceParameterSets + record.pictureParameterSets
    }

    /// One H.264 access unit (AVCC, no B-frames: the RTP timestamp is its presentation time) as serialized packets.
    mutating func packetize(video frame: MediaFrame, wall: WallTime) throws(WebRTCWireError) -> [[UInt8]] {
        var data = frame.data
        if frame.isKeyframe, !parameterSets.isEmpty {
            let types = Set(((try? H264.nalUnits(avcc: data)) ?? []).map { H264.nalType($0) })
            if !types.contains(7) || !types.contains(8) {
                data = parameterSets.flatMap { nal in Self.lengthPrefix(nal.count) + nal } + data
            }
        }
        let pts = UInt32(truncatingIfNeeded: frame.pts.converted(to: 90_000).value)
        if rebase { rebase(to: pts, wall: wall) }
        let timestamp = timestampOffset &+ pts
        let built = try packetizer.packetize(avcc: data, timestamp: timestamp)
        anchor = (wall, timestamp)
        return built.map { remember($0) }
    }

    /// One Opus frame (RFC 7587 §4.2: one frame per packet, 48 kHz timestamps).
    mutating func packetize(audio frame: MediaFrame, wall: WallTime) -> [[UInt8]] {
        let dts = UInt32(truncatingIfNeeded: frame.dts.converted(to: 48_000).value)
        if rebase { rebase(to: dts, wall: wall) }
        let timestamp = timestampOffset &+ dts
        let packet = RTPPacket(
            marker: packets == 0,
            payloadType: Self.placeholderPayloadType,
            sequenceNumber: sequence,
            timestamp: timestamp,
            ssrc: ssrc,
            payload: frame.data
        )
        sequence &+= 1
        anchor = (wall, timestamp)
        return [remember(packet)]
    }

    /// A new publishing session follows on the same SSRC: keep sequence numbers, continue timestamps.
    mutating func continueAfterGap() { rebase = anchor != nil }

    /// Moves the offset so `mediaTime` lands where the old timeline's clock stands at `wall` (RFC 3550 §5.1: the
    /// timestamp advances with the sampling clock, pauses included).
    private mutating func rebase(to mediaTime: UInt32, wall: WallTime) {
        rebase = false
        guard let anchor else { return }
        let elapsed = wall.duration(since: anchor.wall)
        let ticks = max(
            1,
            elapsed.components.seconds * clockRate + elapsed.components.attoseconds
                / (1_000_000_000_000_000_000 / clockRate)
        )
        timestampOffset = anchor.rtp &+ UInt32(truncatingIfNeeded: ticks) &- mediaTime
    }

    private mutating func remember(_ packet: RTPPacket) -> [UInt8] {
        let bytes = packet.serialized()
        history.store(sequenceNumber: packet.sequenceNumber, bytes: bytes)
        lastSequenceNumber = packet.sequenceNumber
        packets &+= 1
        octets &+= UInt32(truncatingIfNeeded: packet.payload.count)
        return bytes
    }

    /// RFC 3550 §6.4.1: the report tying `wall` to this track's RTP clock; nil before the first frame.
    func senderReport(at wall: WallTime) -> RTCPSenderReport? {
        guard let anchor else { return nil }
        let elapsed = wall.duration(since: anchor.wall)
        let ticks =
            elapsed.components.seconds * clockRate
            + elapsed.components.attoseconds / (1_000_000_000_000_000_000 / clockRate)
        return RTCPSenderReport(
            ssrc: ssrc,
            ntpTimestamp: RTCPSenderReport.ntpTimestamp(wall),
            rtpTimestamp: anchor.rtp &+ UInt32(truncatingIfNeeded: ticks),
            packetCount: packets,
            octetCount: octets
        )
    }

    static func lengthPrefix(_ count: Int) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: count >> 24), UInt8(truncatingIfNeeded: count >> 16),
            UInt8(truncatingIfNeeded: count >> 8), UInt8(truncatingIfNeeded: count),
        ]
    }
}
