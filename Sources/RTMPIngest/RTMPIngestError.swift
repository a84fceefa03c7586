import CodecFormats
import RTMPWire

/// Why an RTMP session was closed; each case names what went wrong.
public enum RTMPIngestError: Error, Equatable, Sendable {
    /// Bytes that break the RTMP wire format (handshake, chunks, AMF0, messages).
    case wire(RTMPWireError)
    /// An FLV audio/video body that could not be read.
    case flv(FLVError)
    /// A sequence header or NAL stream CodecFormats refused.
    case codec(CodecFormatError)
    /// An E-RTMP video FourCC the gateway does not carry (it accepts hvc1, av01 and avc1).
    case unsupportedVideoCodec(FourCC)
    /// An E-RTMP audio FourCC the gateway does not carry (it accepts mp4a).
    case unsupportedAudioCodec(FourCC)
    /// The handshake did not finish within the configured timeout.
    case handshakeTimeout(Duration)
    /// Nothing was received for the configured idle timeout.
    case idleTimeout(Duration)
    /// The RTMPS certificate or key could not be loaded.
    case tlsSetup(certificate: String, key: String, reason: String)
}
