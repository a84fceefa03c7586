import TestSupport
import Testing
import WebRTCWire

/// RFC 6184 packetization for our own publisher.
@Suite struct H264PacketizerTests {
    @Test func aggregatesSmallNALUnitsIntoOneSTAPA() throws {
        var packetizer = H264Packetizer(payloadType: 96, ssrc: 5, sequenceNumber: 65_535)
        let aud: [UInt8] = [0x09, 0xF0]
        let packets = try packetizer.packetize(
            avcc: TestNAL.avcc([aud, TestNAL.sps, TestNAL.pps, [0x65, 0x88, 0x01]]),
            timestamp: 9
        )
        #expect(
            packets.count == 1 && packets[0].marker && packets[0].sequenceNumber == 65_535 && packets[0].timestamp == 9
        )
        #expect(packets[0].payload == hex(DepacketizerCase.spsPPS + " 0003 658801"))
        #expect(packetizer.sequenceNumber == 0)
    }

    @Test func fragmentsLargeNALUnitsIntoFUA() throws {
        var packetizer = H264Packetizer(maxPayloadSize: 16, payloadType: 96, ssrc: 5, sequenceNumber: 1)
        let nal: [UInt8] = [0x65] + Array(1...29)
        let packets = try packetizer.packetize(avcc: TestNAL.avcc([nal]), timestamp: 0)
        let first: [UInt8] = [0x7C, 0x85] + Array(1...14)
        let middle: [UInt8] = [0x7C, 0x05] + Array(15...28)
        let last: [UInt8] = [0x7C, 0x45, 29]
        #expect(packets.map(\.payload) == [first, middle, last])
        #expect(packets.map(\.marker) == [false, false, true] && packets.map(\.sequenceNumber) == [1, 2, 3])
    }

    @Test func rejectsMalformedAVCC() {
        var packetizer = H264Packetizer(payloadType: 96, ssrc: 5, sequenceNumber: 1)
        #expect(throws: WebRTCWireError.truncated(what: "AVCC NAL unit", offset: 4, wanted: 9, available: 2)) {
            try packetizer.packetize(avcc: [0, 0, 0, 9, 0x65, 1], timestamp: 0)
        }
        #expect(throws: WebRTCWireError.truncated(what: "AVCC length", offset: 0, wanted: 4, available: 2)) {
            try packetizer.packetize(avcc: [0, 0], timestamp: 0)
        }
    }

    @Test(arguments: [1_200, 300, 40]) func roundTripsThroughTheDepacketizerWithinTheSizeLimit(limit: Int) throws {
        var packetizer = H264Packetizer(maxPayloadSize: limit, payloadType: 96, ssrc: 5, sequenceNumber: 65_000)
        var depacketizer = H264Depacketizer()
        let gop = TestNAL.gop(count: 10, seed: limit)
        var units: [[UInt8]] = []
        for (i, nals) in gop.enumerated() {
            for packet in try packetizer.packetize(avcc: TestNAL.avcc(nals), timestamp: UInt32(i * 3_000)) {
                #expect(packet.payload.count <= limit)
                for case .accessUnit(let unit) in depacketizer.push(packet) { units.append(unit.data) }
            }
        }
        #expect(units == gop.map(TestNAL.avcc))
    }
}

/// Our publisher's offer against our own answerer, and reading the answer back.
@Suite struct WHIPPublisherOfferTests {
    static let offer = WHIPPublisherOffer(
        iceUfrag: "pubU",
        icePwd: "publisherpassword0123456",
        fingerprint: WHIPNegotiationTests.ourFingerprint,
        videoSSRC: 0x1111,
        audioSSRC: 0x2222,
        cname: "sluice-bench",
        sessionID: 7
    )

    @Test func ourOfferIsAcceptedByOurAnswerer() throws {
        let negotiation = try WHIPNegotiation(
            offerText: Self.offer.description.text,
            configuration: WHIPNegotiationTests.configuration
        )
        #expect(negotiation.video?.payloadType == 96 && negotiation.video?.ssrcs == [0x1111])
        #expect(negotiation.audio?.payloadType == 111 && negotiation.audio?.ssrcs == [0x2222])
        #expect(negotiation.dtlsRole == .server && negotiation.offer.iceUfrag == "pubU")
        #expect(negotiation.answer.attribute("group") == "BUNDLE 0 1")
    }

    @Test func answerGivesCandidatesRoleAndPayloadTypes() throws {
        let negotiation = try WHIPNegotiation(
            offerText: Self.offer.description.text,
            configuration: WHIPNegotiationTests.configuration
        )
        let answer = try WHIPRemoteAnswer(parsing: negotiation.answerText)
        #expect(answer.candidates == [TransportAddress("127.0.0.1:8189")!, TransportAddress("[::1]:8189")!])
        #expect(answer.dtlsRole == .client && answer.videoPayloadType == 96 && answer.audioPayloadType == 111)
        #expect(
            answer.description.iceUfrag == "sluI"
                && answer.description.fingerprint == WHIPNegotiationTests.ourFingerprint
        )
    }

    @Test func videoOnlyOfferHasOneSection() throws {
        var offer = Self.offer
        offer.audioSSRC = nil
        let description = offer.description
        #expect(description.media.count == 1 && description.attribute("group") == "BUNDLE 0")
        let negotiation = try WHIPNegotiation(
            offerText: description.text,
            configuration: WHIPNegotiationTests.configuration
        )
        #expect(negotiation.audio == nil && negotiation.video?.payloadType == 96)
    }
}
