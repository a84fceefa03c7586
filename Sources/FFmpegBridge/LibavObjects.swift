import CFFmpeg
import MediaCore

/// Owns an `AVPacket`; freed on deinit.
final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    init() throws(FFmpegError) {
        guard let p = av_packet_alloc() else {
            throw FFmpegError(code: swift_AVERROR(ENOMEM), context: "av_packet_alloc")
        }
        pointer = p
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&p)
    }

    /// A copy of the packet's payload.
    var bytes: [UInt8] {
        guard let data = pointer.pointee.data, pointer.pointee.size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(pointer.pointee.size)))
    }

    var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }

    func unref() { av_packet_unref(pointer) }
}

/// Owns an `AVFrame`; freed on deinit.
final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    init() throws(FFmpegError) {
        guard let p = av_frame_alloc() else {
            throw FFmpegError(code: swift_AVERROR(ENOMEM), context: "av_frame_alloc")
        }
        pointer = p
    }

    deinit {
        var p: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&p)
    }

    /// A writable yuv420p picture of `width`×`height`; `label` names it in an allocation error.
    static func yuv420p(width: Int, height: Int, label: String) throws(FFmpegError) -> Frame {
        let frame = try Frame()
        frame.pointer.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        frame.pointer.pointee.width = Int32(width)
        frame.pointer.pointee.height = Int32(height)
        try check(av_frame_get_buffer(frame.pointer, 0), "av_frame_get_buffer(\(label))")
        return frame
    }
}

/// Owns an `AVCodecContext`; freed on deinit.
final class CodecContext {
    let pointer: UnsafeMutablePointer<AVCodecContext>
    let codecName: String

    init(encoderNamed name: String) throws(FFmpegError) {
        quietLibavLogging()
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw FFmpegError(
                message: "encoder not available in this FFmpeg build",
                context: "avcodec_find_encoder_by_name(\(name))"
            )
        }
        guard let ctx = avcodec_alloc_context3(codec) else {
            throw FFmpegError(code: swift_AVERROR(ENOMEM), context: "avcodec_alloc_context3(\(name))")
        }
        pointer = ctx
        codecName = name
    }

    deinit {
        var p: UnsafeMutablePointer<AVCodecContext>? = pointer
        avcodec_free_context(&p)
    }

    /// Sets a codec option, searching the encoder's private options too.
    func setOption(_ key: String, _ value: String) throws(FFmpegError) {
        try check(av_opt_set(pointer, key, value, AV_OPT_SEARCH_CHILDREN), "av_opt_set(\(codecName), \(key)=\(value))")
    }

    func open() throws(FFmpegError) {
        try check(avcodec_open2(pointer, pointer.pointee.codec, nil), "avcodec_open2(\(codecName))")
    }

    /// The codec's global header bytes.
    var extradata: [UInt8] {
        guard let data = pointer.pointee.extradata, pointer.pointee.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(pointer.pointee.extradata_size)))
    }

    /// Sends a frame (nil flushes).
    func send(_ frame: Frame?) throws(FFmpegError) {
        try check(avcodec_send_frame(pointer, frame?.pointer), "avcodec_send_frame(\(codecName))")
    }

    /// Receives one packet into `packet`; false when the encoder needs more input or is drained.
    func receive(into packet: Packet) throws(FFmpegError) -> Bool {
        let ret = avcodec_receive_packet(pointer, packet.pointer)
        if ret == swift_AVERROR_EAGAIN() || ret == swift_AVERROR_EOF() { return false }
        try check(ret, "avcodec_receive_packet(\(codecName))")
        return true
    }

    /// Every packet the encoder has ready, each made a frame by `frame` before `packet` is reused: the one
    /// receive loop of the video, audio and pattern encoders.
    func drain(into packet: Packet, _ frame: (Packet) -> MediaFrame) throws(FFmpegError) -> [MediaFrame] {
        var out: [MediaFrame] = []
        while try receive(into: packet) {
            defer { packet.unref() }
            out.append(frame(packet))
        }
        return out
    }
}

/// Lowers libav's default INFO chatter (x264 statistics on every close) to warnings; never raises it.
func quietLibavLogging() {
    if av_log_get_level() > AV_LOG_WARNING { av_log_set_level(AV_LOG_WARNING) }
}
