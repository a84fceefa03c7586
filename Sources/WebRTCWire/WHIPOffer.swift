/// RFC 9725 §4.2 with RFC 8829 §5.8 (JSEP offers): what a WHIP client's offer says about transport and media.
public struct WHIPOffer: Sendable {
    /// The parsed text.
    public let description: SessionDescription
    /// The publisher's ICE username fragment (media level, else session level).
    public let iceUfrag: String
    /// The publisher's ICE password.
    public let icePwd: String
    /// The publisher's certificate fingerprint (sha-256 preferred when several are listed).
    public let fingerprint: DTLSFingerprint
    /// The offered DTLS setup (actpass when absent).
    public let setup: DTLSSetup
    /// Mids named by `a=group:BUNDLE`, in order.
    public let bundleMids: [String]
    /// Every media section, in order.
    public let sections: [OfferedMedia]

    /// Reads an offer; throws `.sdpUnacceptable` when credentials or fingerprint are missing.
    public init(_ description: SessionDescription) throws(WebRTCWireError) {
        self.description = description
        let first = description.media.first
        func find(_ name: String) -> String? {
            first?.attribute(name) ?? description.attribute(name)
        }
        guard !description.media.isEmpty else { throw .sdpUnacceptable(.noMedia) }
        guard let ufrag = find("ice-ufrag"), let pwd = find("ice-pwd"), !ufrag.isEmpty, !pwd.isEmpty else {
            throw .sdpUnacceptable(.missingICECredentials)
        }
        let candidates = (first?.attributes("fingerprint") ?? []) + description.attributes("fingerprint")
        let fingerprints = candidates.compactMap(DTLSFingerprint.init(sdpValue:))
        guard let fingerprint = fingerprints.first(where: { $0.algorithm == "sha-256" }) ?? fingerprints.first else {
            throw .sdpUnacceptable(.missingFingerprint)
        }
        iceUfrag = ufrag
        icePwd = pwd
        self.fingerprint = fingerprint
        setup = find("setup").flatMap(DTLSSetup.init(rawValue:)) ?? .actpass
        let group = description.attributes("group").first { $0.hasPrefix("BUNDLE") } ?? ""
        bundleMids = group.split(separator: " ").dropFirst().map(String.init)
        sections = description.media.enumerated().map { OfferedMedia($1, index: $0, session: description) }
    }

    /// Parses text and reads it as an offer.
    public init(parsing text: String, sizeLimit: Int = SessionDescription.defaultSizeLimit) throws(WebRTCWireError) {
        try self.init(SessionDescription(parsing: text, sizeLimit: sizeLimit))
    }
}

/// RFC 8829 §5.8: one offered media section, read into what negotiation needs.
public struct OfferedMedia: Sendable {
    /// audio, video, application…
    public let kind: String
    /// `a=mid` (the section index as text when absent).
    public let mid: String
    /// sendrecv (default), sendonly, recvonly or inactive.
    public let direction: String
    /// Offered codecs in preference order (the m= format order).
    public let codecs: [RTPCodec]
    /// `a=extmap` ID → URI.
    public let extensions: [(id: Int, uri: String)]
    /// SSRCs declared with `a=ssrc`, in first-seen order (media and RTX alike).
    public let ssrcs: [UInt32]
    /// `a=ssrc-group:FID <media> <rtx>` pairs (RFC 4588 §8.3, RFC 5576 §4.2).
    public let retransmissionGroups: [(media: UInt32, rtx: UInt32)]
    /// True when `a=rtcp-mux` is present.
    public let rtcpMux: Bool
    /// The section as parsed.
    public let section: SDPMediaSection

    init(_ section: SDPMediaSection, index: Int, session: SessionDescription) {
        self.section = section
        kind = section.kind
        mid = section.attribute("mid") ?? String(index)
        let directions = ["sendrecv", "sendonly", "recvonly", "inactive"]
        direction =
            directions.first { !section.attributes($0).isEmpty }
            ?? directions.first { !session.attributes($0).isEmpty } ?? "sendrecv"
        var maps: [UInt8: (name: String, rate: Int, channels: Int)] = [:]
        for value in section.attributes("rtpmap") {
            let parts = value.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let pt = UInt8(parts[0]) else { continue }
            let encoding = parts[1].split(separator: "/")
            guard encoding.count >= 2, let rate = Int(encoding[1]) else { continue }
            maps[pt] = (String(encoding[0]), rate, encoding.count > 2 ? Int(encoding[2]) ?? 1 : 1)
        }
        func perPayload(_ name: String) -> [UInt8: [String]] {
            var result: [UInt8: [String]] = [:]
            for value in section.attributes(name) {
                let parts = value.split(separator: " ", maxSplits: 1)
                guard let pt = parts.first.flatMap({ UInt8($0) }) else { continue }
                result[pt, default: []].append(parts.count > 1 ? String(parts[1]) : "")
            }
            return result
        }
        let fmtp = perPayload("fmtp")
        let feedback = perPayload("rtcp-fb")
        codecs = section.formats.compactMap { token in
            guard let pt = UInt8(token), let map = maps[pt] else { return nil }
            return RTPCodec(
                payloadType: pt,
                name: map.name,
                clockRate: map.rate,
                channels: map.channels,
                parameters: fmtp[pt].flatMap(\.first).map(RTPCodec.parseParameters) ?? [],
                feedback: feedback[pt] ?? []
            )
        }
        extensions = section.attributes("extmap").compactMap { value in
            let parts = value.split(separator: " ")
            // "1/sendonly" carries a direction; a bare "/" has no ID (splitting it gave no element to index: a crash).
            guard parts.count >= 2, let id = Int(parts[0].prefix { $0 != "/" }) else { return nil }
            return (id, String(parts[1]))
        }
        var seen: [UInt32] = []
        for value in section.attributes("ssrc") {
            if let ssrc = value.split(separator: " ").first.flatMap({ UInt32($0) }), !seen.contains(ssrc) {
                seen.append(ssrc)
            }
        }
        ssrcs = seen
        retransmissionGroups = section.attributes("ssrc-group").compactMap { value in
            let fields = value.split(separator: " ")
            guard fields.count == 3, fields[0] == "FID", let media = UInt32(fields[1]), let rtx = UInt32(fields[2])
            else {
                return nil
            }
            return (media, rtx)
        }
        rtcpMux = !section.attributes("rtcp-mux").isEmpty
    }

    /// True when the publisher sends on this section (sendonly or sendrecv).
    public var isSending: Bool { direction == "sendonly" || direction == "sendrecv" }

    /// The best H.264 packetization-mode=1 codec: constrained baseline first, then in offer order.
    public var preferredH264: RTPCodec? {
        codecs.enumerated()
            .filter { $0.element.isH264 && $0.element.packetizationMode == 1 }
            .min { ($0.element.h264Preference, $0.offset) < ($1.element.h264Preference, $1.offset) }?.element
    }

    /// RFC 4588 §8.1: the `rtx` codec whose `apt` names `payloadType`, if offered.
    public func retransmissionCodec(for payloadType: UInt8) -> RTPCodec? {
        codecs.first { $0.name.lowercased() == "rtx" && $0.parameter("apt") == String(payloadType) }
    }

    /// SSRCs that carry media (those not named as the RTX half of a FID group).
    public var mediaSSRCs: [UInt32] {
        let rtx = Set(retransmissionGroups.map(\.rtx))
        return ssrcs.filter { !rtx.contains($0) }
    }

    /// The first Opus 48000/2 codec.
    public var preferredOpus: RTPCodec? { codecs.first { $0.isOpus } }
}
