import FuzzSupport
import WebRTCWire

/// SDP (RFC 8866) and WHIP negotiation: any text parses or throws; what parses prints back to the same description;
/// an offer we answer gets an answer that parses, keeps the offer's sections and mids, and that our own publisher reads.
@main enum FuzzSDPEntry {
    static func main() { FuzzDriver.run(fuzzSDP) }
}

/// Our side of every negotiation: two host candidates on one port, as `sluice serve` configures it.
let answerConfiguration = WHIPAnswerConfiguration(
    iceUfrag: "sluI", icePwd: "sluicepwd0123456789abcdef",
    fingerprint: DTLSFingerprint(algorithm: "sha-256", digest: (0..<32).map { UInt8($0) }),
    candidates: [TransportAddress("127.0.0.1:8189")!, TransportAddress("[::1]:8189")!], sessionID: 42)

/// One libFuzzer input: the bytes as (lossily decoded) UTF-8 SDP text.
func fuzzSDP(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    // Read as a remote answer first (the offer reader plus candidates): one text parse serves both when it is an offer.
    let remote: WHIPRemoteAnswer
    do {
        remote = try WHIPRemoteAnswer(parsing: text)
    } catch .sdpUnacceptable {
        if let description = try? SessionDescription(parsing: text) { checkRoundTrip(description) }
        return
    } catch {
        return
    }
    let offer = remote.description
    let description = offer.description
    checkRoundTrip(description)
    precondition(offer.sections.count == description.media.count, "an offer lost media sections")
    precondition(Set(remote.candidates).count == remote.candidates.count, "a candidate address read twice")
    precondition(
        DTLSFingerprint(sdpValue: offer.fingerprint.description) == offer.fingerprint,
        "fingerprint does not read back from its own text")
    for media in offer.sections {
        _ = (media.mediaSSRCs, media.isSending, media.extensions.count)
        if let h264 = media.preferredH264 {
            precondition(h264.isH264 && h264.packetizationMode == 1, "preferredH264 picked \(h264.name)")
            _ = media.retransmissionCodec(for: h264.payloadType)
        }
        if let opus = media.preferredOpus { precondition(opus.isOpus, "preferredOpus picked \(opus.name)") }
    }
    do {
        checkAnswer(try WHIPNegotiation(offer: offer, configuration: answerConfiguration), offer: offer)
    } catch .sdpUnacceptable(.noH264) {
        // An audio-only offer, answered by a gateway configured not to require video.
        var audioOnly = answerConfiguration
        audioOnly.requireVideo = false
        if let negotiation = try? WHIPNegotiation(offer: offer, configuration: audioOnly) { checkAnswer(negotiation, offer: offer) }
    } catch {}
}

/// Printing a description and reading the text back gives the same description.
func checkRoundTrip(_ description: SessionDescription) {
    precondition((try? SessionDescription(parsing: description.text)) == description, "SDP text round trip changed the description")
}

/// What every answer we send must satisfy.
func checkAnswer(_ negotiation: WHIPNegotiation, offer: WHIPOffer) {
    let answer = negotiation.answer
    precondition((try? SessionDescription(parsing: negotiation.answerText)) == answer, "answer text does not read back")
    precondition(answer.media.count == offer.sections.count, "answer has a different number of sections")
    for (section, offered) in zip(answer.media, offer.sections) {
        precondition(section.kind == offered.kind, "answer section kind differs from the offer's")
        precondition(section.attribute("mid") == offered.mid, "answer section mid differs from the offer's")
    }
    if let video = negotiation.video {
        precondition(video.codec.isH264 && video.codec.packetizationMode == 1, "video negotiated \(video.codec.name)")
    }
    if let audio = negotiation.audio { precondition(audio.codec.isOpus, "audio negotiated \(audio.codec.name)") }
    let accepted = answer.media.filter { $0.port != 0 }
    precondition(accepted.count == [negotiation.video, negotiation.audio].compactMap { $0 }.count, "accepted \(accepted.count) sections")
    // Our own WHIP publisher reads the answer from its first section (credentials live there when it is accepted).
    guard answer.media.first?.port != 0 else { return }
    guard let remote = try? WHIPRemoteAnswer(parsing: negotiation.answerText) else {
        preconditionFailure("our publisher cannot read our answer")
    }
    precondition(remote.videoPayloadType == negotiation.video?.payloadType, "publisher reads another video payload type")
    precondition(remote.audioPayloadType == negotiation.audio?.payloadType, "publisher reads another audio payload type")
    precondition(remote.candidates == answerConfiguration.candidates, "publisher reads other candidates")
}
