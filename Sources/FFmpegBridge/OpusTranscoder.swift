import CFFmpeg
import MediaCore

/// Any decodable audio (AAC from a file or the test tone) to Opus 48 kHz stereo in 20 ms frames (RFC 7587 for WebRTC).
///
/// Decode, resample to 48 kHz float, cut 960-sample frames, encode with `libopus` (the native `opus` encoder as a
/// fallback). Output decode times continue the input's first timestamp in 48 kHz ticks, 960 per frame.
public final class OpusTranscoder {
    /// Output sample rate in Hz (RFC 7587 §4.1: the RTP clock of Opus is always 48 kHz).
    public static let sampleRate: Int32 = 48_000
    /// Samples per output frame: 20 ms.
    public static let frameSamples = 960
    /// The Opus output track (OpusHead as decoder configuration, as a WebRTC receiver assumes it).
    public let outputParameters: AudioParameters
    /// Which libavcodec encoder runs (`libopus` or `opus`).
    public let encoderName: String
    private let reencoder: AudioReencoder

    /// Opens a decoder for `input` (AAC or Opus) and an Opus encoder at `bitRate`.
    public init(input: AudioParameters, bitRate: Int = 96_000) throws(FFmpegError) {
        if input.codec == .h264 || input.codec == .hevc || input.codec == .av1 {
            throw FFmpegError(message: "not an audio codec", context: "OpusTranscoder(\(input.codec))")
        }
        let (encoder, name) = try Self.openEncoder(bitRate: bitRate)
        encoderName = name
        let initialPadding = Int64(encoder.pointer.pointee.initial_padding)
        // RFC 7845 §5.1 OpusHead: version 1, stereo, the encoder's pre-skip, 48 kHz, gain 0, mapping family 0.
        let preSkip = UInt16(clamping: initialPadding)
        let head =
            Array("OpusHead".utf8) + [1, 2, UInt8(preSkip & 0xFF), UInt8(preSkip >> 8), 0x80, 0xBB, 0, 0, 0, 0, 0]
        outputParameters = AudioParameters(
            codec: .opus,
            decoderConfiguration: head,
            sampleRate: Int(Self.sampleRate),
            channels: 2,
            samplesPerFrame: Self.frameSamples,
            codecString: "opus"
        )
        // The encoder shifts pts back by its look-ahead; adding it back makes frame N start at input sample N × 960.
        reencoder = try AudioReencoder(
            input: input,
            encoder: encoder,
            sampleRate: Self.sampleRate,
            outputTime: .packetPTS(plus: initialPadding),
            label: "opus"
        )
    }

    // Draining first keeps libopus from warning about frames left in its queue when a publish stops.
    deinit { reencoder.discardEncoderQueue() }

    /// libopus takes interleaved float; the native encoder (experimental in FFmpeg 5.1) takes planar float.
    private static func openEncoder(bitRate: Int) throws(FFmpegError) -> (CodecContext, String) {
        var failures: [String] = []
        for (name, format) in [("libopus", AV_SAMPLE_FMT_FLT), ("opus", AV_SAMPLE_FMT_FLTP)] {
            do {
                let context = try CodecContext(encoderNamed: name)
                let c = context.pointer
                c.pointee.sample_fmt = format
                c.pointee.sample_rate = sampleRate
                c.pointee.bit_rate = Int64(bitRate)
                c.pointee.time_base = AVRational(num: 1, den: sampleRate)
                c.pointee.strict_std_compliance = -2  // FF_COMPLIANCE_EXPERIMENTAL, for the native encoder.
                av_channel_layout_default(&c.pointee.ch_layout, 2)
                if name == "libopus" {
                    try context.setOption("frame_duration", "20")
                    try context.setOption("application", "lowdelay")
                }
                try context.open()
                guard c.pointee.frame_size == Int32(frameSamples) else {
                    failures.append("\(name): frame size \(c.pointee.frame_size)")
                    continue
                }
                return (context, name)
            } catch {
                failures.append("\(error)")
            }
        }
        throw FFmpegError(message: failures.joined(separator: "; "), context: "OpusTranscoder: no usable Opus encoder")
    }

    /// Transcodes one input access unit; returns the Opus frames (timescale 48 kHz) that became ready.
    public func transcode(_ frame: MediaFrame) throws(FFmpegError) -> [MediaFrame] {
        try reencoder.transcode(frame)
    }
}
