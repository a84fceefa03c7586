import CFFmpeg
import MediaCore

/// A decoded (or scaled) video picture: owns its `AVFrame`; immutable once made, so threads may share it.
public final class DecodedPicture: @unchecked Sendable {
    /// The frame; never mutated after construction (encoders reference it into their own frame).
    let frame: Frame
    /// Presentation time at 90 kHz.
    public let pts: MediaTime
    /// Picture width in pixels.
    public let width: Int
    /// Picture height in pixels.
    public let height: Int
    /// H.264 SEI `user_data_unregistered` payloads (16-byte UUID + user data) that travel with this picture.
    public let userDataUnregistered: [[UInt8]]

    /// x264 writes its version banner as a UDU SEI; an encoder writes its own, so it is not carried.
    public static let x264VersionUUID: [UInt8] = [
        0xDC, 0x45, 0xE9, 0xBD, 0xE6, 0xD9, 0x48, 0xB7, 0x96, 0x2C, 0xD8, 0x20, 0xD9, 0x23, 0xEE, 0xEF,
    ]

    /// Wraps `frame` (taking ownership); SEI payloads are read from its side data unless given.
    init(frame: Frame, pts: MediaTime, userDataUnregistered: [[UInt8]]? = nil) {
        self.frame = frame
        self.pts = pts
        width = Int(frame.pointer.pointee.width)
        height = Int(frame.pointer.pointee.height)
        self.userDataUnregistered = userDataUnregistered ?? Self.readUserData(frame)
    }

    /// The UDU SEI payloads in the frame's side data, minus x264's banner.
    private static func readUserData(_ frame: Frame) -> [[UInt8]] {
        var out: [[UInt8]] = []
        let f = frame.pointer.pointee
        for i in 0..<Int(f.nb_side_data) {
            guard let sd = f.side_data[i], sd.pointee.type == AV_FRAME_DATA_SEI_UNREGISTERED,
                let data = sd.pointee.data, sd.pointee.size >= 16
            else { continue }
            let bytes = Array(UnsafeBufferPointer(start: data, count: Int(sd.pointee.size)))
            if bytes.starts(with: x264VersionUUID) { continue }
            out.append(bytes)
        }
        return out
    }

    /// Replaces every side data entry of `frame` with one UDU SEI entry per payload.
    static func setUserData(_ payloads: [[UInt8]], on frame: Frame) throws(FFmpegError) {
        while frame.pointer.pointee.nb_side_data > 0, let first = frame.pointer.pointee.side_data[0] {
            av_frame_remove_side_data(frame.pointer, first.pointee.type)
        }
        for payload in payloads {
            guard let sd = av_frame_new_side_data(frame.pointer, AV_FRAME_DATA_SEI_UNREGISTERED, payload.count),
                let data = sd.pointee.data
            else { throw FFmpegError(code: swift_AVERROR(ENOMEM), context: "av_frame_new_side_data(SEI)") }
            payload.withUnsafeBufferPointer { data.update(from: $0.baseAddress!, count: payload.count) }
        }
    }

    /// This picture with `payload` added to its UDU SEI payloads: a new reference to the same pixels, so an encoder
    /// writes the payload back (a capture clock the source decoder does not export, e.g. from an HEVC or AV1 source).
    public func addingUserData(_ payload: [UInt8]) throws(FFmpegError) -> DecodedPicture {
        let copy = try Frame()
        try check(av_frame_ref(copy.pointer, frame.pointer), "av_frame_ref(addingUserData)")
        let payloads = userDataUnregistered + [payload]
        try Self.setUserData(payloads, on: copy)
        return DecodedPicture(frame: copy, pts: pts, userDataUnregistered: payloads)
    }

    /// This picture at another `pts`: a new reference to the same pixels.
    public func retimed(_ pts: MediaTime) throws(FFmpegError) -> DecodedPicture {
        let copy = try Frame()
        try check(av_frame_ref(copy.pointer, frame.pointer), "av_frame_ref(retimed)")
        copy.pointer.pointee.pts = pts.converted(to: 90_000).value
        return DecodedPicture(frame: copy, pts: pts.converted(to: 90_000), userDataUnregistered: userDataUnregistered)
    }

    /// A flat mid-grey picture (yuv420p), for tests and for priming encoders.
    public static func grey(
        width: Int,
        height: Int,
        pts: MediaTime,
        userDataUnregistered: [[UInt8]] = []
    ) throws(FFmpegError) -> DecodedPicture {
        let frame = try Frame.yuv420p(width: width, height: height, label: "grey")
        // 128 in every plane is mid-grey luma with neutral chroma.
        let f = frame.pointer.pointee
        let chromaRows = (height + 1) / 2
        let planes = [
            (f.data.0, f.linesize.0, height), (f.data.1, f.linesize.1, chromaRows),
            (f.data.2, f.linesize.2, chromaRows),
        ]
        for (base, stride, rows) in planes { base?.update(repeating: 128, count: Int(stride) * rows) }
        let ptsValue = pts.converted(to: 90_000)
        frame.pointer.pointee.pts = ptsValue.value
        try setUserData(userDataUnregistered, on: frame)
        return DecodedPicture(frame: frame, pts: ptsValue, userDataUnregistered: userDataUnregistered)
    }
}
