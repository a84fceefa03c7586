/// Why an FLV tag body could not be read (Adobe FLV spec v10.1, Annex E.4).
public enum FLVError: Error, Equatable, Sendable {
    /// The body ended before the field named by `field`.
    case truncated(field: String, size: Int)
    /// A codec other than AVC (7) in a video tag.
    case unsupportedVideoCodec(UInt8)
    /// A sound format other than AAC (10) in an audio tag.
    case unsupportedAudioFormat(UInt8)
    /// An AVCPacketType / AACPacketType outside the spec's values.
    case unknownPacketType(UInt8)
    /// A body parsed as E-RTMP whose first byte lacks IsExHeader (E-RTMP v2, ExVideoTagHeader).
    case notEnhanced(UInt8)
    /// An E-RTMP VideoFrameType outside 1…5.
    case unknownFrameType(UInt8)
    /// An E-RTMP AvMultitrackType outside 0…2.
    case unknownMultitrackType(UInt8)
    /// A Multitrack track declared more bytes than the packet has left.
    case trackOverrun(trackID: UInt8, size: Int, remaining: Int)
}
