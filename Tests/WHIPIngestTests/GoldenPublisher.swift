import FFmpegBridge
import Foundation
import MediaCore
import WHIPIngest
import WebRTCWire

/// Golden RTP from real x264 frames (FFmpegBridge's test pattern), packetized as a WebRTC publisher would.
struct GoldenPublisher {
    static let videoSSRC: UInt32 = 0x1111
    static let fingerprint = DTLSFingerprint(algorithm: "sha-256", digest: (0..<32).map { UInt8($0) })
    static let answerConfiguration = WHIPAnswerConfiguration(
        iceUfrag: "sluI",
        icePwd: "sluicepwd0123456789abcdef",
        fingerprint: fingerprint,
        candidates: [TransportAddress("127.0.0.1:8189")!],
        sessionID: 42
    )

    /// One access unit as sent: AVCC with SPS/PPS in band on keyframes, and its packets.
    struct Unit {
        var frame: MediaFrame
        var timestamp: UInt32
        var packets: [RTPPacket]
    }

    let description: StreamDescription
    let units: [Unit]

    /// `count` video frames of a 320x180 pattern with a keyframe every `gop`, in packets of at most 300 bytes.
    init(count: Int, gop: Int) throws {
        let source = try TestPatternSource(
            configuration: .init(width: 320, height: 180, fps: 30, gop: gop, videoBitRate: 400_000)
        )
        description = source.streamDescription
        let (sps, pps) = Self.parameterSets(avcC: description.video?.decoderConfiguration ?? [])
        var packetizer = H264Packetizer(
            maxPayloadSize: 300,
            payloadType: 96,
            ssrc: Self.videoSSRC,
            sequenceNumber: 65_500
        )
        var units: [Unit] = []
        while units.count < count, var frame = try source.nextFrame() {
            guard frame.kind == .video else { continue }
            if frame.isKeyframe { frame.data = Self.avcc([sps, pps]) + frame.data }
            let timestamp = UInt32(truncatingIfNeeded: 4_000_000_000 &+ frame.dts.converted(to: 90_000).value)
            units.append(
                Unit(
                    frame: frame,
                    timestamp: timestamp,
                    packets: try packetizer.packetize(avcc: frame.data, timestamp: timestamp)
                )
            )
        }
        self.units = units
    }

    /// Our own publisher's offer, video only or with audio.
    static func offer(audio: Bool = false) -> WHIPPublisherOffer {
        WHIPPublisherOffer(
            iceUfrag: "pubU",
            icePwd: "publisherpassword0123456",
            fingerprint: fingerprint,
            videoSSRC: videoSSRC,
            audioSSRC: audio ? 0x2222 : nil,
            cname: "golden",
            sessionID: 7
        )
    }

    /// A WHIP negotiation for our own publisher's offer; `rtx` adds an RFC 4588 pair (PT 97) as Chromium offers.
    static func negotiation(audio: Bool = false, rtx: Bool = false, feedback: Bool = true) throws -> WHIPNegotiation {
        var text = offer(audio: audio).description.text
        if rtx {
            text = text.replacingOccurrences(of: "RTP/SAVPF 96", with: "RTP/SAVPF 96 97")
                .replacingOccurrences(
                    of: "a=rtcp-fb:96 ccm fir\r\n",
                    with: "a=rtcp-fb:96 ccm fir\r\na=rtpmap:97 rtx/90000\r\na=fmtp:97 apt=96\r\n"
                )
        }
        if !feedback {
            // FFmpeg 9's WHIP muxer offers only generic NACK.
            text = text.replacingOccurrences(of: "a=rtcp-fb:96 nack pli\r\n", with: "")
                .replacingOccurrences(of: "a=rtcp-fb:96 ccm fir\r\n", with: "")
        }
        return try WHIPNegotiation(offerText: text, configuration: answerConfiguration)
    }

    static func avcc(_ nals: [[UInt8]]) -> [UInt8] {
        nals.flatMap { nal in withUnsafeBytes(of: UInt32(nal.count).bigEndian, Array.init) + nal }
    }

    /// ISO 14496-15 §5.3.3.1: the first SPS and PPS of an avcC record.
    static func parameterSets(avcC: [UInt8]) -> (sps: [UInt8], pps: [UInt8]) {
        guard avcC.count > 8 else { return ([], []) }
        let spsLength = Int(avcC[6]) << 8 | Int(avcC[7])
        let sps = Array(avcC[8..<8 + spsLength])
        let ppsAt = 8 + spsLength + 1
        let ppsLength = Int(avcC[ppsAt]) << 8 | Int(avcC[ppsAt + 1])
        return (sps, Array(avcC[ppsAt + 2..<ppsAt + 2 + ppsLength]))
    }
}

/// Drives a pipeline with a manual clock and collects what it asked for.
struct PipelineDriver {
    var pipeline: WHIPMediaPipeline
    var now = ContinuousClock.now
    var frames: [MediaFrame] = []
    var originalAudio: [MediaFrame] = []
    var descriptions: [StreamDescription] = []
    var rtcp: [RTCPPacket] = []
    var warnings: [String] = []

    init(_ configuration: WHIPMediaConfiguration) { pipeline = WHIPMediaPipeline(configuration: configuration) }

    mutating func send(_ packet: RTPPacket) {
        collect(pipeline.receivedRTP(packet.serialized(), now: now, wall: WallTime.now()))
    }

    mutating func advance(_ duration: Duration) {
        now += duration
        collect(pipeline.tick(now: now, wall: WallTime.now()))
    }

    mutating func collect(_ actions: [WHIPMediaPipeline.Action]) {
        for action in actions {
            switch action {
            case .publish(let d): descriptions.append(d)
            case .frame(let f): frames.append(f)
            case .originalAudio(let f): originalAudio.append(f)
            case .sendRTCP(let bytes): rtcp += (try? RTCPPacket.parseCompound(bytes)) ?? []
            case .warning(let w): warnings.append(w)
            }
        }
    }

    var nacked: [UInt16] {
        var sequences: [UInt16] = []
        for case .genericNACK(let nack) in rtcp { sequences += nack.lostSequenceNumbers }
        return sequences
    }
    var pliCount: Int { rtcp.count { if case .pictureLossIndication = $0 { true } else { false } } }
}
