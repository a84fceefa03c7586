/// Why bytes could not be read as ISO BMFF boxes (ISO/IEC 14496-12 §4.2).
public enum FMP4Error: Error, Equatable, Sendable {
    /// Fewer than the 8 (or 16) header bytes remained at `offset`.
    case truncatedHeader(offset: Int, available: Int)
    /// A box at `offset` declares `size` bytes, smaller than its own header.
    case sizeTooSmall(type: String, offset: Int, size: UInt64)
    /// A box at `offset` declares `size` bytes but only `available` remain in its parent.
    case sizePastEnd(type: String, offset: Int, size: UInt64, available: Int)
    /// A container's fixed fields (e.g. the sample entry prefix) are shorter than `needed`.
    case truncatedFields(type: String, needed: Int, available: Int)
    /// A box a clip needs is missing (`path`, e.g. `moov/mvhd`) from `what` (an init section, a segment).
    case missingBox(path: String, in: String)
    /// A fragment that cannot be moved into another file as is (`reason`, e.g. absolute base data offsets).
    case unsupportedFragment(reason: String)
}
