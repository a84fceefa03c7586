/// RTMP 1.0 §7.2.1–7.2.2: the replies OBS and FFmpeg wait for during connect and publish.
extension RTMPCommand {
    /// `_result` for `connect` (§7.2.1.1) with the properties librtmp/OBS print and `objectEncoding` 0 (AMF0).
    public static func connectSuccess(transactionID: Double) -> RTMPCommand {
        RTMPCommand(
            name: "_result",
            transactionID: transactionID,
            commandObject: .object([
                AMF0Property("fmsVer", .string("FMS/3,0,1,123")),
                AMF0Property("capabilities", .number(31)),
            ]),
            arguments: [
                .object([
                    AMF0Property("level", .string("status")),
                    AMF0Property("code", .string("NetConnection.Connect.Success")),
                    AMF0Property("description", .string("Connection succeeded.")),
                    AMF0Property("objectEncoding", .number(0)),
                ])
            ]
        )
    }

    /// `_error` for a refused `connect`.
    public static func connectRejected(transactionID: Double, description: String) -> RTMPCommand {
        RTMPCommand(
            name: "_error",
            transactionID: transactionID,
            commandObject: .null,
            arguments: [status(level: "error", code: "NetConnection.Connect.Rejected", description: description)]
        )
    }

    /// A plain `_result` answering `transactionID`.
    public static func result(transactionID: Double, _ arguments: AMF0Value...) -> RTMPCommand {
        RTMPCommand(name: "_result", transactionID: transactionID, commandObject: .null, arguments: arguments)
    }

    /// `_result` for `createStream` (§7.2.1.3) carrying the new message stream ID.
    public static func createStreamResult(transactionID: Double, streamID: UInt32) -> RTMPCommand {
        result(transactionID: transactionID, .number(Double(streamID)))
    }

    /// `onStatus` (§7.2.2) with an info object.
    public static func onStatus(level: String = "status", code: String, description: String) -> RTMPCommand {
        RTMPCommand(
            name: "onStatus",
            transactionID: 0,
            commandObject: .null,
            arguments: [status(level: level, code: code, description: description)]
        )
    }

    /// `onFCPublish`, which FFmpeg and OBS expect after FCPublish.
    public static func onFCPublish(streamName: String) -> RTMPCommand {
        RTMPCommand(
            name: "onFCPublish",
            transactionID: 0,
            commandObject: .null,
            arguments: [
                .object([
                    AMF0Property("code", .string("NetStream.Publish.Start")),
                    AMF0Property("description", .string(streamName)),
                ])
            ]
        )
    }

    /// The `{level, code, description}` info object.
    public static func status(level: String, code: String, description: String) -> AMF0Value {
        .object([
            AMF0Property("level", .string(level)),
            AMF0Property("code", .string(code)),
            AMF0Property("description", .string(description)),
        ])
    }

    /// The info object's `code`, when this is an `onStatus` or `_error`.
    public var statusCode: String? { arguments.first?["code"]?.string }
}
