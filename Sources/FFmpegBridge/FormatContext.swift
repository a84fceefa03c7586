import CFFmpeg

/// Owns an input `AVFormatContext` (a demuxer over one file); closed on deinit.
final class InputFormatContext {
    let pointer: UnsafeMutablePointer<AVFormatContext>
    let path: String

    init(path: String) throws(FFmpegError) {
        quietLibavLogging()
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_open_input(&ctx, path, nil, nil), "avformat_open_input(\(path))")
        guard let ctx else { throw FFmpegError(message: "no demuxer context", context: "avformat_open_input(\(path))") }
        pointer = ctx
        self.path = path
        try check(avformat_find_stream_info(ctx, nil), "avformat_find_stream_info(\(path))")
    }

    deinit {
        var p: UnsafeMutablePointer<AVFormatContext>? = pointer
        avformat_close_input(&p)
    }

    /// The stream at `index`.
    func stream(_ index: Int32) -> UnsafeMutablePointer<AVStream> { pointer.pointee.streams[Int(index)]! }

    /// The best stream of `type`, or nil when the file has none.
    func bestStream(_ type: AVMediaType) -> Int32? {
        let i = av_find_best_stream(pointer, type, -1, -1, nil, 0)
        return i >= 0 ? i : nil
    }

    /// Reads the next packet; false at end of file.
    func read(into packet: Packet) throws(FFmpegError) -> Bool {
        let ret = av_read_frame(pointer, packet.pointer)
        if ret == swift_AVERROR_EOF() { return false }
        try check(ret, "av_read_frame(\(path))")
        return true
    }

    /// Seeks back to the start.
    func seekToStart() throws(FFmpegError) {
        try check(avformat_seek_file(pointer, -1, Int64.min, 0, 0, 0), "avformat_seek_file(\(path), 0)")
    }
}

/// Codec parameter helpers.
extension UnsafeMutablePointer<AVStream> {
    var extradata: [UInt8] {
        let par = pointee.codecpar.pointee
        guard let data = par.extradata, par.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(par.extradata_size)))
    }

    var codecID: AVCodecID { pointee.codecpar.pointee.codec_id }

    var codecName: String { String(cString: avcodec_get_name(codecID)) }
}
