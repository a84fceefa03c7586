/// AV1 spec §5.5.2 color_config: bit depth, monochrome and chroma layout, the fields an av1C record repeats.
public struct AV1ColorConfig: Equatable, Sendable {
    /// high_bitdepth.
    public var highBitDepth: Bool
    /// twelve_bit (profile 2 with high_bitdepth only).
    public var twelveBit: Bool
    /// mono_chrome.
    public var monochrome: Bool
    /// subsampling_x.
    public var subsamplingX: Bool
    /// subsampling_y.
    public var subsamplingY: Bool
    /// chroma_sample_position (0 unknown; read only for 4:2:0).
    public var chromaSamplePosition: UInt8

    /// Reads color_config for a sequence of `profile`.
    init(reading r: inout BitReader, profile: UInt8) throws(CodecFormatError) {
        highBitDepth = try r.readFlag("high_bitdepth")
        twelveBit = false
        if profile == 2, highBitDepth { twelveBit = try r.readFlag("twelve_bit") }
        monochrome = false
        if profile != 1 { monochrome = try r.readFlag("mono_chrome") }
        var primaries: UInt32 = 2
        var transfer: UInt32 = 2
        var matrix: UInt32 = 2
        if try r.readFlag("color_description_present_flag") {
            primaries = try r.readBits(8, "color_primaries")
            transfer = try r.readBits(8, "transfer_characteristics")
            matrix = try r.readBits(8, "matrix_coefficients")
        }
        chromaSamplePosition = 0
        if monochrome {
            _ = try r.readFlag("color_range")
            (subsamplingX, subsamplingY) = (true, true)
            return
        }
        // BT.709 primaries, sRGB transfer, identity matrix: 4:4:4 with no color_range bit.
        if primaries == 1, transfer == 13, matrix == 0 {
            (subsamplingX, subsamplingY) = (false, false)
        } else {
            _ = try r.readFlag("color_range")
            switch profile {
            case 0: (subsamplingX, subsamplingY) = (true, true)
            case 1: (subsamplingX, subsamplingY) = (false, false)
            default:
                if twelveBit {
                    subsamplingX = try r.readFlag("subsampling_x")
                    subsamplingY = false
                    if subsamplingX { subsamplingY = try r.readFlag("subsampling_y") }
                } else {
                    (subsamplingX, subsamplingY) = (true, false)
                }
            }
            if subsamplingX, subsamplingY { chromaSamplePosition = UInt8(try r.readBits(2, "chroma_sample_position")) }
        }
        _ = try r.readFlag("separate_uv_delta_q")
    }
}
