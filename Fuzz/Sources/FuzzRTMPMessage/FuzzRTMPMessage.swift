import FuzzSupport
import RTMPWire

/// RTMP messages and commands: the first byte is the message type ID, the rest its payload.
///
/// Any payload parses or throws; a parsed message re-serializes to a payload that parses to the same bytes,
/// and command messages go on through `RTMPCommand` and the user control parser.
@main enum FuzzRTMPMessageEntry {
    static func main() { FuzzDriver.run(fuzzRTMPMessage) }
}

/// One libFuzzer input.
func fuzzRTMPMessage(_ input: [UInt8]) {
    guard !input.isEmpty else { return }
    let raw = RTMPRawMessage(
        chunkStreamID: 3, timestamp: 0, typeID: input[0], messageStreamID: 1,
        payload: Array(input.dropFirst()))
    let amf0 = AMF0Decoder(maxDepth: 16)
    guard let message = try? RTMPMessage(raw: raw, amf0: amf0) else { return }
    let payload = message.payload
    guard let again = try? RTMPMessage(raw: message.raw(messageStreamID: 1), amf0: amf0) else {
        fatalError("re-serialized RTMP message type \(raw.typeID) failed to parse")
    }
    precondition(again.payload == payload, "RTMP message round trip changed the payload")
    switch message {
    case .command(let values), .data(let values):
        if let command = try? RTMPCommand(values: values) {
            _ = command.streamName
            _ = command.statusCode
            precondition(command.values.count == max(values.count, 3), "RTMPCommand lost values")
        }
    case .userControl(let event):
        precondition((try? UserControlEvent.parse(event.serialize())) == event, "user control round trip")
    default:
        break
    }
}
