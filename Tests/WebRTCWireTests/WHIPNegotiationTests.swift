import TestSupport
import Testing
import WebRTCWire

/// What negotiation must pick from each real publisher's offer.
struct OfferCase: Sendable, CustomTestStringConvertible {
    let name: String
    let text: String
    let videoPT: UInt8
    let profileLevelID: String
    let audioPT: UInt8
    let bundle: String
    let role: DTLSRole
    let ufrag: String
    let videoSSRCs: [UInt32]
    let rtx: UInt8
    let rtxSSRCs: [UInt32]
    var testDescription: String { name }

    static let all: [OfferCase] = [
        OfferCase(
            name: "Chromium 156",
            text: SDPOffers.chromium,
            videoPT: 108,
            profileLevelID: "42e01f",
            audioPT: 111,
            bundle: "BUNDLE 0 1",
            role: .server,
            ufrag: "a5YP",
            videoSSRCs: [2_411_745_923],
            rtx: 109,
            rtxSSRCs: [3_197_793_785]
        ),
        OfferCase(
            name: "aiortc 1.16",
            text: SDPOffers.aiortc,
            videoPT: 101,
            profileLevelID: "42e01f",
            audioPT: 96,
            bundle: "BUNDLE 0 1",
            role: .server,
            ufrag: "5Hs0",
            videoSSRCs: [2_586_188_078],
            rtx: 102,
            rtxSSRCs: [3_014_585_657]
        ),
        OfferCase(
            name: "FFmpeg 9 WHIP muxer",
            text: SDPOffers.ffmpeg,
            videoPT: 106,
            profileLevelID: "42000d",
            audioPT: 111,
            bundle: "BUNDLE 0 1",
            role: .client,
            ufrag: "93e2780f",
            videoSSRCs: [3_613_500_351],
            rtx: 105,
            rtxSSRCs: [3_613_500_352]
        ),
    ]
}

/// SDP offer reading and the WHIP answer.
@Suite struct WHIPNegotiationTests {
    static let ourFingerprint = DTLSFingerprint(algorithm: "sha-256", digest: (0..<32).map { UInt8($0) })
    static let configuration = WHIPAnswerConfiguration(
        iceUfrag: "sluI",
        icePwd: "sluicepwd0123456789abcdef",
        fingerprint: ourFingerprint,
        candidates: [TransportAddress("127.0.0.1:8189")!, TransportAddress("[::1]:8189")!],
        sessionID: 42
    )

    @Test(arguments: OfferCase.all) func picksCodecsAndRoleFromRealOffers(_ c: OfferCase) throws {
        let negotiation = try WHIPNegotiation(offerText: c.text, configuration: Self.configuration)
        #expect(negotiation.video?.payloadType == c.videoPT)
        #expect(negotiation.video?.codec.parameter("profile-level-id") == c.profileLevelID)
        #expect(negotiation.video?.codec.packetizationMode == 1)
        #expect(negotiation.audio?.payloadType == c.audioPT)
        #expect(negotiation.video?.ssrcs == c.videoSSRCs)
        #expect(negotiation.video?.rtxPayloadType == c.rtx && negotiation.video?.rtxSSRCs == c.rtxSSRCs)
        #expect(negotiation.audio?.rtxPayloadType == nil)
        #expect(negotiation.dtlsRole == c.role)
        #expect(negotiation.offer.iceUfrag == c.ufrag)
        #expect(
            negotiation.offer.fingerprint.algorithm == "sha-256" && negotiation.offer.fingerprint.digest.count == 32
        )
        #expect(negotiation.answer.attribute("group") == c.bundle)
    }

    @Test(arguments: OfferCase.all) func answerParsesBackAndReadsAsOurs(_ c: OfferCase) throws {
        let answer = try WHIPNegotiation(offerText: c.text, configuration: Self.configuration).answerText
        let parsed = try SessionDescription(parsing: answer)
        #expect(parsed.text == answer)
        #expect(parsed.attributes("ice-lite") == [""])
        #expect(parsed.media.count == 2)
        for section in parsed.media {
            #expect(section.port == 8189 && section.attribute("recvonly") == "")
            #expect(
                section.attribute("ice-ufrag") == "sluI" && section.attribute("ice-pwd") == "sluicepwd0123456789abcdef"
            )
            #expect(section.attribute("fingerprint").flatMap(DTLSFingerprint.init(sdpValue:)) == Self.ourFingerprint)
            #expect(section.attribute("setup") == (c.role == .server ? "passive" : "active"))
            #expect(section.attribute("rtcp-mux") == "" && section.attributes("candidate").count == 2)
            #expect(section.attribute("end-of-candidates") == "")
        }
    }

    @Test func chromiumAnswerIsExactlyThis() throws {
        let fp = (0..<32).map {
            $0 < 16 ? "0\(String($0, radix: 16, uppercase: true))" : String($0, radix: 16, uppercase: true)
        }
        let common = """
            a=recvonly
            a=ice-ufrag:sluI
            a=ice-pwd:sluicepwd0123456789abcdef
            a=fingerprint:sha-256 \(fp.joined(separator: ":"))
            a=setup:passive
            a=rtcp-mux
            """
        let candidates = """
            a=candidate:1 1 udp 2130706431 127.0.0.1 8189 typ host
            a=candidate:2 1 udp 2130706175 ::1 8189 typ host
            a=end-of-candidates
            """
        let expected = """
            v=0
            o=- 42 1 IN IP4 127.0.0.1
            s=-
            t=0 0
            a=ice-lite
            a=group:BUNDLE 0 1
            m=audio 8189 UDP/TLS/RTP/SAVPF 111
            c=IN IP4 127.0.0.1
            a=mid:0
            \(common)
            a=rtpmap:111 opus/48000/2
            a=fmtp:111 minptime=10;useinbandfec=1
            \(candidates)
            m=video 8189 UDP/TLS/RTP/SAVPF 108 109
            c=IN IP4 127.0.0.1
            a=mid:1
            \(common)
            a=rtpmap:108 H264/90000
            a=fmtp:108 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
            a=rtcp-fb:108 nack
            a=rtcp-fb:108 nack pli
            a=rtcp-fb:108 ccm fir
            a=rtcp-fb:108 goog-remb
            a=rtpmap:109 rtx/90000
            a=fmtp:109 apt=108
            \(candidates)

            """.replacingLineEnds()
        #expect(
            try WHIPNegotiation(offerText: SDPOffers.chromium, configuration: Self.configuration).answerText == expected
        )
    }

    @Test func feedbackFollowsWhatTheOfferListed() throws {
        let aiortc = try WHIPNegotiation(offerText: SDPOffers.aiortc, configuration: Self.configuration)
        #expect(aiortc.answer.media[1].attributes("rtcp-fb") == ["101 nack", "101 nack pli", "101 goog-remb"])
        let ffmpeg = try WHIPNegotiation(offerText: SDPOffers.ffmpeg, configuration: Self.configuration)
        #expect(ffmpeg.answer.media[1].attributes("rtcp-fb") == ["106 nack"])
        let silent = try WHIPNegotiation(offerText: Self.offer(), configuration: Self.configuration)
        #expect(silent.answer.media[0].attributes("rtcp-fb") == ["96 nack", "96 nack pli", "96 ccm fir"])
    }

    /// A minimal offer whose parts a rejection case replaces.
    static func offer(
        video: String = "a=rtpmap:96 H264/90000\na=fmtp:96 packetization-mode=1;profile-level-id=42e01f",
        audio: String? = "a=rtpmap:111 opus/48000/2",
        videoDirection: String = "sendonly",
        credentials: String = "a=ice-ufrag:abcd\na=ice-pwd:0123456789abcdef0123456789",
        fingerprint: String = "a=fingerprint:\(SDPOffers.fp)"
    ) -> String {
        var text = "v=0\no=- 1 1 IN IP4 0.0.0.0\ns=-\nt=0 0\n\(credentials)\n\(fingerprint)\n"
        text += "m=video 9 UDP/TLS/RTP/SAVPF 96\na=mid:v\na=\(videoDirection)\n\(video)\n"
        if let audio { text += "m=audio 9 UDP/TLS/RTP/SAVPF 111\na=mid:a\na=sendonly\n\(audio)\n" }
        return text
    }

    @Test func rejectsOffersItCannotServeWithAReason() {
        let cases: [(String, WebRTCWireError)] = [
            (Self.offer(video: "a=rtpmap:96 VP8/90000"), .sdpUnacceptable(.noH264)),
            (Self.offer(video: "a=rtpmap:96 H264/90000\na=fmtp:96 packetization-mode=0"), .sdpUnacceptable(.noH264)),
            (Self.offer(audio: "a=rtpmap:0 PCMU/8000"), .sdpUnacceptable(.noOpus)),
            (Self.offer(videoDirection: "recvonly"), .sdpUnacceptable(.notSending(mid: "v", direction: "recvonly"))),
            (Self.offer(credentials: "a=ice-ufrag:abcd"), .sdpUnacceptable(.missingICECredentials)),
            (Self.offer(fingerprint: "a=fingerprint:sha-256 zz:11"), .sdpUnacceptable(.missingFingerprint)),
            ("v=0\no=- 1 1 IN IP4 0.0.0.0\ns=-\nt=0 0\na=ice-ufrag:x\n", .sdpUnacceptable(.noMedia)),
            (
                "v=0\nthis is not sdp\n",
                .sdpSyntax(line: 2, text: "this is not sdp", reason: "expected <letter>=<value>")
            ),
            (
                "o=- 1 1 IN IP4 0.0.0.0\n",
                .sdpSyntax(line: 1, text: "o=- 1 1 IN IP4 0.0.0.0", reason: "must start with v=0")
            ),
            (
                "v=0\nm=video nine RTP 96\n",
                .sdpSyntax(line: 2, text: "m=video nine RTP 96", reason: "m= needs <media> <port> <proto> <fmt>")
            ),
            (String(repeating: "a=x\n", count: 20_000), .sdpTooLarge(bytes: 80_000, limit: 65_536)),
        ]
        for (text, error) in cases {
            #expect(throws: error) { try WHIPNegotiation(offerText: text, configuration: Self.configuration) }
        }
        #expect(SDPRejection.noOpus.description == "no Opus 48000/2 offered")
    }

    @Test func videoOnlyOfferIsAcceptedUnlessAudioIsRequired() throws {
        let negotiation = try WHIPNegotiation(offerText: Self.offer(audio: nil), configuration: Self.configuration)
        #expect(negotiation.audio == nil && negotiation.video?.payloadType == 96)
        var strict = Self.configuration
        strict.requireAudio = true
        #expect(throws: WebRTCWireError.sdpUnacceptable(.noOpus)) {
            try WHIPNegotiation(offerText: Self.offer(audio: nil), configuration: strict)
        }
    }

    @Test func malformedProfileLevelIDStillCountsAsH264() throws {
        let offer = Self.offer(video: "a=rtpmap:96 H264/90000\na=fmtp:96 packetization-mode=1;profile-level-id=422001f")
        #expect(try WHIPNegotiation(offerText: offer, configuration: Self.configuration).video?.payloadType == 96)
    }

    @Test func extraSectionsAreRejectedWithPortZeroAndLeftOutOfTheBundle() throws {
        let offer = Self.offer() + "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\na=mid:d\n"
        let text = offer.replacing("t=0 0\n", with: "t=0 0\na=group:BUNDLE v a d\n")
        let answer = try WHIPNegotiation(offerText: text, configuration: Self.configuration).answer
        #expect(answer.attribute("group") == "BUNDLE v a")
        #expect(answer.media.map(\.port) == [8189, 8189, 0])
        #expect(answer.media[2].attribute("mid") == "d" && answer.media[2].formats == ["webrtc-datachannel"])
    }

    @Test func fuzzedOffersNeverCrashAndAcceptedOnesAnswerCleanly() throws {
        var rng = SeededRandom(seed: 0x5D9)
        let sources = OfferCase.all.map {
            $0.text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map(
                String.init
            )
        }
        var accepted = 0
        for i in 0..<600 {
            var lines = sources[i % sources.count]
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let at = Int.random(in: 0..<lines.count, using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: lines.remove(at: at)
                case 1: lines.insert(lines[Int.random(in: 0..<lines.count, using: &rng)], at: at)
                case 2:
                    var bytes = Array(lines[at].utf8)
                    if !bytes.isEmpty {
                        bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 32...126, using: &rng)
                    }
                    lines[at] = String(decoding: bytes, as: UTF8.self)
                default: lines[at] = String(lines[at].prefix(Int.random(in: 0...12, using: &rng)))
                }
                if lines.isEmpty { lines = ["v=0"] }
            }
            guard
                let negotiation = try? WHIPNegotiation(
                    offerText: lines.joined(separator: "\n"),
                    configuration: Self.configuration
                )
            else { continue }
            accepted += 1
            let answer = try SessionDescription(parsing: negotiation.answerText)
            if let video = negotiation.video {
                let section = try #require(answer.media.first { $0.attribute("mid") == video.mid && $0.port != 0 })
                #expect(section.formats.first == String(video.payloadType))
            }
        }
        #expect(accepted > 50)
    }
}
