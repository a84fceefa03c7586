import WebRTCWire

/// What one WHIP session's media pipeline receives and how it asks for repairs (RFC 4585 §4.2 feedback it may send).
public struct WHIPMediaConfiguration: Sendable {
    /// How the publisher accepts keyframe requests (RFC 4585 §6.3.1 PLI, RFC 5104 §4.3.1 FIR), from its rtcp-fb.
    public enum KeyframeRequest: Sendable, Hashable {
        case pli
        case fir
        /// The publisher offered neither (FFmpeg's WHIP muxer offers only `nack`): wait for its next IDR.
        case unavailable
    }

    /// The H.264 stream, if negotiated.
    public var video: NegotiatedStream?
    /// The Opus stream, if negotiated.
    public var audio: NegotiatedStream?
    /// Our SSRC in RTCP we send.
    public var localSSRC: UInt32
    /// True when the publisher accepts generic NACK (it offered `nack`, or no feedback at all).
    public var sendsNACK: Bool
    /// How to ask for a keyframe.
    public var keyframeRequest: KeyframeRequest
    /// Receiver report period (RFC 3550 §6.2 allows much less than 5 s at these rates).
    public var reportInterval: Duration = .seconds(1)
    /// Least time between two keyframe requests (a lost burst asks once, not per packet).
    public var keyframeRequestInterval: Duration = .milliseconds(500)
    /// Longest stretch without an IDR before one is asked for (the HLS segment target, so every segment can start on one).
    public var keyframeInterval: Duration = .seconds(2)
    /// How long an unanswered keyframe request stays outstanding before the interval rule may ask again.
    public var keyframeRequestTimeout: Duration = .seconds(1)
    /// True when the publisher accepts REMB (it offered `goog-remb`): each receiver report then carries one.
    public var sendsREMB: Bool = false
    /// The bitrate REMB tells the publisher it may reach, in bits per second (0: send none).
    public var maxBitrate: UInt64 = 2_500_000
    /// How long video waits for negotiated audio before the stream is described without it.
    public var audioGrace: Duration = .seconds(1)
    /// Reorder buffer bounds (video; audio's wait is capped by `audioReorderWait`).
    public var reorder = RTPReorderBuffer.Configuration()
    /// Audio is never NACKed, so a gap only waits out reordering, then is filled with silence.
    public var audioReorderWait: Duration = .milliseconds(40)
    /// NACK retry policy.
    public var nack = RTPNackTracker.Configuration()

    /// A configuration with explicit feedback choices.
    public init(
        video: NegotiatedStream?,
        audio: NegotiatedStream?,
        localSSRC: UInt32,
        sendsNACK: Bool,
        keyframeRequest: KeyframeRequest
    ) {
        self.video = video
        self.audio = audio
        self.localSSRC = localSSRC
        self.sendsNACK = sendsNACK
        self.keyframeRequest = keyframeRequest
    }

    /// The streams and feedback `negotiation` agreed on.
    public init(negotiation: WHIPNegotiation, localSSRC: UInt32) {
        let feedback = Set(negotiation.video?.codec.feedback ?? [])
        // Our answer asks for all three when the offer lists none, so an empty list allows all.
        let request: KeyframeRequest =
            feedback.isEmpty || feedback.contains("nack pli")
            ? .pli : feedback.contains("ccm fir") ? .fir : .unavailable
        self.init(
            video: negotiation.video,
            audio: negotiation.audio,
            localSSRC: localSSRC,
            sendsNACK: feedback.isEmpty || feedback.contains("nack"),
            keyframeRequest: request
        )
        sendsREMB = feedback.contains("goog-remb")
    }
}
