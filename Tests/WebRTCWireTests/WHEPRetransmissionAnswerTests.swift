import Foundation
import TestSupport
import Testing
import WebRTCWire

/// RFC 4588 §8.1 in a WHEP answer: when the offer pairs an `rtx` payload type with the H.264 we send (`apt=`), the
/// answer keeps it, names our RTX SSRC and groups it with the media SSRC (`ssrc-group:FID`); otherwise no RTX.
struct WHEPRetransmissionAnswerTests {
    /// One offer, what the stream sends, and the RTX payload type expected in the answer (nil: none).
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let offer: String
        let sendable: [String]
        let video: UInt8
        let rtx: UInt8?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "Chromium rung", offer: WHEPOffers.chromium, sendable: ["42e01f"], video: 108, rtx: 109),
        Case(name: "Chromium High passthrough", offer: WHEPOffers.chromium, sendable: ["640028"], video: 41, rtx: 42),
        Case(name: "aiortc rung", offer: WHEPOffers.aiortc, sendable: ["42e01f"], video: 101, rtx: 102),
        Case(name: "aiortc baseline", offer: WHEPOffers.aiortc, sendable: ["42001e"], video: 99, rtx: 100),
        Case(name: "Firefox rung", offer: WHEPOffers.firefox, sendable: ["42e01f"], video: 126, rtx: 127),
        Case(name: "Safari Main", offer: WHEPOffers.safari, sendable: ["4d001f"], video: 96, rtx: 97),
        Case(name: "offer without rtx", offer: Self.withoutRTX, sendable: ["42e01f"], video: 101, rtx: nil),
    ]

    /// aiortc's offer with its `rtx` payload types taken out.
    static let withoutRTX: String = {
        let lines = WHEPOffers.aiortc.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let kept = lines.filter { !$0.contains("rtx/90000") && !$0.contains(" apt=") }
        return kept.joined(separator: "\n").replacingOccurrences(of: "97 98 99 100 101 102", with: "97 99 101")
    }()

    static let fingerprint = DTLSFingerprint(
        sdpValue: "sha-256 " + Array(repeating: "AB", count: 32).joined(separator: ":")
    )!

    static func configuration(rtx: UInt32?) -> WHEPAnswerConfiguration {
        WHEPAnswerConfiguration(
            iceUfrag: "whepUfrag",
            icePwd: "whepPasswordOfTwentyFourC",
            fingerprint: Self.fingerprint,
            candidates: [TransportAddress(ip: [127, 0, 0, 1], port: 8189)!],
            sessionID: 42,
            cname: "sluice-test",
            videoSSRC: 1_111,
            audioSSRC: 2_222,
            videoRTXSSRC: rtx
        )
    }

    static func negotiate(_ c: Case, rtx: UInt32?) throws -> WHEPNegotiation {
        try WHEPNegotiation(
            offer: WHIPOffer(parsing: c.offer),
            sendable: WHEPSendable(video: c.sendable.compactMap(H264ProfileLevelID.init(hex:)), audio: true),
            configuration: configuration(rtx: rtx)
        )
    }

    @Test(arguments: cases) func rtxIsAnsweredWhenOfferedForOurPayloadType(_ c: Case) throws {
        let n = try Self.negotiate(c, rtx: 3_333)
        #expect(n.video?.payloadType == c.video)
        #expect(n.video?.retransmission?.payloadType == c.rtx)
        let video = try #require(try SessionDescription(parsing: n.answerText).media.first { $0.kind == "video" })
        guard let rtx = c.rtx else {
            #expect(video.formats == ["\(c.video)"])
            #expect(video.attributes("ssrc-group").isEmpty && video.attributes("ssrc").count == 2)
            return
        }
        #expect(video.formats == ["\(c.video)", "\(rtx)"])
        #expect(video.attributes("rtpmap").contains("\(rtx) rtx/90000"))
        #expect(video.attributes("fmtp").contains { $0.hasPrefix("\(rtx) apt=\(c.video)") })
        #expect(video.attributes("ssrc-group") == ["FID 1111 3333"])
        #expect(video.attributes("ssrc").contains("3333 cname:sluice-test"))
        #expect(video.attributes("ssrc").contains("3333 msid:sluice-test sluice-test-video"))
    }

    @Test(arguments: cases) func withoutAnRTXSSRCTheAnswerHasNoRTX(_ c: Case) throws {
        let n = try Self.negotiate(c, rtx: nil)
        #expect(n.video?.retransmission == nil)
        let video = try #require(try SessionDescription(parsing: n.answerText).media.first { $0.kind == "video" })
        #expect(video.formats == ["\(c.video)"])
    }
}
