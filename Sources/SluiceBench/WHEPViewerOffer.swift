import WebRTCWire

/// draft-ietf-wish-whep-03 §4.2 with RFC 8829 §5.2 (JSEP offers): the bench WHEP viewer's recvonly offer (H.264 in
/// the profiles it lists, Opus, `a=setup:actpass`, BUNDLE, rtcp-mux), shaped like a browser's.
struct WHEPViewerOffer: Sendable {
    /// Our ICE username fragment and password.
    var iceUfrag: String
    var icePwd: String
    /// Our DTLS certificate fingerprint.
    var fingerprint: DTLSFingerprint
    /// H.264 profile-level-ids offered, one payload type each, in preference order (the server takes the first
    /// that receives its best rendition).
    var profiles: [String]
    /// The `o=` session id.
    var sessionID: UInt64
    /// First H.264 payload type; the next profiles take the following numbers.
    static let firstVideoPayloadType: UInt8 = 102
    /// Opus payload type.
    static let audioPayloadType: UInt8 = 111
    /// Everything a High-profile decoder takes (level 5.1): the passthrough of any encoder without B-frames.
    static let anyProfile = ["640033", "4d0033", "42e033"]
    /// What Chromium's receiver lists first: constrained baseline 3.1 (no High, so the passthrough is refused).
    static let constrainedBaseline = ["42e01f"]

    /// The offer.
    var description: SessionDescription {
        let session: [SDPLine] = [
            SDPLine(type: "v", value: "0"), SDPLine(type: "o", value: "- \(sessionID) 2 IN IP4 127.0.0.1"),
            SDPLine(type: "s", value: "-"), SDPLine(type: "t", value: "0 0"), .attribute("group", "BUNDLE 0 1"),
        ]
        var video: [SDPLine] = []
        var formats: [String] = []
        for (i, profile) in profiles.enumerated() {
            let pt = Self.firstVideoPayloadType + UInt8(i)
            formats.append(String(pt))
            video += [
                .attribute("rtpmap", "\(pt) H264/90000"),
                .attribute("fmtp", "\(pt) level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=\(profile)"),
                .attribute("rtcp-fb", "\(pt) nack"), .attribute("rtcp-fb", "\(pt) nack pli"),
                .attribute("rtcp-fb", "\(pt) ccm fir"),
            ]
        }
        let apt = Self.audioPayloadType
        let audio: [SDPLine] = [
            .attribute("rtpmap", "\(apt) opus/48000/2"), .attribute("fmtp", "\(apt) minptime=10;useinbandfec=1"),
        ]
        return SessionDescription(
            sessionLines: session,
            media: [
                section("video", mid: "0", formats: formats, codec: video),
                section("audio", mid: "1", formats: [String(apt)], codec: audio),
            ]
        )
    }

    private func section(_ kind: String, mid: String, formats: [String], codec: [SDPLine]) -> SDPMediaSection {
        let lines: [SDPLine] =
            [
                SDPLine(type: "c", value: "IN IP4 0.0.0.0"), .attribute("mid", mid), .attribute("recvonly"),
                .attribute("ice-ufrag", iceUfrag), .attribute("ice-pwd", icePwd),
                .attribute("fingerprint", fingerprint.description), .attribute("setup", DTLSSetup.actpass.rawValue),
                .attribute("rtcp-mux"),
            ] + codec
        return SDPMediaSection(kind: kind, port: 9, proto: "UDP/TLS/RTP/SAVPF", formats: formats, lines: lines)
    }
}
