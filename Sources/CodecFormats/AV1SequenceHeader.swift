/// AV1 spec §5.5 sequence_header_obu, up to max_frame_height_minus_1: profile, level, tier and picture size.
public struct AV1SequenceHeader: Equatable, Sendable {
    /// seq_profile (0 Main, 1 High, 2 Professional).
    public var profile: UInt8
    /// seq_level_idx[0] (0 is level 2.0; 31 means unconstrained).
    public var levelIndex: UInt8
    /// seq_tier[0]: true High tier.
    public var highTier: Bool
    /// reduced_still_picture_header: every frame is a key frame.
    public var reducedStillPictureHeader: Bool
    /// max_frame_width_minus_1 + 1.
    public var width: Int
    /// max_frame_height_minus_1 + 1.
    public var height: Int
    /// time_scale / num_units_in_display_tick when timing_info is present with equal picture intervals.
    public var frameRate: Double?
    /// §5.5.2 color_config (what an av1C record repeats); nil when the payload ends before it.
    public var colorConfig: AV1ColorConfig?

    /// Parses a sequence header OBU payload (after the OBU header and size).
    public init<C: Collection>(parsing payload: C) throws(CodecFormatError) where C.Element == UInt8 {
        var r = BitReader(Array(payload))
        profile = UInt8(try r.readBits(3, "seq_profile"))
        guard profile <= 2 else { throw .unsupportedProfile(profile) }
        _ = try r.readFlag("still_picture")
        reducedStillPictureHeader = try r.readFlag("reduced_still_picture_header")
        highTier = false
        frameRate = nil
        if reducedStillPictureHeader {
            levelIndex = UInt8(try r.readBits(5, "seq_level_idx"))
        } else {
            var decoderModel = false
            var bufferDelayLength = 0
            if try r.readFlag("timing_info_present_flag") {
                let tick = try r.readBits(32, "num_units_in_display_tick")
                let scale = try r.readBits(32, "time_scale")
                if try r.readFlag("equal_picture_interval") {
                    let ticks = try Self.readUVLC(&r)
                    if tick > 0 { frameRate = Double(scale) / Double(tick) / Double(UInt64(ticks) + 1) }
                }
                decoderModel = try r.readFlag("decoder_model_info_present_flag")
                if decoderModel {
                    bufferDelayLength = Int(try r.readBits(5, "buffer_delay_length_minus_1")) + 1
                    _ = try r.readBits(32, "num_units_in_decoding_tick")
                    _ = try r.readBits(10, "buffer_removal/frame_presentation_time_length_minus_1")
                }
            }
            let initialDisplayDelay = try r.readFlag("initial_display_delay_present_flag")
            let operatingPoints = Int(try r.readBits(5, "operating_points_cnt_minus_1")) + 1
            var first: (level: UInt8, tier: Bool)?
            for _ in 0..<operatingPoints {
                _ = try r.readBits(12, "operating_point_idc")
                let level = UInt8(try r.readBits(5, "seq_level_idx"))
                let tier = level > 7 ? try r.readFlag("seq_tier") : false
                if decoderModel, try r.readFlag("decoder_model_present_for_this_op") {
                    _ = try r.readBits(bufferDelayLength, "decoder_buffer_delay")
                    _ = try r.readBits(bufferDelayLength, "encoder_buffer_delay")
                    _ = try r.readFlag("low_delay_mode_flag")
                }
                if initialDisplayDelay, try r.readFlag("initial_display_delay_present_for_this_op") {
                    _ = try r.readBits(4, "initial_display_delay_minus_1")
                }
                if first == nil { first = (level, tier) }
            }
            levelIndex = first?.level ?? 0
            highTier = first?.tier ?? false
        }
        let widthBits = Int(try r.readBits(4, "frame_width_bits_minus_1")) + 1
        let heightBits = Int(try r.readBits(4, "frame_height_bits_minus_1")) + 1
        width = Int(try r.readBits(widthBits, "max_frame_width_minus_1")) + 1
        height = Int(try r.readBits(heightBits, "max_frame_height_minus_1")) + 1
        colorConfig = try? Self.readToolFlagsAndColorConfig(&r, profile: profile, reduced: reducedStillPictureHeader)
    }

    /// §5.5.1 from frame_id_numbers_present_flag through color_config: the tool flags are skipped, the colour kept.
    private static func readToolFlagsAndColorConfig(
        _ r: inout BitReader,
        profile: UInt8,
        reduced: Bool
    ) throws(CodecFormatError) -> AV1ColorConfig {
        if !reduced, try r.readFlag("frame_id_numbers_present_flag") {
            _ = try r.readBits(7, "delta_frame_id_length_minus_2, additional_frame_id_length_minus_1")
        }
        _ = try r.readBits(3, "use_128x128_superblock, enable_filter_intra, enable_intra_edge_filter")
        if !reduced {
            _ = try r.readBits(4, "enable_interintra_compound, masked_compound, warped_motion, dual_filter")
            let orderHint = try r.readFlag("enable_order_hint")
            if orderHint { _ = try r.readBits(2, "enable_jnt_comp, enable_ref_frame_mvs") }
            // seq_choose_screen_content_tools set means SELECT (2), which counts as "> 0".
            var screenContent = try r.readFlag("seq_choose_screen_content_tools")
            if !screenContent { screenContent = try r.readFlag("seq_force_screen_content_tools") }
            if screenContent, try !r.readFlag("seq_choose_integer_mv") { _ = try r.readFlag("seq_force_integer_mv") }
            if orderHint { _ = try r.readBits(3, "order_hint_bits_minus_1") }
        }
        _ = try r.readBits(3, "enable_superres, enable_cdef, enable_restoration")
        return try AV1ColorConfig(reading: &r, profile: profile)
    }

    /// §4.10.3 uvlc(): leading zeros, then that many bits; 32 or more zeros saturate.
    private static func readUVLC(_ r: inout BitReader) throws(CodecFormatError) -> UInt32 {
        var zeros = 0
        while try r.readBit("uvlc") == 0 {
            zeros += 1
            if zeros >= 32 { return UInt32.max }
        }
        return try r.readBits(zeros, "uvlc") &+ UInt32((UInt64(1) << zeros) - 1)
    }
}
