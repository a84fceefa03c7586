import Testing
import WebRTCWire

/// Inputs libFuzzer found (Fuzz/Sources/FuzzSDP), kept with the behaviour they get now.
@Suite struct FuzzRegressionTests {
    static let configuration = WHIPAnswerConfiguration(
        iceUfrag: "sluI",
        icePwd: "sluicepwd0123456789abcdef",
        fingerprint: DTLSFingerprint(algorithm: "sha-256", digest: (0..<32).map { UInt8($0) }),
        candidates: [TransportAddress("127.0.0.1:8189")!],
        sessionID: 42
    )

    /// A valid offer head; the tests append media sections.
    static let head = """
        v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0 1\r\na=ice-ufrag:abcd\r\n\
        a=ice-pwd:0123456789abcdef0123456789\r\na=fingerprint:\(SDPOffers.fp)\r\n
        """
    static let audio = "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\na=sendonly\r\na=rtpmap:111 opus/48000/2\r\n"
    static let video = """
        m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:1\r\na=sendonly\r\na=rtpmap:96 H264/90000\r\n\
        a=fmtp:96 packetization-mode=1\r\n
        """

    @Test func aCarriageReturnInsideAnSDPLineIsASyntaxError() throws {
        // The value kept its CR, which printed back as a line end: the description did not read back as itself.
        #expect(throws: WebRTCWireError.sdpSyntax(line: 2, text: "m=o 9 / \r ", reason: "CR inside a line")) {
            try SessionDescription(parsing: "v=0\nm=o 9 / \r ")
        }
        // A CR right before CRLF still just ends the line.
        let lenient = try SessionDescription(parsing: "v=0\r\r\ns=-\r\n")
        #expect(lenient.sessionLines == [SDPLine(type: "v", value: "0"), SDPLine(type: "s", value: "-")])
    }

    @Test func anOfferThatRepeatsMidsGetsOneAcceptedSectionPerStream() throws {
        // Two audio sections with mid 0 and two video sections with mid 1 were all four accepted.
        let text = Self.head + Self.audio + Self.audio + Self.video + Self.video
        let negotiation = try WHIPNegotiation(offerText: text, configuration: Self.configuration)
        #expect(negotiation.answer.media.map(\.port) == [8189, 0, 8189, 0])
        #expect(negotiation.audio?.mid == "0" && negotiation.video?.mid == "1")
        #expect(try SessionDescription(parsing: negotiation.answerText) == negotiation.answer)
    }

    @Test func anExtmapWithoutAnIDIsSkipped() throws {
        // "a=extmap:/ x" split to no ID at all and indexing it trapped: any WHIP client could crash the gateway.
        let video = Self.video.replacing(
            "a=sendonly\r\n",
            with: "a=sendonly\r\na=extmap:/ urn:x\r\na=extmap:3/sendonly urn:y\r\n"
        )
        let negotiation = try WHIPNegotiation(
            offerText: Self.head + Self.audio + video,
            configuration: Self.configuration
        )
        #expect(negotiation.offer.sections[1].extensions.map { "\($0.id) \($0.uri)" } == ["3 urn:y"])
        #expect(negotiation.video?.payloadType == 96)
    }

    @Test func audioReusingTheVideoMidIsNotAnswered() {
        // One mid cannot name two streams; the audio section is refused rather than bundled twice.
        let text = Self.head + Self.video + Self.audio.replacing("a=mid:0", with: "a=mid:1")
        #expect(throws: WebRTCWireError.sdpUnacceptable(.noOpus)) {
            try WHIPNegotiation(offerText: text, configuration: Self.configuration)
        }
    }
}
