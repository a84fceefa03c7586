/// RFC 9725 §4.2 and RFC 8829 §5.2 (JSEP offers): the offer our own WHIP publisher sends (sendonly H.264 + Opus,
/// `a=setup:actpass`, BUNDLE, rtcp-mux), and the reading of the server's answer.
public struct WHIPPublisherOffer: Sendable {
    /// Our ICE username fragment.
    public var iceUfrag: String
    /// Our ICE password.
    public var icePwd: String
    /// Our DTLS certificate fingerprint.
    public var fingerprint: DTLSFingerprint
    /// SSRC of the video stream.
    public var videoSSRC: UInt32
    /// SSRC of the audio stream; nil publishes video only.
    public var audioSSRC: UInt32?
    /// H.264 profile-level-id we send (constrained baseline 3.1 by default).
    public var profileLevelID = "42e01f"
    /// RTCP CNAME (RFC 7022: random per session).
    public var cname: String
    /// The `o=` session id.
    public var sessionID: UInt64
    /// Video payload type we offer.
    public static let videoPayloadType: UInt8 = 96
    /// Audio payload type we offer.
    public static let audioPayloadType: UInt8 = 111

    /// An offer description.
    public init(
        iceUfrag: String,
        icePwd: String,
        fingerprint: DTLSFingerprint,
        videoSSRC: UInt32,
        audioSSRC: UInt32?,
        cname: String,
        sessionID: UInt64
    ) {
        self.iceUfrag = iceUfrag
        self.icePwd = icePwd
        self.fingerprint = fingerprint
        self.videoSSRC = videoSSRC
        self.audioSSRC = audioSSRC
        self.cname = cname
        self.sessionID = sessionID
    }

    /// The offer.
    public var description: SessionDescription {
        let mids = audioSSRC == nil ? ["0"] : ["0", "1"]
        let session: [SDPLine] = [
            SDPLine(type: "v", value: "0"), SDPLine(type: "o", value: "- \(sessionID) 1 IN IP4 127.0.0.1"),
            SDPLine(type: "s", value: "-"), SDPLine(type: "t", value: "0 0"),
            .attribute("group", (["BUNDLE"] + mids).joined(separator: " ")),
        ]
        let vpt = Self.videoPayloadType
        var media = [
            section(
                kind: "video",
                mid: "0",
                payloadType: vpt,
                ssrc: videoSSRC,
                codec: [
                    .attribute("rtpmap", "\(vpt) H264/90000"),
                    .attribute(
                        "fmtp",
                        "\(vpt) level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=\(profileLevelID)"
                    ),
                    .attribute("rtcp-fb", "\(vpt) nack"), .attribute("rtcp-fb", "\(vpt) nack pli"),
                    .attribute("rtcp-fb", "\(vpt) ccm fir"),
                ]
            )
        ]
        if let audioSSRC {
            let apt = Self.audioPayloadType
            media.append(
                section(
                    kind: "audio",
                    mid: "1",
                    payloadType: apt,
                    ssrc: audioSSRC,
                    codec: [
                        .attribute("rtpmap", "\(apt) opus/48000/2"),
                        .attribute("fmtp", "\(apt) minptime=10;useinbandfec=1"),
                    ]
                )
            )
        }
        return SessionDescription(sessionLines: session, media: media)
    }

    private func section(
        kind: String,
        mid: String,
        payloadType: UInt8,
        ssrc: UInt32,
        codec: [SDPLine]
    ) -> SDPMediaSection {
        let lines: [SDPLine] =
            [
                SDPLine(type: "c", value: "IN IP4 0.0.0.0"), .attribute("mid", mid), .attribute("sendonly"),
                .attribute("ice-ufrag", iceUfrag), .attribute("ice-pwd", icePwd),
                .attribute("fingerprint", fingerprint.description), .attribute("setup", DTLSSetup.actpass.rawValue),
                .attribute("rtcp-mux"),
            ] + codec + [.attribute("ssrc", "\(ssrc) cname:\(cname)")]
        return SDPMediaSection(
            kind: kind,
            port: 9,
            proto: "UDP/TLS/RTP/SAVPF",
            formats: [String(payloadType)],
            lines: lines
        )
    }
}

/// RFC 8829 §5.10 (applying a remote answer): what our publisher needs from the server's answer.
public struct WHIPRemoteAnswer: Sendable {
    /// The answer as read (credentials, fingerprint, setup, sections).
    public let description: WHIPOffer
    /// The server's host UDP candidates, in the answer's order.
    public let candidates: [TransportAddress]
    /// Our DTLS role: client unless the server answered `a=setup:active`.
    public let dtlsRole: DTLSRole
    /// The accepted video payload type (nil if the server rejected video).
    public let videoPayloadType: UInt8?
    /// The accepted audio payload type (nil if rejected or not offered).
    public let audioPayloadType: UInt8?

    /// Reads an answer; throws like an offer when credentials or fingerprint are missing.
    public init(parsing text: String) throws(WebRTCWireError) {
        let read = try WHIPOffer(parsing: text)
        description = read
        dtlsRole = read.setup == .active ? .server : .client
        var found: [TransportAddress] = []
        for section in read.sections {
            for value in section.section.attributes("candidate") {
                // RFC 8839 §5.1: foundation component transport priority address port "typ" type …
                let fields = value.split(separator: " ")
                guard fields.count >= 8, fields[2].lowercased() == "udp", fields[6] == "typ",
                    let port = UInt16(fields[5]),
                    let ip = TransportAddress.parseIP(String(fields[4])),
                    let address = TransportAddress(ip: ip, port: port),
                    !found.contains(address)
                else { continue }
                found.append(address)
            }
        }
        candidates = found
        let accepted = read.sections.filter { $0.section.port != 0 }
        videoPayloadType = accepted.first { $0.kind == "video" }?.codecs.first?.payloadType
        audioPayloadType = accepted.first { $0.kind == "audio" }?.codecs.first?.payloadType
    }
}
