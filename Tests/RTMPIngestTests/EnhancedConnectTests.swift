import MediaCore
import RTMPIngest
import RTMPWire
import Testing

/// E-RTMP v2 capability exchange in `connect`: an enhanced client learns what the gateway accepts, a classic one
/// gets the classic reply byte for byte.
struct EnhancedConnectTests {
    static func connectReply(_ object: AMF0Value) throws -> RTMPCommand {
        var machine = RTMPSessionStateMachine()
        let actions = machine.received(.command([.string("connect"), .number(1), object]))
        let replies = actions.compactMap {
            if case .send(.command(let values), _) = $0 { try? RTMPCommand(values: values) } else { nil }
        }
        return try #require(replies.first { $0.name == "_result" })
    }

    @Test func enhancedClientLearnsTheAcceptedFourCCs() throws {
        let reply = try Self.connectReply(
            .object([
                AMF0Property("app", .string("live")),
                AMF0Property("fourCcList", .strictArray([.string("av01"), .string("hvc1"), .string("vp09")])),
            ])
        )
        #expect(reply.commandObject["fourCcList"] == .strictArray([.string("hvc1"), .string("av01"), .string("avc1")]))
        #expect(reply.commandObject["videoFourCcInfoMap"]?["hvc1"] == .number(5))
        #expect(reply.commandObject["videoFourCcInfoMap"]?["vp09"] == nil)
    }

    @Test func classicClientGetsTheClassicReply() throws {
        let reply = try Self.connectReply(.object([AMF0Property("app", .string("live"))]))
        #expect(reply == .connectSuccess(transactionID: 1))
        #expect(reply.commandObject["fourCcList"] == nil)
    }
}
