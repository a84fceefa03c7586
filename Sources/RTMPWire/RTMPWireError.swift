/// Why RTMP bytes could not be read or written; every case carries the offending values.
public enum RTMPWireError: Error, Equatable, Sendable {
    /// C0 asked for an RTMP version other than 3 (§5.2.2).
    case unsupportedHandshakeVersion(UInt8)
    /// C0 asked for RTMPE (version 6), which is not supported.
    case encryptedHandshakeUnsupported
    /// The handshake received bytes after it finished.
    case handshakeAlreadyComplete
    /// A type 1/2/3 chunk arrived on a chunk stream with no previous header (§5.3.1.2).
    case missingPreviousHeader(chunkStreamID: UInt32, format: UInt8)
    /// A message header declared a length above the configured limit.
    case messageTooLarge(size: Int, limit: Int)
    /// A Set Chunk Size asked for a size outside 1…limit (§5.4.1).
    case chunkSizeOutOfRange(size: Int, limit: Int)
    /// More concurrent chunk streams than the configured limit.
    case tooManyChunkStreams(limit: Int)
    /// A message header changed mid-message on a chunk stream.
    case headerChangedMidMessage(chunkStreamID: UInt32)
    /// A message body ended early; `what` names the message or field.
    case truncated(what: String, size: Int)
    /// An AMF0 type marker this implementation does not read (AMF0 spec §2.1).
    case unsupportedAMF0Marker(UInt8, offset: Int)
    /// AMF0 values nested deeper than the limit.
    case amf0TooDeep(limit: Int)
    /// An AMF0 reference (marker 7) or other construct that cannot be resolved.
    case invalidAMF0(reason: String, offset: Int)
    /// AMF3 command/data messages (types 15/17) are not supported.
    case unsupportedAMF3(typeID: UInt8)
    /// A command message whose first values are not (name, transaction ID).
    case malformedCommand(reason: String)
}
