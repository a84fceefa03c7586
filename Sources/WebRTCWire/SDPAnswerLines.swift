/// The lines every m-section of our ICE-lite answers carries, WHIP's (recvonly) and WHEP's (sendonly) alike
/// (RFC 8829 §5.3.1: JSEP answer media sections).
enum SDPAnswerLines {
    /// `c=`, mid, direction, ICE credentials (RFC 8839 §5.4), fingerprint and setup (RFC 8842 §5).
    static func transport(
        mid: String,
        direction: String,
        iceUfrag: String,
        icePwd: String,
        fingerprint: DTLSFingerprint,
        setup: DTLSSetup,
        candidates: [TransportAddress]
    ) -> [SDPLine] {
        let first = candidates.first
        return [
            SDPLine(type: "c", value: first.map { "IN \($0.isIPv4 ? "IP4" : "IP6") \($0.ipText)" } ?? "IN IP4 0.0.0.0"),
            .attribute("mid", mid), .attribute(direction), .attribute("ice-ufrag", iceUfrag),
            .attribute("ice-pwd", icePwd), .attribute("fingerprint", fingerprint.description),
            .attribute("setup", setup.rawValue),
        ]
    }

    /// rtpmap and, when it has parameters, fmtp of the chosen codec (RFC 4566 §6).
    static func codec(_ codec: RTPCodec) -> [SDPLine] {
        let channels = codec.channels > 1 ? "/\(codec.channels)" : ""
        var lines: [SDPLine] = [
            .attribute("rtpmap", "\(codec.payloadType) \(codec.name)/\(codec.clockRate)\(channels)")
        ]
        if !codec.parameters.isEmpty { lines.append(.attribute("fmtp", "\(codec.payloadType) \(codec.fmtpValue)")) }
        return lines
    }

    /// Our host candidates, then end-of-candidates (ICE-lite gathers everything up front).
    static func candidates(_ candidates: [TransportAddress]) -> [SDPLine] {
        var lines: [SDPLine] = []
        for (index, candidate) in candidates.enumerated() {
            // RFC 8445 §5.1.2.1: type preference 126 (host), local preference by list order, component 1.
            let priority = (126 << 24) | ((65_535 - min(index, 65_535)) << 8) | 255
            lines.append(
                .attribute("candidate", "\(index + 1) 1 udp \(priority) \(candidate.ipText) \(candidate.port) typ host")
            )
        }
        lines.append(.attribute("end-of-candidates"))
        return lines
    }

    /// An offered m-section the answer declines (RFC 3264 §6: port 0), kept with its mid so BUNDLE still lines up.
    static func declined(_ media: OfferedMedia) -> SDPMediaSection {
        SDPMediaSection(
            kind: media.kind,
            port: 0,
            proto: media.section.proto,
            formats: media.section.formats,
            lines: [.attribute("mid", media.mid), .attribute("inactive")]
        )
    }
}
