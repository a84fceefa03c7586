import CodecFormats
import MediaCore

/// ITU-T H.264 Annex B / H.265 Annex B: a video PES payload (§2.14 of 13818-1 carries the byte stream format) turned
/// into what the hub takes — 4-byte length-prefixed NAL units without delimiters or parameter sets, and the
/// decoder configuration record (avcC, hvcC) those in-band parameter sets make.
struct TSVideoAccessUnit: Equatable {
    /// Length-prefixed NAL units of the picture (access unit delimiters and parameter sets removed).
    var sample: [UInt8] = []
    /// An IDR (H.264) or IRAP (H.265: BLA, IDR, CRA) picture: a place to start decoding.
    var isKeyframe = false
    /// avcC or hvcC from the parameter sets this unit carries; nil unless it carries all the codec needs.
    var configuration: [UInt8]?

    /// Splits `annexB` for `codec` (`.h264` or `.hevc`).
    init(annexB: [UInt8], codec: Codec) throws(CodecFormatError) {
        var sets: [UInt8: [[UInt8]]] = [:]
        for nal in H264.nalUnits(annexB: annexB) {
            let type = codec == .hevc ? HEVC.nalType(nal) : H264.nalType(nal)
            switch (codec, type) {
            // H.264 Table 7-1: 7 SPS, 8 PPS, 9 AUD; H.265 Table 7-1: 32 VPS, 33 SPS, 34 PPS, 35 AUD.
            case (.hevc, 32...34), (.h264, 7...8): sets[type, default: []].append(Array(nal))
            case (.hevc, 35), (.h264, 9): continue  // Delimiters mean nothing inside fMP4 samples.
            default:
                if codec == .hevc ? (16...23).contains(type) : type == 5 { isKeyframe = true }
                let n = nal.count
                sample += [UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
                sample += nal
            }
        }
        if codec == .hevc, let vps = sets[32], let sps = sets[33], let pps = sets[34] {
            configuration = try HEVCDecoderConfigurationRecord.serialize(vps: vps, sps: sps, pps: pps)
        } else if codec == .h264, let sps = sets[7]?.first, let pps = sets[8]?.first {
            configuration = AVCDecoderConfigurationRecord(sps: sps, pps: pps).serialize()
        }
    }

    /// The video parameters a configuration record from `init` stands for.
    static func parameters(_ record: [UInt8], codec: Codec) throws(CodecFormatError) -> VideoParameters {
        codec == .hevc
            ? try VideoParameters(hevcDecoderConfiguration: record)
            : try VideoParameters(avcDecoderConfiguration: record)
    }
}
