import CFFmpeg
import MediaCore

/// The decode -> 48 kHz stereo float resample -> sample FIFO -> fixed-size frame encode -> timestamp skeleton that
/// `AACTranscoder` and `OpusTranscoder` share; each wrapper opens its own encoder and keeps its public API.
final class AudioReencoder {
    /// Which encoder packet field carries the output decode time.
    enum OutputTime {
        /// The packet's dts as is (AAC: priming shows as negative times).
        case packetDTS
        /// The packet's pts plus `padding` (Opus: undoes the encoder's look-ahead shift).
        case packetPTS(plus: Int64)
    }

    private let decoder: DecoderContext
    private let encoder: CodecContext
    private let decoded: Frame
    private let resampled: Frame
    private let encoderInput: Frame
    private let packet: Packet
    private let inputTimescale: Int32
    private let sampleRate: Int32
    private let interleaved: Bool
    private let outputTime: OutputTime
    private let label: String
    private var resampler: OpaquePointer?
    private var pending: [[Float]] = [[], []]
    private var nextPTS: Int64?
    private var latestStamps = HopStamps()

    /// Opens a decoder for `input` (AAC or Opus) in front of the opened stereo `encoder` running at `sampleRate`.
    init(
        input: AudioParameters,
        encoder: CodecContext,
        sampleRate: Int32,
        outputTime: OutputTime,
        label: String
    ) throws(FFmpegError) {
        let codecID: AVCodecID
        switch input.codec {
        case .aac: codecID = AV_CODEC_ID_AAC
        case .opus: codecID = AV_CODEC_ID_OPUS
        case .h264, .hevc, .av1:
            throw FFmpegError(message: "not an audio codec", context: "\(label)(\(input.codec))")
        }
        inputTimescale = Int32(input.sampleRate)
        decoder = try DecoderContext(
            codecID: codecID,
            extradata: input.decoderConfiguration,
            packetTimeBase: AVRational(num: 1, den: Int32(input.sampleRate))
        )
        self.encoder = encoder
        self.sampleRate = sampleRate
        self.outputTime = outputTime
        self.label = label
        interleaved = encoder.pointer.pointee.sample_fmt == AV_SAMPLE_FMT_FLT
        decoded = try Frame()
        resampled = try Frame()
        encoderInput = try Frame()
        packet = try Packet()
    }

    deinit { swr_free(&resampler) }

    /// Transcodes one input access unit; returns the encoded frames (timescale `sampleRate`) that became ready.
    func transcode(_ frame: MediaFrame) throws(FFmpegError) -> [MediaFrame] {
        latestStamps = frame.stamps
        if nextPTS == nil { nextPTS = frame.pts.converted(to: sampleRate).value }
        let input = try Packet.filled(
            with: frame.data,
            pts: frame.pts.converted(to: inputTimescale).value,
            dts: frame.dts.converted(to: inputTimescale).value,
            isKeyframe: true
        )
        do {
            try decoder.send(input)
        } catch  where error.code == Self.invalidDataCode {
            return []  // A corrupt packet costs one frame of audio, not the stream.
        }
        return try pullDecoded()
    }

    /// Drains decoder, resampler and encoder (the last frame is padded); no input is accepted afterwards.
    func flush() throws(FFmpegError) -> [MediaFrame] {
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

    /// Drops whatever the encoder still holds, so a stopping encoder does not warn about queued frames.
    func discardEncoderQueue() {
        if (try? encoder.send(nil)) != nil { while (try? encoder.receive(into: packet)) == true { packet.unref() } }
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
                &resampler,
                &outLayout,
                AV_SAMPLE_FMT_FLTP,
                sampleRate,
                &inLayout,
                AVSampleFormat(rawValue: frame.pointer.pointee.format),
                frame.pointer.pointee.sample_rate,
                0,
                nil
            ),
            "swr_alloc_set_opts2"
        )
        guard let resampler else { throw FFmpegError(message: "no resampler", context: "swr_alloc_set_opts2") }
        try check(swr_init(resampler), "swr_init")
        return resampler
    }

    /// Resamples `frame` (nil drains) to planar float stereo and appends the samples to `pending`.
    private func convert(_ swr: OpaquePointer, _ frame: Frame?) throws(FFmpegError) {
        let out = resampled.pointer
        av_frame_unref(out)
        out.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        out.pointee.sample_rate = sampleRate
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

    /// Encodes every whole encoder frame in `pending` (and, when `final`, the remainder).
    private func encodePending(final: Bool) throws(FFmpegError) -> [MediaFrame] {
        var out: [MediaFrame] = []
        let size = Int(encoder.pointer.pointee.frame_size > 0 ? encoder.pointer.pointee.frame_size : 1024)
        while pending[0].count >= size || (final && !pending[0].isEmpty) {
            let n = min(size, pending[0].count)
            let f = encoderInput.pointer
            av_frame_unref(f)
            f.pointee.format = (interleaved ? AV_SAMPLE_FMT_FLT : AV_SAMPLE_FMT_FLTP).rawValue
            f.pointee.sample_rate = sampleRate
            f.pointee.nb_samples = Int32(n)
            av_channel_layout_default(&f.pointee.ch_layout, 2)
            try check(av_frame_get_buffer(f, 0), "av_frame_get_buffer(\(label) input)")
            if interleaved {
                let samples = UnsafeMutableRawPointer(f.pointee.extended_data[0]!).assumingMemoryBound(to: Float.self)
                for i in 0..<n {
                    samples[2 * i] = pending[0][i]
                    samples[2 * i + 1] = pending[1][i]
                }
            } else {
                for ch in 0..<2 {
                    let plane = UnsafeMutableRawPointer(f.pointee.extended_data[ch]!).assumingMemoryBound(
                        to: Float.self
                    )
                    pending[ch].withUnsafeBufferPointer { plane.update(from: $0.baseAddress!, count: n) }
                }
            }
            for ch in 0..<2 { pending[ch].removeFirst(n) }
            let pts = nextPTS ?? 0
            f.pointee.pts = pts
            nextPTS = pts + Int64(n)
            try encoder.send(encoderInput)
            out += try drainEncoder()
        }
        return out
    }

    private func drainEncoder() throws(FFmpegError) -> [MediaFrame] {
        try encoder.drain(into: packet) { packet in
            let value: Int64
            switch outputTime {
            case .packetDTS: value = packet.pointer.pointee.dts
            case .packetPTS(let padding): value = packet.pointer.pointee.pts + padding
            }
            let dts = MediaTime(value: value, timescale: sampleRate)
            return MediaFrame(kind: .audio, dts: dts, isKeyframe: true, data: packet.bytes, stamps: latestStamps)
        }
    }
}
