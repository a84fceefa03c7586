import CFFmpeg
import MediaCore

/// Scales pictures to one target size in yuv420p with libswscale (`sws_scale_frame`).
public final class PictureScaler {
    /// The interpolation used for resizing.
    public enum Algorithm: Sendable {
        case bilinear
        case bicubic

        var swsFlag: Int32 { self == .bilinear ? SWS_BILINEAR : SWS_BICUBIC }
    }

    /// Output width in pixels.
    public let width: Int
    /// Output height in pixels.
    public let height: Int
    private let algorithm: Algorithm
    private var context: OpaquePointer?

    /// A scaler to `width`×`height`; the source format and size are taken from each picture.
    public init(width: Int, height: Int, algorithm: Algorithm = .bicubic) {
        self.width = width
        self.height = height
        self.algorithm = algorithm
    }

    deinit { sws_freeContext(context) }

    /// A new picture of the target size with the source's pts, colour properties and SEI payloads.
    public func scale(_ picture: DecodedPicture) throws(FFmpegError) -> DecodedPicture {
        let src = picture.frame.pointer
        context = sws_getCachedContext(
            context,
            src.pointee.width,
            src.pointee.height,
            AVPixelFormat(rawValue: src.pointee.format),
            Int32(width),
            Int32(height),
            AV_PIX_FMT_YUV420P,
            algorithm.swsFlag,
            nil,
            nil,
            nil
        )
        guard let context else {
            throw FFmpegError(
                message: "no scaler for \(picture.width)x\(picture.height) -> \(width)x\(height)",
                context: "sws_getCachedContext"
            )
        }
        let out = try Frame()
        let dst = out.pointer
        dst.pointee.width = Int32(width)
        dst.pointee.height = Int32(height)
        dst.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        try check(av_frame_get_buffer(dst, 0), "av_frame_get_buffer(\(width)x\(height))")
        try check(sws_scale_frame(context, dst, src), "sws_scale_frame(\(width)x\(height))")
        try check(av_frame_copy_props(dst, src), "av_frame_copy_props")
        // The decoder's slice type must not force a keyframe in the encoder; only the ladder decides.
        dst.pointee.pict_type = AV_PICTURE_TYPE_NONE
        try DecodedPicture.setUserData(picture.userDataUnregistered, on: out)
        return DecodedPicture(frame: out, pts: picture.pts, userDataUnregistered: picture.userDataUnregistered)
    }
}
