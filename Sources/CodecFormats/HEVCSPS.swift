/// ITU-T H.265 §7.3.2.2 seq_parameter_set_rbsp, up to the bit depths: picture size and profile_tier_level.
public struct HEVCSPS: Equatable, Sendable {
    /// sps_max_sub_layers_minus1 + 1: the temporal layers hvcC's numTemporalLayers names.
    public var temporalLayers: Int
    /// sps_temporal_id_nesting_flag.
    public var temporalIDNesting: Bool
    /// The general profile, tier and level.
    public var profileTierLevel: HEVCProfileTierLevel
    /// chroma_format_idc.
    public var chromaFormatIdc: Int
    /// Displayed width in pixels (conformance window applied).
    public var width: Int
    /// Displayed height in pixels (conformance window applied).
    public var height: Int
    /// bit_depth_luma_minus8.
    public var bitDepthLumaMinus8: Int
    /// bit_depth_chroma_minus8.
    public var bitDepthChromaMinus8: Int

    /// Parses an SPS NAL unit including its two-byte NAL header.
    public init(parsing nalUnit: [UInt8]) throws(CodecFormatError) {
        guard nalUnit.count > 2 else { throw .truncated(what: "HEVC SPS") }
        let type = (nalUnit[0] >> 1) & 0x3F
        guard type == HEVCDecoderConfigurationRecord.spsType else {
            throw .unexpectedNALType(expected: HEVCDecoderConfigurationRecord.spsType, found: type)
        }
        var r = BitReader(BitReader.rbsp(fromNAL: nalUnit.dropFirst(2)))
        _ = try r.readBits(4, "sps_video_parameter_set_id")
        let maxSubLayersMinus1 = Int(try r.readBits(3, "sps_max_sub_layers_minus1"))
        temporalLayers = maxSubLayersMinus1 + 1
        temporalIDNesting = try r.readFlag("sps_temporal_id_nesting_flag")
        profileTierLevel = try HEVCProfileTierLevel.read(&r)
        // §7.3.3: sub-layer flags, padding to 8 entries, then each present sub-layer's profile (88) and level (8).
        var present: [(profile: Bool, level: Bool)] = []
        for _ in 0..<maxSubLayersMinus1 {
            present.append(
                (try r.readFlag("sub_layer_profile_present_flag"), try r.readFlag("sub_layer_level_present_flag"))
            )
        }
        if maxSubLayersMinus1 > 0 { _ = try r.readBits(2 * (8 - maxSubLayersMinus1), "reserved_zero_2bits") }
        for p in present {
            if p.profile { for _ in 0..<11 { _ = try r.readBits(8, "sub_layer_profile") } }
            if p.level { _ = try r.readBits(8, "sub_layer_level_idc") }
        }
        _ = try r.readUE("sps_seq_parameter_set_id")
        chromaFormatIdc = Int(try r.readUE("chroma_format_idc"))
        guard chromaFormatIdc <= 3 else { throw .invalidValue(field: "chroma_format_idc", value: chromaFormatIdc) }
        if chromaFormatIdc == 3 { _ = try r.readFlag("separate_colour_plane_flag") }
        let codedWidth = Int(try r.readUE("pic_width_in_luma_samples"))
        let codedHeight = Int(try r.readUE("pic_height_in_luma_samples"))
        var crop = (left: 0, right: 0, top: 0, bottom: 0)
        if try r.readFlag("conformance_window_flag") {
            crop = (
                Int(try r.readUE("conf_win_left_offset")), Int(try r.readUE("conf_win_right_offset")),
                Int(try r.readUE("conf_win_top_offset")), Int(try r.readUE("conf_win_bottom_offset"))
            )
        }
        // Table 6-1: offsets count chroma samples, so 4:2:0 doubles both, 4:2:2 only the horizontal.
        let subWidth = chromaFormatIdc == 1 || chromaFormatIdc == 2 ? 2 : 1
        let subHeight = chromaFormatIdc == 1 ? 2 : 1
        width = codedWidth - subWidth * (crop.left + crop.right)
        height = codedHeight - subHeight * (crop.top + crop.bottom)
        guard width > 0, height > 0 else { throw .invalidValue(field: "pic_size", value: min(width, height)) }
        bitDepthLumaMinus8 = Int(try r.readUE("bit_depth_luma_minus8"))
        bitDepthChromaMinus8 = Int(try r.readUE("bit_depth_chroma_minus8"))
    }
}
