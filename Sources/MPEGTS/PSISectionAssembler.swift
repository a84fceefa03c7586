/// ISO/IEC 13818-1 §2.4.4.1–2 and Annex A: PSI sections (PAT, PMT) gathered from one PID's packets.
///
/// A section may span packets and a packet may hold the tail of one section, then (after pointer_field's bytes)
/// further sections, then 0xFF stuffing. A section that lost a packet or fails its CRC_32 is dropped, not guessed at.
struct PSISectionAssembler: Sendable, Equatable {
    /// §2.4.4.11: a PSI section_length never exceeds 1021 (0x3FD) bytes.
    static let maximumSectionLength = 1021

    private var buffer: [UInt8] = []
    /// True while bytes belong to a section (false after stuffing, a loss or a bad header: wait for a unit start).
    private var collecting = false
    /// Sections lost to a missing packet, a bad CRC_32 or an impossible length.
    private(set) var dropped = 0

    /// An assembler between sections.
    init() {}

    /// Feeds one packet's payload; returns the whole sections it completed (table_id through CRC_32, CRC checked).
    mutating func feed(_ payload: ArraySlice<UInt8>, unitStart: Bool, lost: Bool) -> [[UInt8]] {
        if lost { abandon() }
        guard unitStart else {
            guard collecting else { return [] }
            buffer += payload
            return drain()
        }
        guard let pointer = payload.first else { return [] }
        let data = payload.dropFirst()
        guard Int(pointer) <= data.count else {
            abandon()
            return []
        }
        var sections: [[UInt8]] = []
        // The bytes before pointer_field's target end the section in progress.
        if collecting {
            buffer += data.prefix(Int(pointer))
            sections += drain()
            abandon()
        }
        buffer = Array(data.dropFirst(Int(pointer)))
        collecting = true
        return sections + drain()
    }

    /// Takes whole sections off the front; stops at stuffing (0xFF), a partial section or a bad one.
    private mutating func drain() -> [[UInt8]] {
        var sections: [[UInt8]] = []
        while collecting, let first = buffer.first {
            guard first != 0xFF else {
                collecting = false
                buffer = []
                break
            }
            guard buffer.count >= 3 else { break }
            let length = Int(buffer[1] & 0x0F) << 8 | Int(buffer[2])
            guard length <= Self.maximumSectionLength, length >= 4 else {
                abandon()
                break
            }
            guard buffer.count >= 3 + length else { break }
            let section = Array(buffer[..<(3 + length)])
            buffer.removeFirst(3 + length)
            // Long-form sections (section_syntax_indicator 1, as PAT and PMT are) end in a CRC_32 that leaves 0.
            if section[1] & 0x80 != 0, CRC32MPEG2.checksum(section) != 0 {
                dropped += 1
            } else {
                sections.append(section)
            }
        }
        if collecting, buffer.isEmpty { collecting = false }
        return sections
    }

    /// Drops the section in progress (counted when it had begun).
    private mutating func abandon() {
        if collecting, !buffer.isEmpty { dropped += 1 }
        collecting = false
        buffer = []
    }
}
