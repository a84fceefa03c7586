import CodecFormats
import MediaCore
import WebRTCWire

/// RFC 3550/4585/6184/7587 sender side: frames into RTP, RTCP feedback into repairs, sender reports on a timer.
///
/// A value that returns actions: the publisher feeds it paced frames, received RTCP and ticks, and sends what comes
/// back through SRTP. Video keyframes carry SPS/PPS in band (a WebRTC receiver has no avcC).
public struct WHIPMediaSender: Sendable {
    /// What the owner must do.
    public enum Action: Sendable, Equatable {
        /// Protect and send this RTP packet.
        case sendRTP([UInt8])
        /// Protect and send this RTCP compound packet.
        case sendRTCP([UInt8])
        /// Ask the source for a keyframe (the receiver sent PLI or FIR).
        case requestKeyframe
    }

    /// Fixed per session: SSRCs, payload types, random starting points (RFC 3550 §5.1) and timing policy.
    public struct Configuration: Sendable {
        public var videoSSRC: UInt32
        public var videoPayloadType: UInt8
        public var audioSSRC: UInt32
        /// Nil when audio was not negotiated.
        public var audioPayloadType: UInt8?
        public var cname: String
        /// First sequence numbers.
        public var videoSequence: UInt16
        public var audioSequence: UInt16
        /// Added to every RTP timestamp.
        public var videoTimestampOffset: UInt32
        public var audioTimestampOffset: UInt32
        /// Largest RTP payload (1200 leaves room for SRTP and IP/UDP under a 1280-byte path MTU).
        public var maxPayloadSize = 1_200
        /// Packets remembered per track for retransmission.
        public var historyCapacity = 1_024
        /// Sender report period (RFC 3550 §6.2; short so the ingest maps time within a second).
        public var reportInterval: Duration = .seconds(1)
        /// Forced IDRs at least this far apart: a PLI/FIR inside the window is deferred to its end (a keyframe sent
        /// meanwhile answers it), never dropped.
        public var forcedKeyframeSpacing: Duration = .milliseconds(300)

        /// A configuration with explicit starting points (tests); `random` draws them.
        public init(
            videoSSRC: UInt32,
            videoPayloadType: UInt8,
            audioSSRC: UInt32,
            audioPayloadType: UInt8?,
            cname: String,
            videoSequence: UInt16,
            audioSequence: UInt16,
            videoTimestampOffset: UInt32,
            audioTimestampOffset: UInt32
        ) {
            self.videoSSRC = videoSSRC
            self.videoPayloadType = videoPayloadType
            self.audioSSRC = audioSSRC
            self.audioPayloadType = audioPayloadType
            self.cname = cname
            self.videoSequence = videoSequence
            self.audioSequence = audioSequence
            self.videoTimestampOffset = videoTimestampOffset
            self.audioTimestampOffset = audioTimestampOffset
        }
    }

    /// Where one track's RTP clock stands against the wall clock, from the last frame sent.
    struct ClockAnchor: Sendable {
        var wall: WallTime
        var rtpTimestamp: UInt32
    }

    /// Per-track send state.
    struct Track: Sendable {
        let ssrc: UInt32
        let clockRate: Int64
        var history: RTPSendHistory
        var anchor: ClockAnchor?
        var packets: UInt32 = 0
        var octets: UInt32 = 0
    }

    public let configuration: Configuration
    var packetizer: H264Packetizer
    var audioSequence: UInt16
    var video: Track
    var audio: Track
    /// SPS and PPS to put in front of keyframes that lack them.
    let parameterSets: [[UInt8]]
    /// PLI/FIR into forced IDRs: at once, or deferred to the end of `forcedKeyframeSpacing`.
    var keyframePacer: KeyframeRequestPacer
    var lastReport: ContinuousClock.Instant?
    /// What was sent and repaired, for logs and the report.
    public internal(set) var counters = WHIPSenderCounters()

    /// A sender whose keyframes get `avcC`'s parameter sets in band.
    public init(configuration: Configuration, avcC: [UInt8]) throws(WHIPPublishError) {
        self.configuration = configuration
        packetizer = H264Packetizer(
            maxPayloadSize: configuration.maxPayloadSize,
            payloadType: configuration.videoPayloadType,
            ssrc: configuration.videoSSRC,
            sequenceNumber: configuration.videoSequence
        )
        audioSequence = configuration.audioSequence
        keyframePacer = KeyframeRequestPacer(interval: configuration.forcedKeyframeSpacing)
        video = Track(
            ssrc: configuration.videoSSRC,
            clockRate: 90_000,
            history: RTPSendHistory(capacity: configuration.historyCapacity)
        )
        audio = Track(ssrc: configuration.audioSSRC, clockRate: 48_000, history: RTPSendHistory(capacity: 256))
        do {
            let record = try AVCDecoderConfigurationRecord(parsing: avcC)
            parameterSets = record.sequenceParameterSets + record.pictureParameterSets
        } catch {
            throw .source("unusable H.264 configuration: \(error)")
        }
    }

    /// One video access unit (4-byte AVCC) released at `wall`: its RTP packets, timestamp = presentation time.
    public mutating func send(
        video frame: MediaFrame,
        now: ContinuousClock.Instant,
        wall: WallTime
    ) throws(WHIPPublishError)
        -> [Action]
    {
        var data = frame.data
        if frame.isKeyframe {
            let types: Set<UInt8>
            do {
                types = Set(try H264.nalUnits(avcc: data).map { H264.nalType($0) })
            } catch {
                throw .malformedVideo(dts: frame.dts, reason: "\(error)")
            }
            if !types.contains(7) || !types.contains(8) {
                data = parameterSets.flatMap { nal in Self.lengthPrefix(nal.count) + nal } + data
            }
            keyframePacer.keyframePassed()
            counters.keyframesSent += 1
        }
        var actions: [Action] = []
        if keyframePacer.tick(now: now) {
            counters.keyframesForced += 1
            actions.append(.requestKeyframe)
        }
        let pts = frame.pts.converted(to: 90_000).value
        let dts = frame.dts.converted(to: 90_000).value
        let timestamp = configuration.videoTimestampOffset &+ UInt32(truncatingIfNeeded: pts)
        let packets: [RTPPacket]
        do {
            packets = try packetizer.packetize(avcc: data, timestamp: timestamp)
        } catch {
            throw .malformedVideo(dts: frame.dts, reason: "\(error)")
        }
        video.anchor = ClockAnchor(
            wall: wall,
            rtpTimestamp: configuration.videoTimestampOffset &+ UInt32(truncatingIfNeeded: dts)
        )
        counters.videoFrames += 1
        return actions
            + packets.map { packet in
                let bytes = packet.serialized()
                video.history.store(sequenceNumber: packet.sequenceNumber, bytes: bytes)
                video.packets &+= 1
                video.octets &+= UInt32(truncatingIfNeeded: packet.payload.count)
                counters.videoPackets += 1
                return .sendRTP(bytes)
            }
    }

    /// One Opus frame (48 kHz timestamps) released at `wall`: one RTP packet (RFC 7587 §4.2); nothing when audio
    /// was not negotiated.
    public mutating func send(audio frame: MediaFrame, wall: WallTime) -> [Action] {
        guard let payloadType = configuration.audioPayloadType else { return [] }
        let timestamp =
            configuration.audioTimestampOffset &+ UInt32(truncatingIfNeeded: frame.dts.converted(to: 48_000).value)
        // RFC 7587 §4.1: the marker bit is only for the first packet after silence (the first one here).
        let packet = RTPPacket(
            marker: audio.packets == 0,
            payloadType: payloadType,
            sequenceNumber: audioSequence,
            timestamp: timestamp,
            ssrc: configuration.audioSSRC,
            payload: frame.data
        )
        audioSequence &+= 1
        let bytes = packet.serialized()
        audio.history.store(sequenceNumber: packet.sequenceNumber, bytes: bytes)
        audio.anchor = ClockAnchor(wall: wall, rtpTimestamp: timestamp)
        audio.packets &+= 1
        audio.octets &+= UInt32(truncatingIfNeeded: frame.data.count)
        counters.audioFrames += 1
        return [.sendRTP(bytes)]
    }

    static func lengthPrefix(_ count: Int) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: count >> 24), UInt8(truncatingIfNeeded: count >> 16),
            UInt8(truncatingIfNeeded: count >> 8), UInt8(truncatingIfNeeded: count),
        ]
    }
}

/// What a sender did, for logs and the publish report (NACKs answered show loss recovery).
public struct WHIPSenderCounters: Sendable, Hashable {
    public var videoFrames = 0
    public var audioFrames = 0
    public var videoPackets = 0
    public var keyframesSent = 0
    /// Sequence numbers the receiver NACKed.
    public var nackedPackets = 0
    /// Of those, resent from history.
    public var retransmittedPackets = 0
    /// PLI/FIR received.
    public var keyframeRequestsReceived = 0
    /// Requests passed to the source (one per `forcedKeyframeSpacing`; requests inside it wait for the next).
    public var keyframesForced = 0
    public var senderReportsSent = 0
    /// The receiver's last reported loss fraction for video (RFC 3550 §6.4.1, out of 256).
    public var lastFractionLost: UInt8 = 0
    public var malformedRTCP = 0

    public init() {}
}
