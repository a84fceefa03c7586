/// ISO/IEC 14496-15 §8.3.3.1.2: an `hvcC` record built from in-band VPS, SPS and PPS (an Annex B stream such as
/// MPEG-TS carries them before each IRAP picture; the sample entry wants them in the record).
extension HEVCDecoderConfigurationRecord {
    /// The record for `vps`, `sps` and `pps` (each a NAL unit with its two-byte header), 4-byte NAL lengths.
    ///
    /// Arrays are marked complete: frames built beside it carry no parameter sets (the `hvc1` sample entry's rule).
    public static func serialize(vps: [[UInt8]], sps: [[UInt8]], pps: [[UInt8]]) throws(CodecFormatError) -> [UInt8] {
        guard let first = sps.first else { throw .missingSPS }
        let s = try HEVCSPS(parsing: first)
        let ptl = s.profileTierLevel
        var out: [UInt8] = [1]
        out.append(ptl.profileSpace << 6 | (ptl.highTier ? 0x20 : 0) | ptl.profileIdc & 0x1F)
        out += (0..<4).map { UInt8(truncatingIfNeeded: ptl.compatibilityFlags >> (24 - 8 * $0)) }
        out += (0..<6).map { UInt8(truncatingIfNeeded: ptl.constraintFlags >> (40 - 8 * $0)) }
        out.append(ptl.levelIdc)
        // min_spatial_segmentation_idc 0 and parallelismType 0 ("unknown"), both allowed by §8.3.3.1.3.
        out += [0xF0, 0x00, 0xFC]
        out.append(0xFC | UInt8(s.chromaFormatIdc & 0x03))
        out.append(0xF8 | UInt8(s.bitDepthLumaMinus8 & 0x07))
        out.append(0xF8 | UInt8(s.bitDepthChromaMinus8 & 0x07))
        out += [0x00, 0x00]  // avgFrameRate: unspecified.
        // constantFrameRate 0, numTemporalLayers, temporalIdNested, lengthSizeMinusOne 3.
        out.append(UInt8(min(s.temporalLayers, 7)) << 3 | (s.temporalIDNesting ? 0x04 : 0) | 0x03)
        let arrays = [(vpsType, vps), (spsType, sps), (ppsType, pps)].filter { !$0.1.isEmpty }
        out.append(UInt8(arrays.count))
        for (type, units) in arrays {
            out.append(0x80 | type)
            out += [UInt8(units.count >> 8), UInt8(units.count & 0xFF)]
            for unit in units {
                guard unit.count <= 0xFFFF else { throw .nalTooLarge(length: unit.count, lengthSize: 2) }
                out += [UInt8(unit.count >> 8), UInt8(unit.count & 0xFF)] + unit
            }
        }
        return out
    }
}
