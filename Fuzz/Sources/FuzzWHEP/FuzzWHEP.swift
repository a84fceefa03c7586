import FuzzSupport
import WebRTCWire

/// WHEP negotiation (draft-ietf-wish-whep-03) and RFC 6184 profile-level-ids: any text is answered or refused with a
/// reason; an answer reads back, keeps the offer's sections and mids, and sends H.264 the offer receives and Opus.
@main enum FuzzWHEPEntry {
    static func main() { FuzzDriver.run(fuzzWHEP) }
}

/// Our side: one host candidate, fixed SSRCs.
let configuration = WHEPAnswerConfiguration(
    iceUfrag: "sluW", icePwd: "sluicepwd0123456789abcdef",
    fingerprint: DTLSFingerprint(algorithm: "sha-256", digest: (0..<32).map { UInt8($0) }),
    candidates: [TransportAddress("127.0.0.1:8189")!], sessionID: 7, cname: "sluice-fuzz", videoSSRC: 11, audioSSRC: 22)

/// What streams can send: a High passthrough before the rung, a Main source, audio only.
let sendables = [
    WHEPSendable(video: ["640028", "42e01f"].compactMap(H264ProfileLevelID.init(hex:)), audio: true),
    WHEPSendable(video: ["4d401f"].compactMap(H264ProfileLevelID.init(hex:)), audio: false),
    WHEPSendable(video: [], audio: true),
]

/// One libFuzzer input: the bytes as (lossily decoded) UTF-8 SDP text.
func fuzzWHEP(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    for token in text.split(separator: "=").suffix(4) {
        // Any six characters may come in as a profile-level-id: it prints back to itself when it reads.
        if let id = H264ProfileLevelID(hex: String(token.prefix(6))) {
            precondition(H264ProfileLevelID(hex: id.description) == id, "profile-level-id does not read back")
            _ = id.receives(id)
        }
    }
    guard let offer = try? WHIPOffer(parsing: text) else { return }
    for sendable in sendables {
        guard let negotiation = try? WHEPNegotiation(offer: offer, sendable: sendable, configuration: configuration)
        else { continue }
        let answer = negotiation.answer
        precondition((try? SessionDescription(parsing: negotiation.answerText)) == answer, "answer does not read back")
        precondition(answer.media.count == offer.sections.count, "answer has a different number of sections")
        for (section, offered) in zip(answer.media, offer.sections) {
            precondition(section.attribute("mid") == offered.mid, "answer section mid differs from the offer's")
        }
        if let video = negotiation.video, let choice = negotiation.videoChoice {
            let sent = sendable.video[choice]
            precondition(video.codec.isH264 && video.codec.packetizationMode == 1, "video negotiated \(video.codec.name)")
            precondition(H264ProfileLevelID(codec: video.codec)?.receives(sent) == true, "video profile not received")
        }
        if let audio = negotiation.audio { precondition(audio.codec.isOpus && sendable.audio, "audio negotiated") }
        precondition(negotiation.video != nil || negotiation.audio != nil, "an answer that sends nothing")
    }
}
