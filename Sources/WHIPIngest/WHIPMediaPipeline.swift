import CodecFormats
import FFmpegBridge
import MediaCore
import Telemetry
import WebRTCWire

/// RFC 3550/4585/6184/7587: one WHIP session's decrypted RTP and RTCP into hub frames, as a value that returns actions.
///
/// Video: RTX unwrap → reorder buffer → H.264 depacketizer → AVCC frames at 90 kHz. Audio: Opus → AAC (the hub carries
/// AAC as it does for RTMP). Back to the publisher: receiver reports, generic NACKs and keyframe requests.
public struct WHIPMediaPipeline {
    /// What the session owner must do.
    public enum Action: Sendable {
        /// Announce (or re-announce) the tracks; always before the first frame it describes.
        case publish(StreamDescription)
        /// Send one frame into the hub.
        case frame(MediaFrame)
        /// One Opus frame as the publisher sent it, on the hub's timeline (WHEP sends it untouched).
        case originalAudio(MediaFrame)
        /// Send this RTCP compound packet to the publisher.
        case sendRTCP([UInt8])
        /// Something went wrong that costs media but not the session (logged by the owner).
        case warning(String)
    }

    let configuration: WHIPMediaConfiguration
    var video: VideoTrack?
    var audio: AudioTrack?
    /// The first packet's arrival: every track's timeline starts at its own first arrival after it.
    var origin: ContinuousClock.Instant?
    var lastReport: ContinuousClock.Instant?
    /// One PLI/FIR per `keyframeRequestInterval`; a request inside it is deferred to its end (`tick`), never dropped.
    var keyframePacer: KeyframeRequestPacer
    /// The last IDR's arrival (or the first video packet's): the periodic keyframe clock.
    var lastKeyframe: ContinuousClock.Instant?
    var firSequence: UInt8 = 0
    var announced: StreamDescription?
    /// Video frames waiting for the first description (while audio is expected).
    var heldVideo: [MediaFrame] = []
    var heldSince: ContinuousClock.Instant?
    /// Counters for logs and metrics.
    public internal(set) var counters = WHIPPipelineCounters()

    /// A pipeline for the streams `configuration` negotiated.
    public init(configuration: WHIPMediaConfiguration) {
        self.configuration = configuration
        keyframePacer = KeyframeRequestPacer(interval: configuration.keyframeRequestInterval)
        video = configuration.video.map {
            VideoTrack(stream: $0, reorder: configuration.reorder, nack: configuration.nack)
        }
        var audioReorder = configuration.reorder
        audioReorder.maxWait = min(audioReorder.maxWait, configuration.audioReorderWait)
        audio = configuration.audio.map { AudioTrack(stream: $0, reorder: audioReorder) }
    }

    /// One decrypted RTP packet that arrived at `now` (`wall` on the wall clock).
    public mutating func receivedRTP(_ bytes: [UInt8], now: ContinuousClock.Instant, wall: WallTime) -> [Action] {
        let packet: RTPPacket
        do {
            packet = try RTPPacket(parsing: bytes)
        } catch {
            counters.malformedPackets += 1
            return [.warning("malformed RTP packet: \(error)")]
        }
        if origin == nil { origin = now }
        var actions: [Action] = []
        if let stream = video?.stream,
            packet.payloadType == stream.payloadType || packet.payloadType == stream.rtxPayloadType
        {
            receivedVideo(packet, now: now, wall: wall, into: &actions)
        } else if let stream = audio?.stream, packet.payloadType == stream.payloadType {
            receivedAudio(packet, now: now, wall: wall, into: &actions)
        } else {
            counters.unknownPayloadType += 1
        }
        return actions
    }

    /// One decrypted RTCP compound packet (sender reports tie RTP time to the publisher's wall clock).
    public mutating func receivedRTCP(_ bytes: [UInt8], now: ContinuousClock.Instant) -> [Action] {
        let packets: [RTCPPacket]
        do {
            packets = try RTCPPacket.parseCompound(bytes)
        } catch {
            counters.malformedPackets += 1
            return [.warning("malformed RTCP packet: \(error)")]
        }
        for case .senderReport(let report) in packets {
            if video?.ssrc == report.ssrc {
                video?.senderReport = report
                video?.statistics?.record(report, arrival: now)
            } else if audio?.ssrc == report.ssrc {
                audio?.senderReport = report
                audio?.statistics?.record(report, arrival: now)
            }
        }
        return []
    }

    /// Timer work: give up on old gaps, re-send due NACKs, and a receiver report every `reportInterval`.
    public mutating func tick(now: ContinuousClock.Instant, wall: WallTime) -> [Action] {
        var actions: [Action] = []
        if var track = video {
            let output = track.reorder.expire(now: now)
            video = track
            releaseVideo(output, now: now, wall: wall, into: &actions)
        }
        if var track = audio {
            let output = track.reorder.expire(now: now)
            audio = track
            counters.audio.packetsUnrecovered += output.lost.count
            releaseAudio(output.released, now: now, wall: wall, into: &actions)
        }
        appendNACK(now: now, into: &actions)
        appendDeferredKeyframeRequest(now: now, into: &actions)
        appendPeriodicKeyframeRequest(now: now, into: &actions)
        if lastReport.map({ $0.duration(to: now) >= configuration.reportInterval }) ?? (origin != nil) {
            lastReport = now
            var blocks: [RTCPReportBlock] = []
            if var stats = video?.statistics {
                blocks.append(stats.makeReportBlock(now: now))
                video?.statistics = stats
            }
            if var stats = audio?.statistics {
                blocks.append(stats.makeReportBlock(now: now))
                audio?.statistics = stats
            }
            if !blocks.isEmpty {
                var packets = [
                    RTCPPacket.receiverReport(RTCPReceiverReport(ssrc: configuration.localSSRC, reports: blocks))
                ]
                if let remb = makeREMB() {
                    packets.append(.receiverEstimatedMaxBitrate(remb))
                    counters.bitrateEstimatesSent += 1
                }
                actions.append(.sendRTCP(RTCPPacket.serializeCompound(packets)))
                counters.receiverReportsSent += 1
            }
        }
        return actions
    }

    /// draft-alvestrand-rmcat-remb-03: the configured ceiling for every media source, so a browser's sender ramps up to it.
    func makeREMB() -> RTCPReceiverEstimatedMaxBitrate? {
        let ssrcs = [video?.ssrc, audio?.ssrc].compactMap { $0 }
        guard configuration.sendsREMB, configuration.maxBitrate > 0, !ssrcs.isEmpty else { return nil }
        return RTCPReceiverEstimatedMaxBitrate(
            senderSSRC: configuration.localSSRC,
            bitrate: configuration.maxBitrate,
            ssrcs: ssrcs
        )
    }
}

/// What a pipeline counted: per-kind receive counters for metrics, the rest for logs.
public struct WHIPPipelineCounters: Sendable, Hashable {
    public var videoFrames = 0
    public var audioFrames = 0
    /// Silent 20 ms Opus frames put in place of lost audio packets (keeps the AAC timeline on the RTP clock).
    public var audioConcealedFrames = 0
    /// RTP loss, NACK, retransmission and keyframe-request counts of the video track.
    public var video = WebRTCReceiveCounts()
    /// RTP loss counts of the audio track (audio is not NACKed: a lost Opus packet costs 20 ms).
    public var audio = WebRTCReceiveCounts()
    public var receiverReportsSent = 0
    /// REMB messages sent (one rides along with each receiver report when negotiated).
    public var bitrateEstimatesSent = 0
    public var malformedPackets = 0
    public var unknownPayloadType = 0

    public init() {}

    /// Sequence numbers asked for in NACKs.
    public var nackedSequenceNumbers: Int { video.nackedPackets }
    /// PLIs and FIRs sent.
    public var keyframeRequests: Int { video.plisSent + video.firsSent }
    /// Sequence numbers given up after the reorder wait, both tracks.
    public var lostPackets: Int { video.packetsUnrecovered + audio.packetsUnrecovered }
    /// Video packets that arrived for a NACKed sequence number.
    public var retransmissionsReceived: Int { video.retransmissionsReceived }
}
