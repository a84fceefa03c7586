/// E-RTMP v2 "Enhanced Video" / "Enhanced Audio": a codec named by four ASCII bytes instead of a CodecID nibble.
public struct FourCC: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The four bytes, big-endian ('h' 'v' 'c' '1' is 0x6876_6331).
    public var rawValue: UInt32

    /// Wraps a raw value; unknown codes are kept so the ingest can name what it refused.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Builds a code from a four-character ASCII string.
    public init(_ text: StaticString) {
        precondition(text.utf8CodeUnitCount == 4, "a FourCC has four characters")
        let p = text.utf8Start
        rawValue = UInt32(p[0]) << 24 | UInt32(p[1]) << 16 | UInt32(p[2]) << 8 | UInt32(p[3])
    }

    /// HEVC (ISO/IEC 14496-15 hvcC configuration).
    public static let hvc1 = FourCC("hvc1")
    /// AV1 (av1C configuration).
    public static let av01 = FourCC("av01")
    /// VP9 (vpcC configuration).
    public static let vp09 = FourCC("vp09")
    /// H.264 signalled the enhanced way (avcC configuration).
    public static let avc1 = FourCC("avc1")
    /// Opus audio (OpusHead configuration).
    public static let opus = FourCC("Opus")
    /// AAC audio (AudioSpecificConfig).
    public static let mp4a = FourCC("mp4a")

    /// The four characters, non-printable bytes as `?`, for logs.
    public var description: String {
        let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: rawValue >> $0) }
        return String(decoding: bytes.map { (0x20...0x7E).contains($0) ? $0 : 0x3F }, as: UTF8.self)
    }
}
