import Foundation
import TestSupport
import Testing
import WebRTCWire

/// What a WHEP answer must pick from each real viewer's recvonly offer, for what the stream can send.
struct WHEPCase: Sendable, CustomTestStringConvertible {
    let name: String
    let offer: String
    /// Profile-level-ids the stream can send, best first.
    let sendable: [String]
    let audio: Bool
    /// Expected H.264 payload type and which sendable entry it carries (nil: no video answered).
    let video: (pt: UInt8, choice: Int)?
    /// Expected Opus payload type (nil: audio section rejected).
    let audioPT: UInt8?
    var testDescription: String { name }

    static let all: [WHEPCase] = [
        WHEPCase(
            name: "Chromium, WebRTC rung only",
            offer: WHEPOffers.chromium,
            sendable: ["42e01f"],
            audio: true,
            video: (108, 0),
            audioPT: 111
        ),
        // Chromium lists no High profile: a High stream goes out under High 4:4:4 Predictive, whose decoders take High.
        WHEPCase(
            name: "Chromium, High passthrough",
            offer: WHEPOffers.chromium,
            sendable: ["640028", "42e01f"],
            audio: true,
            video: (41, 0),
            audioPT: 111
        ),
        WHEPCase(
            name: "Chromium, Main matches exactly",
            offer: WHEPOffers.chromium,
            sendable: ["4d401f", "42e01f"],
            audio: false,
            video: (116, 0),
            audioPT: nil
        ),
        WHEPCase(
            name: "aiortc, High skipped for the rung",
            offer: WHEPOffers.aiortc,
            sendable: ["64001f", "42e01f"],
            audio: true,
            video: (101, 1),
            audioPT: 96
        ),
        WHEPCase(
            name: "aiortc, plain baseline",
            offer: WHEPOffers.aiortc,
            sendable: ["42001e"],
            audio: true,
            video: (99, 0),
            audioPT: 96
        ),
        // Hand-written offers (see WHEPOffers): Firefox's only mode-1 H.264 is 42e01f (97 is mode 0, never chosen).
        WHEPCase(
            name: "Firefox, High passthrough refused, rung on its mode-1 H.264",
            offer: WHEPOffers.firefox,
            sendable: ["640028", "42e01f"],
            audio: true,
            video: (126, 1),
            audioPT: 109
        ),
        // Safari lists constrained high (640c1f): it takes Main, not plain High (which may carry B-frames).
        WHEPCase(
            name: "Safari, Main on its constrained-high payload type",
            offer: WHEPOffers.safari,
            sendable: ["4d001f", "42e01f"],
            audio: true,
            video: (96, 0),
            audioPT: 111
        ),
        WHEPCase(
            name: "Safari, High passthrough refused, baseline rung matched exactly",
            offer: WHEPOffers.safari,
            sendable: ["640028", "42e01f"],
            audio: false,
            video: (98, 1),
            audioPT: nil
        ),
        WHEPCase(
            name: "aiortc, audio-only stream",
            offer: WHEPOffers.aiortc,
            sendable: [],
            audio: true,
            video: nil,
            audioPT: 96
        ),
    ]
}

@Suite("WHEP answers to real recvonly offers")
struct WHEPNegotiationTests {
    static let configuration = WHEPAnswerConfiguration(
        iceUfrag: "whepUfrag",
        icePwd: "whepPasswordOfTwentyFourC",
        fingerprint: DTLSFingerprint(sdpValue: "sha-256 " + Array(repeating: "AB", count: 32).joined(separator: ":"))!,
        candidates: [TransportAddress(ip: [127, 0, 0, 1], port: 8189)!],
        sessionID: 42,
        cname: "sluice-test",
        videoSSRC: 1_111,
        audioSSRC: 2_222
    )

    static func negotiate(_ offer: String, _ sendable: [String], audio: Bool) throws -> WHEPNegotiation {
        try WHEPNegotiation(
            offer: WHIPOffer(parsing: offer),
            sendable: WHEPSendable(video: sendable.compactMap(H264ProfileLevelID.init(hex:)), audio: audio),
            configuration: configuration
        )
    }

    @Test(arguments: WHEPCase.all) func picksPayloadTypesFromRealOffers(_ c: WHEPCase) throws {
        let n = try Self.negotiate(c.offer, c.sendable, audio: c.audio)
        #expect(n.video?.payloadType == c.video?.pt)
        #expect(n.videoChoice == c.video?.choice)
        #expect(n.audio?.payloadType == c.audioPT)
        #expect(n.dtlsRole == .server)
    }

    @Test(arguments: WHEPCase.all) func answerIsSendonlyWithOurSSRCsAndParsesBack(_ c: WHEPCase) throws {
        let n = try Self.negotiate(c.offer, c.sendable, audio: c.audio)
        let answer = try SessionDescription(parsing: n.answerText)
        #expect(answer.attribute("ice-lite") == "")
        #expect(answer.media.count == 2)
        for section in answer.media {
            let accepted = (section.kind == "video" ? c.video != nil : c.audioPT != nil)
            #expect(section.port == (accepted ? 8189 : 0), "\(section.kind)")
            guard accepted else {
                #expect(section.attribute("inactive") == "")
                continue
            }
            let ssrc = section.kind == "video" ? 1_111 : 2_222
            #expect(section.attribute("sendonly") == "")
            #expect(section.formats.count == 1)
            #expect(section.attributes("ssrc").contains("\(ssrc) cname:sluice-test"))
            #expect(section.attribute("setup") == "passive")
            #expect(section.attribute("candidate") == "1 1 udp 2130706431 127.0.0.1 8189 typ host")
        }
        let bundled = [c.video.map { _ in "0" }, c.audioPT.map { _ in "1" }].compactMap { $0 }
        #expect(answer.attribute("group") == (["BUNDLE"] + bundled).joined(separator: " "))
    }

    /// The whole answer to aiortc's offer for a stream that sends constrained baseline and Opus.
    @Test func aiortcAnswerIsExactlyThis() throws {
        let common = """
            a=sendonly
            a=ice-ufrag:whepUfrag
            a=ice-pwd:whepPasswordOfTwentyFourC
            a=fingerprint:sha-256 \(Array(repeating: "AB", count: 32).joined(separator: ":"))
            a=setup:passive
            a=rtcp-mux
            """
        let candidates = """
            a=candidate:1 1 udp 2130706431 127.0.0.1 8189 typ host
            a=end-of-candidates
            """
        let expected = """
            v=0
            o=- 42 1 IN IP4 127.0.0.1
            s=-
            t=0 0
            a=ice-lite
            a=group:BUNDLE 0 1
            a=msid-semantic: WMS sluice-test
            m=video 8189 UDP/TLS/RTP/SAVPF 101
            c=IN IP4 127.0.0.1
            a=mid:0
            \(common)
            a=rtpmap:101 H264/90000
            a=fmtp:101 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
            a=rtcp-fb:101 nack
            a=rtcp-fb:101 nack pli
            a=rtcp-fb:101 goog-remb
            a=msid:sluice-test sluice-test-video
            a=ssrc:1111 cname:sluice-test
            a=ssrc:1111 msid:sluice-test sluice-test-video
            \(candidates)
            m=audio 8189 UDP/TLS/RTP/SAVPF 96
            c=IN IP4 127.0.0.1
            a=mid:1
            \(common)
            a=rtpmap:96 opus/48000/2
            a=msid:sluice-test sluice-test-audio
            a=ssrc:2222 cname:sluice-test
            a=ssrc:2222 msid:sluice-test sluice-test-audio
            \(candidates)

            """.replacingOccurrences(of: "\n", with: "\r\n")
        let answer = try Self.negotiate(WHEPOffers.aiortc, ["42c01f"], audio: true).answerText
        #expect(answer == expected)
    }

    @Test func videoAnswerKeepsTheOfferedFmtpAndFeedback() throws {
        let n = try Self.negotiate(WHEPOffers.chromium, ["42e01f"], audio: true)
        let video = try #require(try SessionDescription(parsing: n.answerText).media.first)
        #expect(video.attribute("fmtp") == "108 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f")
        #expect(video.attributes("rtcp-fb") == ["108 nack", "108 nack pli", "108 ccm fir", "108 goog-remb"])
        #expect(video.attribute("rtcp-rsize") == "")
    }

    @Test func refusesOffersItCannotServeWithAReason() {
        #expect(
            throws: WebRTCWireError.sdpUnacceptable(
                .noSendableH264(offered: ["42001f", "42e01f"], sendable: ["4d001f"])
            )
        ) {
            try Self.negotiate(WHEPOffers.aiortc, ["4d001f"], audio: true)
        }
        let sendonly = WHEPOffers.aiortc.replacingOccurrences(of: "a=recvonly", with: "a=sendonly")
        #expect(throws: WebRTCWireError.sdpUnacceptable(.notReceiving(mid: "0", direction: "sendonly"))) {
            try Self.negotiate(sendonly, ["42e01f"], audio: true)
        }
        let noOpus = WHEPOffers.aiortc.replacingOccurrences(of: "opus/48000/2", with: "telephone-event/8000")
        #expect(throws: WebRTCWireError.sdpUnacceptable(.noOpus)) {
            try Self.negotiate(noOpus, ["42e01f"], audio: true)
        }
        let videoOnly = WHEPOffers.aiortc.components(separatedBy: "m=audio").first!
        #expect(throws: WebRTCWireError.sdpUnacceptable(.nothingToSend)) {
            try Self.negotiate(videoOnly, [], audio: true)
        }
    }
}

/// RFC 6184 §8.1 profile-level-ids and which receivers take which streams (H.264 Annex A.2).
@Suite("H.264 profile-level-id")
struct H264ProfileLevelIDTests {
    @Test(arguments: [
        ("42e01f", H264Profile.constrainedBaseline), ("42c01e", .constrainedBaseline), ("42001f", .baseline),
        ("4d001f", .main), ("4d801f", .constrainedBaseline), ("640c1f", .constrainedHigh), ("640028", .high),
        ("f4001f", .high444Predictive),
    ])
    func classifiesProfiles(_ hex: String, _ profile: H264Profile) throws {
        let id = try #require(H264ProfileLevelID(hex: hex))
        #expect(id.profile == profile)
        #expect(id.description == hex)
    }

    @Test(arguments: [
        // receiver, stream, decodable
        ("42e01f", "42c01e", true), ("42001f", "42e01f", true), ("42e01f", "42001f", false),
        ("4d001f", "42e01f", true), ("4d001f", "640028", false), ("f4001f", "640028", true),
        ("640028", "4d001f", true), ("4d001f", "42001f", false),
    ])
    func receiversTakeIncludedProfilesOnly(_ receiver: String, _ stream: String, _ expected: Bool) throws {
        let r = try #require(H264ProfileLevelID(hex: receiver))
        let s = try #require(H264ProfileLevelID(hex: stream))
        #expect(r.receives(s) == expected)
    }

    @Test func readsTheProfileFromAnAVCDecoderConfigurationRecord() {
        #expect(H264ProfileLevelID(avcC: [1, 0x64, 0x00, 0x28, 0xFF]) == H264ProfileLevelID(hex: "640028"))
        #expect(H264ProfileLevelID(avcC: [0, 0x64, 0x00, 0x28]) == nil)
        #expect(H264ProfileLevelID(hex: "zz0028") == nil)
    }
}
