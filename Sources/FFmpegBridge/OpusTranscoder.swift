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
    private let decoder: DecoderContext
    private let encoder: CodecContext
    private let decoded: Frame
    private let resampled: Frame
    private let encoderInput: Frame
    private let packet: Packet
    private let inputTimescale: Int32
    private let interleaved: Bool
    private let initialPadding: Int64
    private var resampler: OpaquePointer?
    private var pending: [[Float]] = [[], []]
    private var nextPTS: Int64?
    private var latestStamps = HopStamps()

    /// Opens a decoder for `input` (AAC or Opus) and an Opus encoder at `bitRate`.
    public init(input: AudioParameters, bitRate: Int = 96_000) throws(FFmpegError) {
        let codecID: AVCodecID
        switch input.codec {
        case .aac: codecID = AV_CODEC_ID_AAC
        case .opus: codecID = AV_CODEC_ID_OPUS
        case .h264: throw FFmpegError(message: "not an audio codec", context: "OpusTranscoder(\(input.codec))")
        }
        inputTimescale = Int32(input.sampleRate)
        decoder = try DecoderContext(
            codecID: codecID, extradata: input.decoderConfiguration,
            packetTimeBase: AVRational(num: 1, den: Int32(input.sampleRate)))
        let (encoder, name) = try Self.openEncoder(bitRate: bitRate)
        self.encoder = encoder
        encoderName = name
        interleaved = encoder.pointer.pointee.sample_fmt == AV_SAMPLE_FMT_FLT
        initialPadding = Int64(encoder.pointer.pointee.initial_padding)
        // RFC 7845 §5.1 OpusHead: version 1, stereo, the encoder's pre-skip, 48 kHz, gain 0, mapping family 0.
        let preSkip = UInt16(clamping: initialPadding)
        let head = Array("OpusHead".utf8) + [1, 2, UInt8(preSkip & 0xFF), UInt8(preSkip >> 8), 0x80, 0xBB, 0, 0, 0, 0, 0]
        outputParameters = AudioParameters(
            codec: .opus, decoderConfiguration: head, sampleRate: Int(Self.sampleRate), channels: 2,
            samplesPerFrame: Self.frameSamples, codecString: "opus")
        decoded = try Frame()
        resampled = try Frame()
        encoderInput = try Frame()
        packet = try Packet()
    }

    deinit {
        // Draining first keeps libopus from warning about frames left in its queue when a publish stops.
        if (try? encoder.send(nil)) != nil { while (try? encoder.receive(into: packet)) == true { packet.unref() } }
        swr_free(&resampler)
    }

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
        latestStamps = frame.stamps
        if nextPTS == nil { nextPTS = frame.pts.converted(to: Self.sampleRate).value }
        let input = try Packet.filled(
            with: frame.data, pts: frame.pts.converted(to: inputTimescale).value,
            dts: frame.dts.converted(to: inputTimescale).value, isKeyframe: true)
        do {
            try decoder.send(input)
        } catch where error.code == Self.invalidDataCode {
            return []  // A corrupt packet costs one frame of audio, not the stream.
        }
        var out: [MediaFrame] = []
        while try decoder.receive(into: decoded) {
            defer { av_frame_unref(decoded.pointer) }
            try convert(try resamplerFor(decoded), decoded)
            out += try encodePending()
        }
        return out
    }

    /// `AVERROR_INVALIDDATA` (FFERRTAG('I','N','D','A')), a function-like macro Swift cannot import.
    private static let invalidDataCode: Int32 = -0x4144_4E49

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
                &resampler, &outLayout, AV_SAMPLE_FMT_FLTP, Self.sampleRate, &inLayout,
                AVSampleFormat(rawValue: frame.pointer.pointee.format), frame.pointer.pointee.sample_rate, 0, nil),
            "swr_alloc_set_opts2")
        guard let resampler else { throw FFmpegError(message: "no resampler", context: "swr_alloc_set_opts2") }
        try check(swr_init(resampler), "swr_init")
        return resampler
    }

    /// Resamples `frame` to planar float stereo and appends the samples to `pending`.
    private func convert(_ swr: OpaquePointer, _ frame: Frame) throws(FFmpegError) {
        let out = resampled.pointer
        av_frame_unref(out)
        out.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        out.pointee.sample_rate = Self.sampleRate
        av_channel_layout_default(&out.pointee.ch_layout, 2)
        out.pointee.nb_samples = swr_get_out_samples(swr, frame.pointer.pointee.nb_samples) + 32
        try check(av_frame_get_buffer(out, 0), "av_frame_get_buffer(resampled)")
        out.pointee.nb_samples = 0
        try check(swr_convert_frame(swr, out, frame.pointer), "swr_convert_frame")
        let count = Int(out.pointee.nb_samples)
        guard count > 0 else { return }
        for ch in 0..<2 {
            let plane = UnsafeRawPointer(out.pointee.extended_data[ch]!).assumingMemoryBound(to: Float.self)
            pending[ch].append(contentsOf: UnsafeBufferPointer(start: plane, count: count))
        }
    }

    /// Encodes every whole 960-sample frame in `pending`.
    private func encodePending() throws(FFmpegError) -> [MediaFrame] {
        var out: [MediaFrame] = []
        let n = Self.frameSamples
        while pending[0].count >= n {
            let f = encoderInput.pointer
            av_frame_unref(f)
            f.pointee.format = (interleaved ? AV_SAMPLE_FMT_FLT : AV_SAMPLE_FMT_FLTP).rawValue
            f.pointee.sample_rate = Self.sampleRate
            f.pointee.nb_samples = Int32(n)
            av_channel_layout_default(&f.pointee.ch_layout, 2)
            try check(av_frame_get_buffer(f, 0), "av_frame_get_buffer(opus input)")
            if interleaved {
                let samples = UnsafeMutableRawPointer(f.pointee.extended_data[0]!).assumingMemoryBound(to: Float.self)
                for i in 0..<n {
                    samples[2 * i] = pending[0][i]
                    samples[2 * i + 1] = pending[1][i]
                }
            } else {
                for ch in 0..<2 {
                    let plane = UnsafeMutableRawPointer(f.pointee.extended_data[ch]!).assumingMemoryBound(to: Float.self)
                    pending[ch].withUnsafeBufferPointer { plane.update(from: $0.baseAddress!, count: n) }
                }
            }
            for ch in 0..<2 { pending[ch].removeFirst(n) }
            let pts = nextPTS ?? 0
            f.pointee.pts = pts
            nextPTS = pts + Int64(n)
            try encoder.send(encoderInput)
            while try encoder.receive(into: packet) {
                defer { packet.unref() }
                // The encoder shifts pts back by its look-ahead; undo it so frame N starts at input sample N × 960.
                let dts = MediaTime(value: packet.pointer.pointee.pts + initialPadding, timescale: Self.sampleRate)
                out.append(MediaFrame(kind: .audio, dts: dts, isKeyframe: true, data: packet.bytes, stamps: latestStamps))
            }
        }
        return out
    }
}
