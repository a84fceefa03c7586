import CFFmpeg
import CodecFormats
import MediaCore

/// Any decodable audio (AAC, Opus) to AAC-LC 48 kHz stereo in 1024-sample frames with continuous timestamps.
public final class AACTranscoder {
    /// Output sample rate in Hz.
    public static let outputSampleRate: Int32 = 48_000
    /// The AAC output track (AudioSpecificConfig from the encoder).
    public let outputParameters: AudioParameters
    /// Samples of encoder priming before the first real sample (the first output frame starts this much early).
    public let primingSamples: Int
    private let reencoder: AudioReencoder

    /// Opens a decoder for `input` (codec + decoderConfiguration) and the native `aac` encoder.
    public init(input: AudioParameters, bitRate: Int = 128_000) throws(FFmpegError) {
        if input.codec == .h264 || input.codec == .hevc || input.codec == .av1 {
            throw FFmpegError(message: "not an audio codec", context: "AACTranscoder(\(input.codec))")
        }
        let encoder = try AACFrameEncoder.openContext(
            sampleRate: Int(Self.outputSampleRate),
            channels: 2,
            bitRate: bitRate,
            profile: FF_PROFILE_AAC_LOW
        )
        primingSamples = Int(encoder.pointer.pointee.initial_padding)
        do {
            outputParameters = try AudioParameters(audioSpecificConfig: encoder.extradata)
        } catch {
            throw FFmpegError(
                message: "aac encoder gave no usable AudioSpecificConfig: \(error)",
                context: "AACTranscoder"
            )
        }
        reencoder = try AudioReencoder(
            input: input,
            encoder: encoder,
            sampleRate: Self.outputSampleRate,
            outputTime: .packetDTS,
            label: "aac"
        )
    }

    /// Transcodes one input access unit; returns the AAC frames (timescale 48 kHz) that became ready.
    public func transcode(_ frame: MediaFrame) throws(FFmpegError) -> [MediaFrame] {
        try reencoder.transcode(frame)
    }

    /// Drains decoder, resampler and encoder (the last frame is padded); no input is accepted afterwards.
    public func flush() throws(FFmpegError) -> [MediaFrame] {
        try reencoder.flush()
    }
}
