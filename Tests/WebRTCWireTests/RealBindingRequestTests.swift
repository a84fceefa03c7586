import TestSupport
import Testing
import WebRTCWire

/// Binding requests captured on this machine (2026-11-22) from real publishers checking our answer's candidate.
struct RealBindingRequest: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let attributes: [STUNAttribute]
    var testDescription: String { name }

    /// Our answer's ice-pwd: the key every request is signed with.
    static let key = Array("sluicepwd0123456789abcdef".utf8)

    static let all: [RealBindingRequest] = [
        RealBindingRequest(
            name: "FFmpeg 9 WHIP muxer",
            bytes: hex(
                """
                0001004c 2112a442 fe9c297b 9a287bc8 350e0831 0006000d 736c7549 3a386564 63343639 38000000
                00250000 00240004 7effffff 802a0008 23d24249 4dbb82e5 00080014 ad2bb266 a7b9060e 2eca2f2e
                2f7fac6d 08d9c6b1 80280004 4e340841
                """
            ),
            attributes: [
                .username("sluI:8edc4698"), .useCandidate, .priority(0x7EFF_FFFF),
                .iceControlling(0x23D2_4249_4DBB_82E5),
            ]
        ),
        RealBindingRequest(
            name: "Chromium 156",
            bytes: hex(
                """
                0001004c 2112a442 76656d65 4b635362 4369596d 00060009 736c7549 3a423242 57000000 c0570004
                00010000 802a0008 9da46910 a19a1af5 00240004 6e7c1eff 00080014 1589e001 d0e447b0 125ff9d1
                9d3372ee 0f8e27c3 80280004 6586dc60
                """
            ),
            attributes: [
                .username("sluI:B2BW"), .other(type: 0xC057, value: [0, 1, 0, 0]),
                .iceControlling(0x9DA4_6910_A19A_1AF5),
                .priority(0x6E7C_1EFF),
            ]
        ),
        RealBindingRequest(
            name: "aiortc 1.16",
            bytes: hex(
                """
                00010044 2112a442 cd3880e3 5e565541 c988510d 00060009 736c7549 3a76774c 62000000 00240004
                6effffff 802a0008 ba312315 26b0dc7d 00080014 18b75b04 15315c9a 62a0b3bf 953a4574 7940f7ee
                80280004 2c0cb7db
                """
            ),
            attributes: [.username("sluI:vwLb"), .priority(0x6EFF_FFFF), .iceControlling(0xBA31_2315_26B0_DC7D)]
        ),
    ]
}

/// What real controlling agents send to our ICE-lite port, and our answers to it.
@Suite struct RealBindingRequestTests {
    @Test(arguments: RealBindingRequest.all) func authenticatesWithOurPassword(_ r: RealBindingRequest) throws {
        let request = try STUNMessage(parsing: r.bytes)
        #expect(request.type == .bindingRequest)
        #expect(Array(request.attributes.dropLast(2)) == r.attributes)
        #expect(request.isAuthentic(key: RealBindingRequest.key))
        #expect(!request.isAuthentic(key: Array("sluicepwd0123456789abcdeF".utf8)))
        #expect(request.iceUsernameFragments?.receiver == "sluI")
    }

    @Test(arguments: RealBindingRequest.all) func successResponseAuthenticatesAndEchoesTheSource(
        _ r: RealBindingRequest
    ) throws {
        let request = try STUNMessage(parsing: r.bytes)
        let source = TransportAddress("192.0.2.2:39655")!
        let response = STUNMessage.bindingSuccess(to: request, source: source)
        let parsed = try STUNMessage(
            parsing: response.serialized(integrityKey: RealBindingRequest.key, fingerprint: true)
        )
        #expect(parsed.type == .bindingSuccess && parsed.transactionID == request.transactionID)
        #expect(parsed.xorMappedAddress == source && parsed.isAuthentic(key: RealBindingRequest.key))
    }
}
