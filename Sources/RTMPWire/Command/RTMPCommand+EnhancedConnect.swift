/// E-RTMP v2 "Enhancing NetConnection connect Command": the client lists its codecs in `fourCcList` /
/// `videoFourCcInfoMap`, and the server's `_result` answers with the ones it accepts.
extension RTMPCommand {
    /// FourCcInfoMask: the server can decode (ladder) and forward (passthrough) the codec, not encode it.
    static let canDecodeAndForward = Double(0x01 | 0x04)

    /// True when a `connect` command object opens the E-RTMP capability exchange.
    public var requestsEnhancedCapabilities: Bool {
        commandObject["fourCcList"] != nil || commandObject["videoFourCcInfoMap"] != nil
    }

    /// `connectSuccess` whose command object also names the video codecs the server accepts.
    public static func connectSuccess(transactionID: Double, acceptedVideo fourCCs: [FourCC]) -> RTMPCommand {
        var reply = connectSuccess(transactionID: transactionID)
        guard case .object(var properties) = reply.commandObject else { return reply }
        properties.append(AMF0Property("fourCcList", .strictArray(fourCCs.map { .string("\($0)") })))
        properties.append(
            AMF0Property(
                "videoFourCcInfoMap",
                .object(fourCCs.map { AMF0Property("\($0)", .number(canDecodeAndForward)) })
            )
        )
        reply.commandObject = .object(properties)
        return reply
    }
}
