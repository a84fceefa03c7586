/// draft-ietf-wish-whep-03 §4.2 with RFC 8829 §5.3 (JSEP answers): our sendonly, ICE-lite, BUNDLE answer to a WHEP
/// viewer's recvonly offer.
public struct WHEPAnswerConfiguration: Sendable {
    /// Our ICE username fragment.
    public var iceUfrag: String
    /// Our ICE password.
    public var icePwd: String
    /// Our DTLS certificate fingerprint.
    public var fingerprint: DTLSFingerprint
    /// Host candidates, all on the one shared UDP port.
    public var candidates: [TransportAddress]
    /// The `o=` session id.
    public var sessionID: UInt64
    /// RFC 7022 CNAME of our sources (one per stream, so a receiver syncs audio with video).
    public var cname: String
    /// SSRC of the video we send.
    public var videoSSRC: UInt32
    /// SSRC of the audio we send.
    public var audioSSRC: UInt32
    /// SSRC of video retransmissions (RFC 4588 §4) when the offer has `rtx` for our H.264; nil never answers RTX.
    public var videoRTXSSRC: UInt32?

    /// A configuration.
    public init(
        iceUfrag: String,
        icePwd: String,
        fingerprint: DTLSFingerprint,
        candidates: [TransportAddress],
        sessionID: UInt64,
        cname: String,
        videoSSRC: UInt32,
        audioSSRC: UInt32,
        videoRTXSSRC: UInt32? = nil
    ) {
        self.iceUfrag = iceUfrag
        self.icePwd = icePwd
        self.fingerprint = fingerprint
        self.candidates = candidates
        self.sessionID = sessionID
        self.cname = cname
        self.videoSSRC = videoSSRC
        self.audioSSRC = audioSSRC
        self.videoRTXSSRC = videoRTXSSRC
    }
}

/// What the stream can put on the wire, in order of preference, for a viewer's offer to choose from.
public struct WHEPSendable: Sendable, Equatable {
    /// H.264 renditions without B-frames by their SPS profile-level-id, best first (empty: no video).
    public var video: [H264ProfileLevelID]
    /// Whether the stream has audio (sent as Opus).
    public var audio: Bool

    /// A list of what can be sent.
    public init(video: [H264ProfileLevelID], audio: Bool) {
        self.video = video
        self.audio = audio
    }
}

/// One track we send: the section's mid, the payload type the offer gave the codec, and the feedback it asked for.
public struct WHEPOutgoingTrack: Sendable, Equatable {
    /// `a=mid`.
    public let mid: String
    /// The offered codec we answered with.
    public let codec: RTPCodec
    /// SSRC we send with.
    public let ssrc: UInt32
    /// RFC 4588 §8.1: the offered `rtx` codec whose `apt` is ours, and the SSRC retransmissions go on (nil: NACKs
    /// are answered on the media SSRC itself).
    public var retransmission: RetransmissionStream?
    /// The payload type.
    public var payloadType: UInt8 { codec.payloadType }
}

/// RFC 4588 §4: where a track's retransmissions go (their own payload type and SSRC, the OSN in front).
public struct RetransmissionStream: Sendable, Equatable {
    /// The offered `rtx` codec (`a=fmtp:<pt> apt=<media pt>`).
    public let codec: RTPCodec
    /// Our RTX SSRC, paired with the media SSRC by `a=ssrc-group:FID`.
    public let ssrc: UInt32
    /// The RTX payload type.
    public var payloadType: UInt8 { codec.payloadType }

    /// A retransmission stream with `codec` on `ssrc`.
    public init(codec: RTPCodec, ssrc: UInt32) {
        self.codec = codec
        self.ssrc = ssrc
    }
}

/// The outcome of answering a WHEP offer: the text for the 201 and which rendition and payload types to send.
public struct WHEPNegotiation: Sendable {
    /// The offer as read (a WHIP offer and a WHEP offer share the JSEP reading).
    public let offer: WHIPOffer
    /// The answer.
    public let answer: SessionDescription
    /// The H.264 track, when the offer receives video and the stream has it.
    public let video: WHEPOutgoingTrack?
    /// Index into `WHEPSendable.video` of the rendition the offer accepted.
    public let videoChoice: Int?
    /// The Opus track, when the offer receives audio and the stream has it.
    public let audio: WHEPOutgoingTrack?
    /// Our DTLS role (server unless the offer said `a=setup:passive`).
    public let dtlsRole: DTLSRole

    /// The answer body (`application/sdp`).
    public var answerText: String { answer.text }

    /// RTCP feedback we read on video when offered (RFC 4585 §4.2 generic NACK and PLI, RFC 5104 §7.1 FIR).
    static let videoFeedback = ["nack", "nack pli", "ccm fir"]

    /// Answers `offer` with the first of `sendable.video` an offered H.264 payload type receives, and Opus.
    public init(
        offer: WHIPOffer,
        sendable: WHEPSendable,
        configuration: WHEPAnswerConfiguration
    ) throws(WebRTCWireError) {
        self.offer = offer
        let sections = offer.sections
        let videoIndex = sections.firstIndex { $0.kind == "video" }
        let audioIndex = sections.firstIndex { $0.kind == "audio" && $0.mid != videoIndex.map { sections[$0].mid } }
        var video: WHEPOutgoingTrack?
        var choice: Int?
        if let i = videoIndex, !sendable.video.isEmpty {
            let media = sections[i]
            guard media.isReceiving else {
                throw .sdpUnacceptable(.notReceiving(mid: media.mid, direction: media.direction))
            }
            let offered = media.codecs.filter { $0.isH264 && $0.packetizationMode == 1 }
            let pick = sendable.video.indices.lazy.compactMap { (n: Int) -> (Int, RTPCodec)? in
                let stream = sendable.video[n]
                // The exact profile first, else the first payload type whose profile's decoders take ours.
                let receiving = offered.filter { H264ProfileLevelID(codec: $0)?.receives(stream) ?? false }
                let exact = receiving.first { H264ProfileLevelID(codec: $0)?.profile == stream.profile }
                return (exact ?? receiving.first).map { (n, $0) }
            }.first
            guard let pick else {
                let ids = offered.map { $0.parameter("profile-level-id") ?? "420010" }
                throw .sdpUnacceptable(.noSendableH264(offered: ids, sendable: sendable.video.map(\.description)))
            }
            choice = pick.0
            var track = WHEPOutgoingTrack(mid: media.mid, codec: pick.1, ssrc: configuration.videoSSRC)
            if let rtxSSRC = configuration.videoRTXSSRC, let rtx = media.retransmissionCodec(for: pick.1.payloadType) {
                track.retransmission = RetransmissionStream(codec: rtx, ssrc: rtxSSRC)
            }
            video = track
        }
        var audio: WHEPOutgoingTrack?
        if let i = audioIndex, sendable.audio {
            let media = sections[i]
            guard media.isReceiving else {
                throw .sdpUnacceptable(.notReceiving(mid: media.mid, direction: media.direction))
            }
            guard let opus = media.preferredOpus else { throw .sdpUnacceptable(.noOpus) }
            audio = WHEPOutgoingTrack(mid: media.mid, codec: opus, ssrc: configuration.audioSSRC)
        }
        guard video != nil || audio != nil else { throw .sdpUnacceptable(.nothingToSend) }
        self.video = video
        self.audio = audio
        videoChoice = choice
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
        session.append(.attribute("msid-semantic", " WMS \(configuration.cname)"))
        var answered: [SDPMediaSection] = []
        for (index, media) in sections.enumerated() {
            let track = index == videoIndex ? video : index == audioIndex ? audio : nil
            guard let track else {
                answered.append(SDPAnswerLines.declined(media))
                continue
            }
            answered.append(Self.acceptedSection(media, track: track, setup: setup, configuration: configuration))
        }
        answer = SessionDescription(sessionLines: session, media: answered)
    }

    private static func acceptedSection(
        _ media: OfferedMedia,
        track: WHEPOutgoingTrack,
        setup: DTLSSetup,
        configuration: WHEPAnswerConfiguration
    ) -> SDPMediaSection {
        let codec = track.codec
        let first = configuration.candidates.first
        var lines = SDPAnswerLines.transport(
            mid: media.mid,
            direction: "sendonly",
            iceUfrag: configuration.iceUfrag,
            icePwd: configuration.icePwd,
            fingerprint: configuration.fingerprint,
            setup: setup,
            candidates: configuration.candidates
        )
        if media.rtcpMux { lines.append(.attribute("rtcp-mux")) }
        if !media.section.attributes("rtcp-rsize").isEmpty { lines.append(.attribute("rtcp-rsize")) }
        lines += SDPAnswerLines.codec(codec)
        if let rtx = track.retransmission { lines += SDPAnswerLines.codec(rtx.codec) }
        if codec.isH264 {
            // RFC 4585 §4.2: only feedback the offer listed; an offer without any gets all three.
            let offered = Set(codec.feedback)
            for fb in videoFeedback where offered.isEmpty || offered.contains(fb) {
                lines.append(.attribute("rtcp-fb", "\(codec.payloadType) \(fb)"))
            }
            // draft-alvestrand-rmcat-remb-03: the viewer's own bandwidth estimate, only when it offered to send one.
            if offered.contains("goog-remb") { lines.append(.attribute("rtcp-fb", "\(codec.payloadType) goog-remb")) }
        }
        // RFC 8830 §2 and RFC 5576 §4.1: the track and its SSRC, so the receiver binds packets before any arrive.
        let trackID = "\(configuration.cname)-\(media.kind)"
        lines.append(.attribute("msid", "\(configuration.cname) \(trackID)"))
        if let rtx = track.retransmission {
            // RFC 5576 §4.2 and RFC 4588 §8.3: FID pairs the media SSRC with its retransmission SSRC.
            lines.append(.attribute("ssrc-group", "FID \(track.ssrc) \(rtx.ssrc)"))
        }
        for ssrc in [track.ssrc] + (track.retransmission.map { [$0.ssrc] } ?? []) {
            lines.append(.attribute("ssrc", "\(ssrc) cname:\(configuration.cname)"))
            lines.append(.attribute("ssrc", "\(ssrc) msid:\(configuration.cname) \(trackID)"))
        }
        lines += SDPAnswerLines.candidates(configuration.candidates)
        return SDPMediaSection(
            kind: media.kind,
            port: Int(first?.port ?? 9),
            proto: media.section.proto,
            formats: [codec.payloadType, track.retransmission?.payloadType].compactMap { $0.map(String.init) },
            lines: lines
        )
    }
}

extension OfferedMedia {
    /// True when the viewer receives on this section (recvonly or sendrecv).
    public var isReceiving: Bool { direction == "recvonly" || direction == "sendrecv" }
}
