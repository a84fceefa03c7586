/// RTMP 1.0 §6.1: a message as reassembled from chunks, before its payload is interpreted.
public struct RTMPRawMessage: Equatable, Sendable {
    /// The chunk stream it travelled on (2…65599).
    public var chunkStreamID: UInt32
    /// Absolute timestamp in milliseconds (wraps at 2^32).
    public var timestamp: UInt32
    /// Message type ID (§5.4, §7.1).
    public var typeID: UInt8
    /// Message stream ID (0 for control and NetConnection commands).
    public var messageStreamID: UInt32
    /// The message body.
    public var payload: [UInt8]

    /// Creates a raw message.
    public init(chunkStreamID: UInt32, timestamp: UInt32, typeID: UInt8, messageStreamID: UInt32, payload: [UInt8]) {
        self.chunkStreamID = chunkStreamID
        self.timestamp = timestamp
        self.typeID = typeID
        self.messageStreamID = messageStreamID
        self.payload = payload
    }
}
