/// ITU-T H.264 §7.3.2.1.1: the sequence parameter set fields a packager needs (size, profile, frame rate).
public struct H264SPS: Equatable, Sendable {
    /// profile_idc, e.g. 66 baseline, 77 main, 100 high.
    public var profileIdc: UInt8
    /// constraint_set0..5 flags and reserved bits, the second byte of the SPS.
    public var constraintFlags: UInt8
    /// level_idc, e.g. 31 for level 3.1.
    public var levelIdc: UInt8
    /// seq_parameter_set_id.
    public var spsID: Int
    /// chroma_format_idc (1 = 4:2:0 unless a high profile says otherwise).
    public var chromaFormatIdc: Int
    /// bit_depth_luma_minus8.
    public var bitDepthLumaMinus8: Int
    /// bit_depth_chroma_minus8.
    public var bitDepthChromaMinus8: Int
    /// Displayed width in pixels after frame cropping.
    public var width: Int
    /// Displayed height in pixels after frame cropping.
    public var height: Int
    /// Frames per second from VUI timing_info: time_scale / (2 * num_units_in_tick).
    public var frameRate: Double?

    /// Profiles whose SPS carries chroma format, bit depths and scaling lists (§7.3.2.1.1).
    static let highProfiles: Set<UInt8> = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]

    /// Parses an SPS NAL unit including its 1-byte NAL header.
    public init(parsing nalUnit: [UInt8]) throws(CodecFormatError) {
        guard let header = nalUnit.first else { throw .truncated(what: "SPS NAL header") }
        guard header & 0x1F == 7 else { throw .unexpectedNALType(expected: 7, found: header & 0x1F) }
        var r = BitReader(BitReader.rbsp(fromNAL: nalUnit.dropFirst()))
        profileIdc = UInt8(try r.readBits(8, "profile_idc"))
        constraintFlags = UInt8(try r.readBits(8, "constraint flags"))
        levelIdc = UInt8(try r.readBits(8, "level_idc"))
        spsID = Int(try r.readUE("seq_parameter_set_id"))
        guard spsID <= 31 else { throw .invalidValue(field: "seq_parameter_set_id", value: spsID) }
        chromaFormatIdc = 1
        bitDepthLumaMinus8 = 0
        bitDepthChromaMinus8 = 0
        var separateColourPlane = false
        if Self.highProfiles.contains(profileIdc) {
            chromaFormatIdc = Int(try r.readUE("chroma_format_idc"))
            guard chromaFormatIdc <= 3 else { throw .invalidValue(field: "chroma_format_idc", value: chromaFormatIdc) }
            if chromaFormatIdc == 3 { separateColourPlane = try r.readFlag("separate_colour_plane_flag") }
            bitDepthLumaMinus8 = Int(try r.readUE("bit_depth_luma_minus8"))
            bitDepthChromaMinus8 = Int(try r.readUE("bit_depth_chroma_minus8"))
            _ = try r.readBit("qpprime_y_zero_transform_bypass_flag")
            if try r.readFlag("seq_scaling_matrix_present_flag") {
                for i in 0..<(chromaFormatIdc != 3 ? 8 : 12) {
                    if try r.readFlag("seq_scaling_list_present_flag") {
                        try Self.skipScalingList(&r, size: i < 6 ? 16 : 64)
                    }
                }
            }
        }
        _ = try r.readUE("log2_max_frame_num_minus4")
        let pocType = try r.readUE("pic_order_cnt_type")
        switch pocType {
        case 0:
            _ = try r.readUE("log2_max_pic_order_cnt_lsb_minus4")
        case 1:
            _ = try r.readBit("delta_pic_order_always_zero_flag")
            _ = try r.readSE("offset_for_non_ref_pic")
            _ = try r.readSE("offset_for_top_to_bottom_field")
            let cycle = Int(try r.readUE("num_ref_frames_in_pic_order_cnt_cycle"))
            guard cycle <= 255 else {
                throw .invalidValue(field: "num_ref_frames_in_pic_order_cnt_cycle", value: cycle)
            }
            for _ in 0..<cycle { _ = try r.readSE("offset_for_ref_frame") }
        case 2:
            break
        default:
            throw .invalidValue(field: "pic_order_cnt_type", value: Int(pocType))
        }
        _ = try r.readUE("max_num_ref_frames")
        _ = try r.readBit("gaps_in_frame_num_value_allowed_flag")
        let widthInMbs = Int(try r.readUE("pic_width_in_mbs_minus1")) + 1
        let heightInMapUnits = Int(try r.readUE("pic_height_in_map_units_minus1")) + 1
        let frameMbsOnly = try r.readFlag("frame_mbs_only_flag")
        if !frameMbsOnly { _ = try r.readBit("mb_adaptive_frame_field_flag") }
        _ = try r.readBit("direct_8x8_inference_flag")
        var crop = (left: 0, right: 0, top: 0, bottom: 0)
        if try r.readFlag("frame_cropping_flag") {
            crop.left = Int(try r.readUE("frame_crop_left_offset"))
            crop.right = Int(try r.readUE("frame_crop_right_offset"))
            crop.top = Int(try r.readUE("frame_crop_top_offset"))
            crop.bottom = Int(try r.readUE("frame_crop_bottom_offset"))
        }
        // §7.4.2.1.1: crop units depend on ChromaArrayType and field coding.
        let chromaArrayType = separateColourPlane ? 0 : chromaFormatIdc
        let subWidthC = chromaArrayType == 3 ? 1 : 2
        let subHeightC = chromaArrayType == 1 ? 2 : 1
        let cropUnitX = chromaArrayType == 0 ? 1 : subWidthC
        let cropUnitY = (chromaArrayType == 0 ? 1 : subHeightC) * (frameMbsOnly ? 1 : 2)
        width = widthInMbs * 16 - cropUnitX * (crop.left + crop.right)
        height = (frameMbsOnly ? 1 : 2) * heightInMapUnits * 16 - cropUnitY * (crop.top + crop.bottom)
        guard width > 0, height > 0 else { throw .invalidValue(field: "frame cropping", value: min(width, height)) }
        frameRate = nil
        // VUI is optional to us: a truncated VUI still leaves a usable size.
        if (try? r.readFlag("vui_parameters_present_flag")) == true {
            frameRate = try? Self.vuiFrameRate(&r)
        }
    }

    /// RFC 6381 §3.3 codec string: `avc1.` + profile, constraint flags and level as lowercase hex.
    public var codecString: String {
        Self.codecString(profile: profileIdc, constraints: constraintFlags, level: levelIdc)
    }

    /// `avc1.PPCCLL` for the three given bytes.
    static func codecString(profile: UInt8, constraints: UInt8, level: UInt8) -> String {
        "avc1." + [profile, constraints, level].map(hex2).joined()
    }

    /// Two lowercase hex digits.
    static func hex2(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }

    /// §7.3.2.1.1.1 scaling_list(): only the bits are consumed.
    private static func skipScalingList(_ r: inout BitReader, size: Int) throws(CodecFormatError) {
        var last = 8
        var next = 8
        for _ in 0..<size where next != 0 {
            let delta = Int(try r.readSE("delta_scale"))
            next = (last + delta + 256) & 0xFF
            if next != 0 { last = next }
        }
    }

    /// Annex E.1.1 up to timing_info; nil when absent or zero.
    private static func vuiFrameRate(_ r: inout BitReader) throws(CodecFormatError) -> Double? {
        if try r.readFlag("aspect_ratio_info_present_flag") {
            if try r.readBits(8, "aspect_ratio_idc") == 255 { _ = try r.readBits(32, "sar") }
        }
        if try r.readFlag("overscan_info_present_flag") { _ = try r.readBit("overscan_appropriate_flag") }
        if try r.readFlag("video_signal_type_present_flag") {
            _ = try r.readBits(4, "video_format/full_range")
            if try r.readFlag("colour_description_present_flag") { _ = try r.readBits(24, "colour description") }
        }
        if try r.readFlag("chroma_loc_info_present_flag") {
            _ = try r.readUE("chroma_sample_loc_type_top_field")
            _ = try r.readUE("chroma_sample_loc_type_bottom_field")
        }
        guard try r.readFlag("timing_info_present_flag") else { return nil }
        let unitsInTick = try r.readBits(32, "num_units_in_tick")
        let timeScale = try r.readBits(32, "time_scale")
        guard unitsInTick > 0, timeScale > 0 else { return nil }
        return Double(timeScale) / (2 * Double(unitsInTick))
    }
}
