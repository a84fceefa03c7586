import RTMPWire
import Testing

/// RTMP 1.0 §5.4 and §7.1 messages: one golden table drives parsing and serializing.
struct RTMPMessageTests {
    /// A message with its type ID and exact body.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var typeID: UInt8
        var payload: [UInt8]
        var message: RTMPMessage
        var testDescription: String { name }
    }

    static let all: [Case] = [
        Case(name: "Set Chunk Size", typeID: 1, payload: [0, 0, 0x10, 0], message: .setChunkSize(4096)),
        Case(name: "Abort", typeID: 2, payload: [0, 0, 0, 4], message: .abort(chunkStreamID: 4)),
        Case(
            name: "Acknowledgement",
            typeID: 3,
            payload: [0, 0x26, 0x25, 0xA0],
            message: .acknowledgement(sequenceNumber: 2_500_000)
        ),
        Case(
            name: "Stream Begin",
            typeID: 4,
            payload: [0, 0, 0, 0, 0, 1],
            message: .userControl(.streamBegin(streamID: 1))
        ),
        Case(
            name: "Stream EOF",
            typeID: 4,
            payload: [0, 1, 0, 0, 0, 1],
            message: .userControl(.streamEOF(streamID: 1))
        ),
        Case(
            name: "Set Buffer Length",
            typeID: 4,
            payload: [0, 3, 0, 0, 0, 1, 0, 0, 0x0B, 0xB8],
            message: .userControl(.setBufferLength(streamID: 1, milliseconds: 3000))
        ),
        Case(
            name: "Ping Request",
            typeID: 4,
            payload: [0, 6, 0, 0, 0, 9],
            message: .userControl(.pingRequest(timestamp: 9))
        ),
        Case(
            name: "Ping Response",
            typeID: 4,
            payload: [0, 7, 0, 0, 0, 9],
            message: .userControl(.pingResponse(timestamp: 9))
        ),
        Case(
            name: "Window Ack Size",
            typeID: 5,
            payload: [0, 0x26, 0x25, 0xA0],
            message: .windowAcknowledgementSize(2_500_000)
        ),
        Case(
            name: "Set Peer Bandwidth dynamic",
            typeID: 6,
            payload: [0, 0x26, 0x25, 0xA0, 2],
            message: .setPeerBandwidth(size: 2_500_000, limitType: .dynamic)
        ),
        Case(name: "Audio", typeID: 8, payload: [0xAF, 1, 9], message: .audio([0xAF, 1, 9])),
        Case(name: "Video", typeID: 9, payload: [0x17, 1, 0, 0, 0], message: .video([0x17, 1, 0, 0, 0])),
        Case(
            name: "Data",
            typeID: 18,
            payload: [0x02, 0, 1, 0x78, 0x05],
            message: .data([.string("x"), .null])
        ),
        Case(
            name: "Command",
            typeID: 20,
            payload: [0x02, 0, 1, 0x78, 0x00, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0, 0x05],
            message: .command([.string("x"), .number(1), .null])
        ),
        Case(
            name: "Aggregate is passed through",
            typeID: 22,
            payload: [1, 2],
            message: .unknown(typeID: 22, payload: [1, 2])
        ),
    ]

    @Test(arguments: all)
    func parses(_ c: Case) throws {
        let raw = RTMPRawMessage(
            chunkStreamID: 3,
            timestamp: 0,
            typeID: c.typeID,
            messageStreamID: 0,
            payload: c.payload
        )
        #expect(try RTMPMessage(raw: raw) == c.message)
    }

    @Test(arguments: all)
    func serializes(_ c: Case) {
        let raw = c.message.raw(timestamp: 7, messageStreamID: 1)
        #expect(raw.typeID == c.typeID && raw.payload == c.payload && raw.timestamp == 7 && raw.messageStreamID == 1)
    }

    @Test(arguments: [15, 17] as [UInt8])
    func amf3MessagesAreUnsupported(_ type: UInt8) {
        let raw = RTMPRawMessage(chunkStreamID: 3, timestamp: 0, typeID: type, messageStreamID: 0, payload: [0])
        #expect(throws: RTMPWireError.unsupportedAMF3(typeID: type)) { try RTMPMessage(raw: raw) }
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt8])
    func shortControlBodiesAreTypedErrors(_ type: UInt8) {
        let raw = RTMPRawMessage(chunkStreamID: 2, timestamp: 0, typeID: type, messageStreamID: 0, payload: [0, 0, 0])
        #expect(throws: RTMPWireError.self) { try RTMPMessage(raw: raw) }
    }

    @Test func protocolControlUsesChunkStreamTwo() {
        #expect(RTMPMessage.setChunkSize(1).defaultChunkStreamID == 2)
        #expect(RTMPMessage.command([]).defaultChunkStreamID == 3)
    }

    @Test func commandViewReadsNameTransactionObjectAndArguments() throws {
        let values: [AMF0Value] = [.string("publish"), .number(5), .null, .string("key"), .string("live")]
        let c = try RTMPCommand(values: values)
        #expect(c.name == "publish" && c.transactionID == 5 && c.commandObject == .null)
        #expect(c.streamName == "key" && c.arguments.count == 2)
        #expect(c.values == values)
    }

    @Test func commandWithoutNameIsMalformed() {
        #expect(throws: RTMPWireError.self) { try RTMPCommand(values: [.number(1)]) }
        #expect(throws: RTMPWireError.self) { try RTMPCommand(values: [.string("x"), .string("y")]) }
    }

    @Test func connectSuccessCarriesWhatOBSReads() {
        let c = RTMPCommand.connectSuccess(transactionID: 1)
        #expect(c.name == "_result" && c.statusCode == "NetConnection.Connect.Success")
        #expect(c.commandObject["fmsVer"]?.string == "FMS/3,0,1,123")
        #expect(c.arguments.first?["objectEncoding"]?.number == 0)
        #expect(
            RTMPCommand.onStatus(code: "NetStream.Publish.Start", description: "d").arguments.first?["level"]?.string
                == "status"
        )
    }
}
