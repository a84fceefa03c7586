/// RTMP 1.0 §7.2: a command message read as (name, transaction ID, command object, arguments).
public struct RTMPCommand: Equatable, Sendable {
    /// Procedure name, e.g. `connect`, `publish`, `_result`.
    public var name: String
    /// Transaction ID (0 for calls that expect no answer).
    public var transactionID: Double
    /// The command object (`null` when the command has none).
    public var commandObject: AMF0Value
    /// Remaining arguments.
    public var arguments: [AMF0Value]

    /// Creates a command.
    public init(name: String, transactionID: Double, commandObject: AMF0Value = .null, arguments: [AMF0Value] = []) {
        self.name = name
        self.transactionID = transactionID
        self.commandObject = commandObject
        self.arguments = arguments
    }

    /// Reads the AMF0 values of a type-20 message.
    public init(values: [AMF0Value]) throws(RTMPWireError) {
        guard let name = values.first?.string else { throw .malformedCommand(reason: "first value is not a name") }
        // Some clients omit the transaction ID on notifications; treat it as 0.
        let tx = values.count > 1 ? values[1].number : 0
        guard let tx else { throw .malformedCommand(reason: "\(name): transaction ID is not a number") }
        self.init(
            name: name,
            transactionID: tx,
            commandObject: values.count > 2 ? values[2] : .null,
            arguments: values.count > 3 ? Array(values[3...]) : []
        )
    }

    /// The AMF0 values of this command.
    public var values: [AMF0Value] { [.string(name), .number(transactionID), commandObject] + arguments }

    /// This command as a typed message.
    public var message: RTMPMessage { .command(values) }

    /// The first argument as a string (the stream name of publish, releaseStream, FCPublish).
    public var streamName: String? { arguments.first?.string }
}
