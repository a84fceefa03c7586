import CFFmpeg
import CodecFormats
import MediaCore

extension DecodedPicture {
    /// The capture clock painted into this picture (`PixelClockCode`), read from its luma plane; nil when the
    /// picture carries none or it did not survive scaling and compression.
    public var pixelClock: WallTime? {
        let f = frame.pointer.pointee
        guard
            AVPixelFormat(rawValue: f.format) == AV_PIX_FMT_YUV420P
                || AVPixelFormat(rawValue: f.format) == AV_PIX_FMT_YUVJ420P,
            let luma = f.data.0
        else { return nil }
        let stride = Int(f.linesize.0)
        let cells = (0..<PixelClockCode.cellCount).map { i in
            let rect = PixelClockCode.sampleRect(cell: i, width: width, height: height)
            var sum = 0
            for y in rect.y { for x in rect.x { sum += Int(luma[y * stride + x]) } }
            // Mid-way between the painted 16 (black) and 235 (white).
            return sum > 126 * rect.x.count * rect.y.count
        }
        return PixelClockCode.time(from: cells)
    }
}
