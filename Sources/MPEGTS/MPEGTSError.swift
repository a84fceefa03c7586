import CodecFormats

/// Why a transport stream could not be demuxed or turned into frames (ISO/IEC 13818-1); cases carry context.
public enum MPEGTSError: Error, Equatable, Sendable {
    /// More bytes were skipped looking for the 0x47 sync byte than were read as packets: not a transport stream.
    case notTransportStream(skippedBytes: Int)
    /// An adaptation_field_length running past the 188-byte packet (§2.4.3.4).
    case badAdaptationFieldLength(Int)
    /// The program lists no elementary stream this gateway takes; names the stream_type values it found.
    case noSupportedStream(streamTypes: [UInt8])
    /// An H.264 or AAC payload CodecFormats refused, on the named PID.
    case codec(pid: Int, CodecFormatError)
}
