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
    private let decoder: DecoderContext
    private let encoder: CodecContext
    private let decoded: Frame
    private let resampled: Frame
    private let encoderInput: Frame
    private let packet: Packet
    private let inputTimescale: Int32
    private var resampler: OpaquePointer?
    private var pending: [[Float]] = [[], []]
    private var nextPTS: Int64?
    private var latestStamps = HopStamps()

    /// Opens a decoder for `input` (codec + decoderConfiguration) and the native `aac` encoder.
    public init(input: AudioParameters, bitRate: Int = 128_000) throws(FFmpegError) {
        let codecID: AVCodecID
        switch input.codec {
        case .aac: codecID = AV_CODEC_ID_AAC
        case .opus: codecID = AV_CODEC_ID_OPUS
        case .h264: throw FFmpegError(message: "not an audio codec", context: "AACTranscoder(\(input.codec))")
        }
        inputTimescale = Int32(input.sampleRate)
        decoder = try DecoderContext(
            codecID: codecID, extradata: input.decoderConfiguration,
            packetTimeBase: AVRational(num: 1, den: Int32(input.sampleRate)))
        encoder = try CodecContext(encoderNamed: "aac")
        let c = encoder.pointer
        c.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        c.pointee.sample_rate = Self.outputSampleRate
        c.pointee.bit_rate = Int64(bitRate)
        c.pointee.time_base = AVRational(num: 1, den: Self.outputSampleRate)
        c.pointee.profile = FF_PROFILE_AAC_LOW
        av_channel_layout_default(&c.pointee.ch_layout, 2)
        c.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER)
        try encoder.open()
        primingSamples = Int(c.pointee.initial_padding)
        do {
            outputParameters = try AudioParameters(audioSpecificConfig: encoder.extradata)
        } catch {
            throw FFmpegError(
                message: "aac encoder gave no usable AudioSpecificConfig: \(error)", context: "AACTranscoder")
        }
        decoded = try Frame()
        resampled = try Frame()
        encoderInput = try Frame()
        packet = try Packet()
    }

    deinit { swr_free(&resampler) }

    /// Transcodes one input access unit; returns the AAC frames (timescale 48 kHz) that became ready.
    public func transcode(_ frame: MediaFrame) throws(FFmpegError) -> [MediaFrame] {
        latestStamps = frame.stamps
        if nextPTS == nil { nextPTS = frame.pts.converted(to: Self.outputSampleRate).value }
        let input = try Packet.filled(
            with: frame.data, pts: frame.pts.converted(to: inputTimescale).value,
            dts: frame.dts.converted(to: inputTimescale).value, isKeyframe: true)
        do {
            try decoder.send(input)
        } catch  where error.code == Self.invalidDataCode {
            return []  // A corrupt packet costs one frame of audio, not the stream.
        }
        return try pullDecoded()
    }

    /// Drains decoder, resampler and encoder (the last frame is padded); no input is accepted afterwards.
    public func flush() throws(FFmpegError) -> [MediaFrame] {
        try decoder.send(nil)
        var out = try pullDecoded()
        if let resampler {
            try convert(resampler, nil)
        }
        out += try encodePending(final: true)
        try encoder.send(nil)
        out += try drainEncoder()
        return out
    }

    /// `AVERROR_INVALIDDATA` (FFERRTAG('I','N','D','A')), a function-like macro Swift cannot import.
    private static let invalidDataCode: Int32 = -0x4144_4E49

    private func pullDecoded() throws(FFmpegError) -> [MediaFrame] {
        var out: [MediaFrame] = []
        while try decoder.receive(into: decoded) {
            defer { av_frame_unref(decoded.pointer) }
            let swr = try resamplerFor(decoded)
            try convert(swr, decoded)
            out += try encodePending(final: false)
        }
        return out
    }

    /// The resampler, made on the first decoded frame (the decoder knows the real layout and rate only then).
    private func resamplerFor(_ frame: Frame) throws(FFmpegError) -> OpaquePointer {
        if let resampler { return resampler }
        var outLayout = AVChannelLayout()
        av_channel_layout_default(&outLayout, 2)
        defer { av_channel_layout_uninit(&outLayout) }
        var inLayout = AVChannelLayout()
        if frame.pointer.pointee.ch_layout.nb_channels > 0 {
            try check(av_channel_layout_copy(&inLayout, &frame.pointer.pointee.ch_layout), "av_channel_layout_copy")
        } else {
            av_channel_layout_default(&inLayout, 2)
        }
        defer { av_channel_layout_uninit(&inLayout) }
        try check(
            swr_alloc_set_opts2(
                &resampler, &outLayout, AV_SAMPLE_FMT_FLTP, Self.outputSampleRate, &inLayout,
                AVSampleFormat(rawValue: frame.pointer.pointee.format), frame.pointer.pointee.sample_rate, 0, nil),
            "swr_alloc_set_opts2")
        guard let resampler else { throw FFmpegError(message: "no resampler", context: "swr_alloc_set_opts2") }
        try check(swr_init(resampler), "swr_init")
        return resampler
    }

    /// Resamples `frame` (nil drains) and appends the samples to `pending`.
    private func convert(_ swr: OpaquePointer, _ frame: Frame?) throws(FFmpegError) {
        let out = resampled.pointer
        av_frame_unref(out)
        out.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        out.pointee.sample_rate = Self.outputSampleRate
        av_channel_layout_default(&out.pointee.ch_layout, 2)
        let inSamples = frame.map { Int32($0.pointer.pointee.nb_samples) } ?? 0
        out.pointee.nb_samples = swr_get_out_samples(swr, inSamples) + 32
        try check(av_frame_get_buffer(out, 0), "av_frame_get_buffer(resampled)")
        out.pointee.nb_samples = 0
        try check(swr_convert_frame(swr, out, frame?.pointer), "swr_convert_frame")
        let count = Int(out.pointee.nb_samples)
        guard count > 0 else { return }
        for ch in 0..<2 {
            let plane = UnsafeRawPointer(out.pointee.extended_data[ch]!).assumingMemoryBound(to: Float.self)
            pending[ch].append(contentsOf: UnsafeBufferPointer(start: plane, count: count))
        }
    }

    /// Encodes every whole 1024-sample frame in `pending` (and, when `final`, the remainder).
    private func encodePending(final: Bool) throws(FFmpegError) -> [MediaFrame] {
        var out: [MediaFrame] = []
        let size = Int(encoder.pointer.pointee.frame_size > 0 ? encoder.pointer.pointee.frame_size : 1024)
        while pending[0].count >= size || (final && !pending[0].isEmpty) {
            let n = min(size, pending[0].count)
            let f = encoderInput.pointer
            av_frame_unref(f)
            f.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
            f.pointee.sample_rate = Self.outputSampleRate
            f.pointee.nb_samples = Int32(n)
            av_channel_layout_default(&f.pointee.ch_layout, 2)
            try check(av_frame_get_buffer(f, 0), "av_frame_get_buffer(aac input)")
            for ch in 0..<2 {
                let plane = UnsafeMutableRawPointer(f.pointee.extended_data[ch]!).assumingMemoryBound(to: Float.self)
                pending[ch].withUnsafeBufferPointer { plane.update(from: $0.baseAddress!, count: n) }
                pending[ch].removeFirst(n)
            }
            let pts = nextPTS ?? 0
            f.pointee.pts = pts
            nextPTS = pts + Int64(n)
            try encoder.send(encoderInput)
            out += try drainEncoder()
        }
        return out
    }

    private func drainEncoder() throws(FFmpegError) -> [MediaFrame] {
        var out: [MediaFrame] = []
        while try encoder.receive(into: packet) {
            defer { packet.unref() }
            let dts = MediaTime(value: packet.pointer.pointee.dts, timescale: Self.outputSampleRate)
            out.append(MediaFrame(kind: .audio, dts: dts, isKeyframe: true, data: packet.bytes, stamps: latestStamps))
        }
        return out
    }
}
