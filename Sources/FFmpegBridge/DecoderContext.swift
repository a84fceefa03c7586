import CFFmpeg

/// Owns a decoding `AVCodecContext` opened with the stream's extradata; freed on deinit.
final class DecoderContext {
    let pointer: UnsafeMutablePointer<AVCodecContext>
    let codecName: String

    /// Opens the decoder for `codecID`; `configure` may set options before `avcodec_open2`.
    init(
        codecID: AVCodecID,
        extradata: [UInt8],
        packetTimeBase: AVRational,
        configure: (UnsafeMutablePointer<AVCodecContext>) -> Void = { _ in }
    ) throws(FFmpegError) {
        quietLibavLogging()
        let name = String(cString: avcodec_get_name(codecID))
        guard let codec = avcodec_find_decoder(codecID) else {
            throw FFmpegError(
                message: "decoder not available in this FFmpeg build",
                context: "avcodec_find_decoder(\(name))"
            )
        }
        guard let ctx = avcodec_alloc_context3(codec) else {
            throw FFmpegError(code: swift_AVERROR(ENOMEM), context: "avcodec_alloc_context3(\(name))")
        }
        pointer = ctx
        codecName = name
        if !extradata.isEmpty {
            // libav reads extradata with SIMD, so it must be padded and owned by av_malloc.
            let padded = extradata.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)
            guard let raw = av_mallocz(padded) else {
                throw FFmpegError(code: swift_AVERROR(ENOMEM), context: "av_mallocz(extradata)")
            }
            let bytes = raw.assumingMemoryBound(to: UInt8.self)
            extradata.withUnsafeBufferPointer { bytes.update(from: $0.baseAddress!, count: extradata.count) }
            ctx.pointee.extradata = bytes
            ctx.pointee.extradata_size = Int32(extradata.count)
        }
        ctx.pointee.pkt_timebase = packetTimeBase
        configure(ctx)
        try check(avcodec_open2(ctx, codec, nil), "avcodec_open2(\(name) decoder)")
    }

    deinit {
        var p: UnsafeMutablePointer<AVCodecContext>? = pointer
        avcodec_free_context(&p)
    }

    /// Sends one packet (nil starts draining).
    func send(_ packet: Packet?) throws(FFmpegError) {
        try check(avcodec_send_packet(pointer, packet?.pointer), "avcodec_send_packet(\(codecName))")
    }

    /// Receives one decoded frame into `frame`; false when the decoder needs more input or is drained.
    func receive(into frame: Frame) throws(FFmpegError) -> Bool {
        let ret = avcodec_receive_frame(pointer, frame.pointer)
        if ret == swift_AVERROR_EAGAIN() || ret == swift_AVERROR_EOF() { return false }
        try check(ret, "avcodec_receive_frame(\(codecName))")
        return true
    }
}

extension Packet {
    /// A packet holding a copy of `bytes` with timestamps in the decoder's packet time base.
    static func filled(with bytes: [UInt8], pts: Int64, dts: Int64, isKeyframe: Bool) throws(FFmpegError) -> Packet {
        let packet = try Packet()
        try check(av_new_packet(packet.pointer, Int32(bytes.count)), "av_new_packet(\(bytes.count))")
        if !bytes.isEmpty, let data = packet.pointer.pointee.data {
            bytes.withUnsafeBufferPointer { data.update(from: $0.baseAddress!, count: bytes.count) }
        }
        packet.pointer.pointee.pts = pts
        packet.pointer.pointee.dts = dts
        if isKeyframe { packet.pointer.pointee.flags |= AV_PKT_FLAG_KEY }
        return packet
    }
}
