import MediaCore

/// ISO/IEC 14496-15 §5.3.3.1: the `avcC` record (also the FLV AVC sequence header) holding SPS and PPS.
public struct AVCDecoderConfigurationRecord: Equatable, Sendable {
    /// AVCProfileIndication (profile_idc of the SPS).
    public var profileIndication: UInt8
    /// profile_compatibility (the SPS constraint flags byte).
    public var profileCompatibility: UInt8
    /// AVCLevelIndication (level_idc).
    public var levelIndication: UInt8
    /// Bytes in each NAL length prefix: 1, 2 or 4.
    public var nalUnitLengthSize: Int
    /// Sequence parameter set NAL units, each with its NAL header.
    public var sequenceParameterSets: [[UInt8]]
    /// Picture parameter set NAL units, each with its NAL header.
    public var pictureParameterSets: [[UInt8]]
    /// chroma_format (high-profile tail only).
    public var chromaFormat: UInt8
    /// bit_depth_luma_minus8 (high-profile tail only).
    public var bitDepthLumaMinus8: UInt8
    /// bit_depth_chroma_minus8 (high-profile tail only).
    public var bitDepthChromaMinus8: UInt8
    /// SPS extension NAL units (high-profile tail only).
    public var sequenceParameterSetExtensions: [[UInt8]]

    /// Profiles whose record carries the chroma/bit-depth tail (§5.3.3.1.1).
    static let tailProfiles: Set<UInt8> = [100, 110, 122, 144]

    /// Parses a record; a high-profile record without its tail (common from older muxers) is accepted.
    public init(parsing bytes: [UInt8]) throws(CodecFormatError) {
        var r = ByteReader(bytes)
        do {
            let version = try r.readUInt8()
            guard version == 1 else { throw CodecFormatError.unsupportedVersion(version) }
            profileIndication = try r.readUInt8()
            profileCompatibility = try r.readUInt8()
            levelIndication = try r.readUInt8()
            nalUnitLengthSize = Int(try r.readUInt8() & 0x03) + 1
            guard nalUnitLengthSize != 3 else { throw CodecFormatError.invalidLengthSize(3) }
            let spsCount = Int(try r.readUInt8() & 0x1F)
            sequenceParameterSets = try Self.readParameterSets(&r, count: spsCount)
            let ppsCount = Int(try r.readUInt8())
            pictureParameterSets = try Self.readParameterSets(&r, count: ppsCount)
            chromaFormat = 1
            bitDepthLumaMinus8 = 0
            bitDepthChromaMinus8 = 0
            sequenceParameterSetExtensions = []
            if Self.tailProfiles.contains(profileIndication), r.remaining >= 4 {
                chromaFormat = try r.readUInt8() & 0x03
                bitDepthLumaMinus8 = try r.readUInt8() & 0x07
                bitDepthChromaMinus8 = try r.readUInt8() & 0x07
                let extCount = Int(try r.readUInt8())
                sequenceParameterSetExtensions = try Self.readParameterSets(&r, count: extCount)
            } else if let sps = sequenceParameterSets.first, let parsed = try? H264SPS(parsing: sps) {
                setTail(from: parsed)
            }
        } catch let error as CodecFormatError {
            throw error
        } catch {
            throw .truncated(what: "AVCDecoderConfigurationRecord")
        }
    }

    /// A record for one SPS and one PPS with 4-byte NAL lengths; profile fields come from `sps[1...3]`.
    public init(sps: [UInt8], pps: [UInt8]) {
        profileIndication = sps.count > 1 ? sps[1] : 0
        profileCompatibility = sps.count > 2 ? sps[2] : 0
        levelIndication = sps.count > 3 ? sps[3] : 0
        nalUnitLengthSize = 4
        sequenceParameterSets = [sps]
        pictureParameterSets = [pps]
        chromaFormat = 1
        bitDepthLumaMinus8 = 0
        bitDepthChromaMinus8 = 0
        sequenceParameterSetExtensions = []
        if let parsed = try? H264SPS(parsing: sps) { setTail(from: parsed) }
    }

    /// The record bytes; profiles 100/110/122/144 get the chroma/bit-depth tail.
    public func serialize() -> [UInt8] {
        var w = ByteWriter(
            capacity: 16 + (sequenceParameterSets + pictureParameterSets).reduce(0) { $0 + $1.count + 2 }
        )
        w.writeUInt8(1)
        w.writeUInt8(profileIndication)
        w.writeUInt8(profileCompatibility)
        w.writeUInt8(levelIndication)
        w.writeUInt8(0xFC | UInt8((nalUnitLengthSize - 1) & 0x03))
        w.writeUInt8(0xE0 | UInt8(min(sequenceParameterSets.count, 31)))
        Self.writeParameterSets(&w, sequenceParameterSets.prefix(31))
        w.writeUInt8(UInt8(min(pictureParameterSets.count, 255)))
        Self.writeParameterSets(&w, pictureParameterSets.prefix(255))
        if Self.tailProfiles.contains(profileIndication) {
            w.writeUInt8(0xFC | chromaFormat & 0x03)
            w.writeUInt8(0xF8 | bitDepthLumaMinus8 & 0x07)
            w.writeUInt8(0xF8 | bitDepthChromaMinus8 & 0x07)
            w.writeUInt8(UInt8(min(sequenceParameterSetExtensions.count, 255)))
            Self.writeParameterSets(&w, sequenceParameterSetExtensions.prefix(255))
        }
        return w.bytes
    }

    /// Fills the high-profile tail from a parsed SPS.
    private mutating func setTail(from sps: H264SPS) {
        chromaFormat = UInt8(sps.chromaFormatIdc & 0x03)
        bitDepthLumaMinus8 = UInt8(sps.bitDepthLumaMinus8 & 0x07)
        bitDepthChromaMinus8 = UInt8(sps.bitDepthChromaMinus8 & 0x07)
    }

    /// `count` entries of a 16-bit length followed by a NAL unit.
    private static func readParameterSets(_ r: inout ByteReader, count: Int) throws(ByteReaderError) -> [[UInt8]] {
        var sets: [[UInt8]] = []
        for _ in 0..<count {
            let length = Int(try r.readUInt16())
            sets.append(Array(try r.read(count: length)))
        }
        return sets
    }

    /// Writes 16-bit-length-prefixed NAL units.
    private static func writeParameterSets(_ w: inout ByteWriter, _ sets: ArraySlice<[UInt8]>) {
        for set in sets {
            w.writeUInt16(UInt16(truncatingIfNeeded: set.count))
            w.write(set.prefix(0xFFFF))
        }
    }
}
