import CFFmpeg
import MediaCore

/// A still image for the slate (`ingest.slate_image`): PNG or JPEG bytes decoded with libavcodec's own decoders
/// and scaled to each stream's picture size.
public struct SlateImage: Sendable {
    /// The image as decoded, in its own size and pixel format (decoded once; each stream shape scales it).
    private let decoded: DecodedPicture

    /// Decodes `bytes` as a PNG or JPEG image; throws why it cannot.
    public init(bytes: [UInt8]) throws(FFmpegError) {
        decoded = try Self.decode(bytes)
    }

    /// The decoder for the file's magic number.
    private static func codecID(_ bytes: [UInt8]) -> AVCodecID? {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return AV_CODEC_ID_PNG }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return AV_CODEC_ID_MJPEG }
        return nil
    }

    private static func decode(_ bytes: [UInt8]) throws(FFmpegError) -> DecodedPicture {
        guard let codecID = codecID(bytes) else {
            throw FFmpegError(message: "not a PNG or JPEG file", context: "ingest.slate_image")
        }
        let decoder = try DecoderContext(codecID: codecID, extradata: [], packetTimeBase: AVRational(num: 1, den: 1))
        let packet = try Packet()
        try check(av_new_packet(packet.pointer, Int32(bytes.count)), "av_new_packet(slate image)")
        bytes.withUnsafeBufferPointer { source in
            packet.pointer.pointee.data.update(from: source.baseAddress!, count: bytes.count)
        }
        try decoder.send(packet)
        try decoder.send(nil)
        let frame = try Frame()
        guard try decoder.receive(into: frame) else {
            throw FFmpegError(message: "the image decoded to no picture", context: "ingest.slate_image")
        }
        return DecodedPicture(frame: frame, pts: .zero(timescale: 90_000), userDataUnregistered: [])
    }

    /// The image scaled to `width`×`height` (yuv420p) at `pts`.
    func picture(width: Int, height: Int, pts: MediaTime) throws(FFmpegError) -> DecodedPicture {
        let scaled = try PictureScaler(width: width, height: height).scale(decoded)
        scaled.frame.pointer.pointee.pts = pts.converted(to: 90_000).value
        return DecodedPicture(frame: scaled.frame, pts: pts.converted(to: 90_000), userDataUnregistered: [])
    }
}
