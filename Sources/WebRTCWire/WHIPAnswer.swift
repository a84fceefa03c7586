/// RFC 9725 §4.2 and RFC 8829 §5.3 (JSEP answers): our recvonly, ICE-lite, BUNDLE answer to a WHIP offer.
public struct WHIPAnswerConfiguration: Sendable {
    /// Our ICE username fragment (RFC 8839 §5.4: 4–256 ice-chars).
    public var iceUfrag: String
    /// Our ICE password (at least 22 ice-chars).
    public var icePwd: String
    /// Our DTLS certificate fingerprint.
    public var fingerprint: DTLSFingerprint
    /// Host candidates, all on the one shared UDP port.
    public var candidates: [TransportAddress]
    /// The `o=` session id.
    public var sessionID: UInt64
    /// Refuse offers without a video section (the ladder needs pictures).
    public var requireVideo: Bool = true
    /// Refuse offers without an audio section.
    public var requireAudio: Bool = false

    /// A configuration.
    public init(
        iceUfrag: String,
        icePwd: String,
        fingerprint: DTLSFingerprint,
        candidates: [TransportAddress],
        sessionID: UInt64
    ) {
        self.iceUfrag = iceUfrag
        self.icePwd = icePwd
        self.fingerprint = fingerprint
        self.candidates = candidates
        self.sessionID = sessionID
    }
}

/// One accepted media stream: its mid, the codec we chose and the SSRCs the offer declared.
public struct NegotiatedStream: Equatable, Sendable {
    /// `a=mid`.
    public let mid: String
    /// The chosen codec (payload type, clock rate, fmtp).
    public let codec: RTPCodec
    /// Media `a=ssrc` values from the offer (may be empty: then demultiplex by payload type).
    public let ssrcs: [UInt32]
    /// RFC 4588 retransmission payload type, when the offer paired one with `codec` (retransmissions and padding
    /// probes then arrive with this type; unwrap them with `RTPPacket.unwrappingRetransmission`).
    public let rtxPayloadType: UInt8?
    /// RTX SSRCs from the offer's FID groups.
    public let rtxSSRCs: [UInt32]
    /// The chosen payload type.
    public var payloadType: UInt8 { codec.payloadType }

    init(_ media: OfferedMedia, codec: RTPCodec, acceptRetransmission: Bool) {
        mid = media.mid
        self.codec = codec
        ssrcs = media.mediaSSRCs
        rtxPayloadType = acceptRetransmission ? media.retransmissionCodec(for: codec.payloadType)?.payloadType : nil
        rtxSSRCs = rtxPayloadType == nil ? [] : media.retransmissionGroups.map(\.rtx)
    }
}

/// The outcome of answering an offer: the text to return with 201 and what the transport and depacketizers need.
public struct WHIPNegotiation: Sendable {
    /// The offer as read.
    public let offer: WHIPOffer
    /// The answer.
    public let answer: SessionDescription
    /// The H.264 stream (nil only when `requireVideo` is off and no video was offered).
    public let video: NegotiatedStream?
    /// The Opus stream, if audio was offered.
    public let audio: NegotiatedStream?
    /// Our DTLS role (client only when the offer said `a=setup:passive`, as FFmpeg's muxer does).
    public let dtlsRole: DTLSRole

    /// The answer body (`application/sdp`).
    public var answerText: String { answer.text }

    /// RTCP feedback we ask for on H.264 (RFC 4585 §4.2, RFC 5104 §7.1).
    static let videoFeedback = ["nack", "nack pli", "ccm fir"]

    /// Parses `offerText` and answers it.
    public init(offerText: String, configuration: WHIPAnswerConfiguration) throws(WebRTCWireError) {
        try self.init(offer: WHIPOffer(parsing: offerText), configuration: configuration)
    }

    /// Answers `offer`: H.264 pm=1 (constrained baseline preferred) and Opus, recvonly; other sections get port 0.
    public init(offer: WHIPOffer, configuration: WHIPAnswerConfiguration) throws(WebRTCWireError) {
        self.offer = offer
        let videoSections = offer.sections.filter { $0.kind == "video" }
        let audioSections = offer.sections.filter { $0.kind == "audio" }
        // Picked by position, not mid: an offer that repeats a mid (RFC 8843 §7.2 forbids it) gets one section per stream.
        let sections = offer.sections
        let videoPick = sections.indices.lazy.compactMap { (i: Int) -> (Int, RTPCodec)? in
            sections[i].kind == "video" ? sections[i].preferredH264.map { (i, $0) } : nil
        }.first
        let videoMid = videoPick.map { sections[$0.0].mid }
        let audioPick = sections.indices.lazy.compactMap { (i: Int) -> (Int, RTPCodec)? in
            sections[i].kind == "audio" && sections[i].mid != videoMid ? sections[i].preferredOpus.map { (i, $0) } : nil
        }.first
        if videoPick == nil, !videoSections.isEmpty || configuration.requireVideo { throw .sdpUnacceptable(.noH264) }
        if audioPick == nil, !audioSections.isEmpty || configuration.requireAudio { throw .sdpUnacceptable(.noOpus) }
        for (index, _) in [videoPick, audioPick].compactMap({ $0 }) where !sections[index].isSending {
            throw .sdpUnacceptable(.notSending(mid: sections[index].mid, direction: sections[index].direction))
        }
        video = videoPick.map { NegotiatedStream(sections[$0.0], codec: $0.1, acceptRetransmission: true) }
        audio = audioPick.map { NegotiatedStream(sections[$0.0], codec: $0.1, acceptRetransmission: false) }
        let setup = offer.setup.answer
        dtlsRole = setup == .active ? .client : .server

        let accepted = Set([video?.mid, audio?.mid].compactMap { $0 })
        var session: [SDPLine] = [
            SDPLine(type: "v", value: "0"),
            SDPLine(type: "o", value: "- \(configuration.sessionID) 1 IN IP4 127.0.0.1"),
            SDPLine(type: "s", value: "-"), SDPLine(type: "t", value: "0 0"), .attribute("ice-lite"),
        ]
        let bundled = offer.bundleMids.filter(accepted.contains)
        if !bundled.isEmpty { session.append(.attribute("group", (["BUNDLE"] + bundled).joined(separator: " "))) }
        var answered: [SDPMediaSection] = []
        for (index, media) in sections.enumerated() {
            let chosen = index == videoPick?.0 ? video : index == audioPick?.0 ? audio : nil
            guard let chosen else {
                answered.append(SDPAnswerLines.declined(media))
                continue
            }
            answered.append(Self.acceptedSection(media, stream: chosen, setup: setup, configuration: configuration))
        }
        answer = SessionDescription(sessionLines: session, media: answered)
    }

    private static func acceptedSection(
        _ media: OfferedMedia,
        stream: NegotiatedStream,
        setup: DTLSSetup,
        configuration: WHIPAnswerConfiguration
    ) -> SDPMediaSection {
        let codec = stream.codec
        let first = configuration.candidates.first
        var lines = SDPAnswerLines.transport(
            mid: media.mid,
            direction: "recvonly",
            iceUfrag: configuration.iceUfrag,
            icePwd: configuration.icePwd,
            fingerprint: configuration.fingerprint,
            setup: setup,
            candidates: configuration.candidates
        )
        if media.rtcpMux { lines.append(.attribute("rtcp-mux")) }
        lines += SDPAnswerLines.codec(codec)
        if codec.isH264 {
            // RFC 4585 §4.2: ask only for offered feedback; an offer that lists none (FFmpeg) gets all three.
            let offered = Set(codec.feedback)
            for fb in videoFeedback where offered.isEmpty || offered.contains(fb) {
                lines.append(.attribute("rtcp-fb", "\(codec.payloadType) \(fb)"))
            }
            // draft-alvestrand-rmcat-remb-03 §2.1: bandwidth feedback only when the publisher offered it.
            if offered.contains("goog-remb") { lines.append(.attribute("rtcp-fb", "\(codec.payloadType) goog-remb")) }
        }
        if let rtx = stream.rtxPayloadType {
            lines.append(.attribute("rtpmap", "\(rtx) rtx/\(codec.clockRate)"))
            lines.append(.attribute("fmtp", "\(rtx) apt=\(codec.payloadType)"))
        }
        lines += SDPAnswerLines.candidates(configuration.candidates)
        return SDPMediaSection(
            kind: media.kind,
            port: Int(first?.port ?? 9),
            proto: media.section.proto,
            formats: ([codec.payloadType] + [stream.rtxPayloadType].compactMap { $0 }).map(String.init),
            lines: lines
        )
    }
}
