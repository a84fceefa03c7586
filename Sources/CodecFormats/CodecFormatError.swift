/// Why an H.264 or AAC configuration or bitstream could not be read (ISO/IEC 14496-15, 14496-3, ITU-T H.264).
public enum CodecFormatError: Error, Equatable, Sendable {
    /// The input ended inside the structure named by `what`.
    case truncated(what: String)
    /// An avcC `configurationVersion` other than 1.
    case unsupportedVersion(UInt8)
    /// A profile_idc this parser does not understand.
    case unsupportedProfile(UInt8)
    /// A NAL unit length prefix at `offset` claims `length` bytes but only `available` remain.
    case badNALLength(offset: Int, length: Int, available: Int)
    /// A NAL length prefix size other than 1, 2, 3 or 4 bytes.
    case invalidLengthSize(Int)
    /// A NAL unit of `length` bytes does not fit a `lengthSize`-byte prefix.
    case nalTooLarge(length: Int, lengthSize: Int)
    /// Expected a NAL unit of type `expected`, found `found`.
    case unexpectedNALType(expected: UInt8, found: UInt8)
    /// An avcC record without any sequence parameter set.
    case missingSPS
    /// A syntax element outside its legal range, e.g. an exp-Golomb code longer than 32 bits.
    case invalidValue(field: String, value: Int)
    /// A sampling_frequency_index of 13 or 14 (reserved).
    case reservedSampleRateIndex(Int)
    /// An ADTS header at `offset` without the 0xFFF syncword.
    case badADTSSyncword(offset: Int)
}
