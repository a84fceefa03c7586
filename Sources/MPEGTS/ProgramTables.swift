/// ISO/IEC 13818-1 Table 2-34: the stream_type of an elementary stream, and the ones this gateway reads.
public struct TSStreamType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The 8-bit stream_type.
    public var rawValue: UInt8
    /// Creates a stream type.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// ISO/IEC 13818-7 AAC with ADTS transport syntax.
    public static let aacADTS = TSStreamType(rawValue: 0x0F)
    /// ITU-T H.264 | ISO/IEC 14496-10 video.
    public static let h264 = TSStreamType(rawValue: 0x1B)
    /// ITU-T H.265 video (§2.17).
    public static let h265 = TSStreamType(rawValue: 0x24)

    public var description: String {
        switch self {
        case .aacADTS: "AAC (ADTS)"
        case .h264: "H.264"
        case .h265: "H.265"
        default: "stream_type 0x" + String(rawValue, radix: 16)
        }
    }
}

/// One elementary stream of the program: its PID and stream_type (a PMT entry).
public struct TSElementaryStream: Sendable, Hashable {
    /// elementary_PID.
    public var pid: Int
    /// stream_type.
    public var streamType: TSStreamType
    /// Creates an entry.
    public init(pid: Int, streamType: TSStreamType) {
        self.pid = pid
        self.streamType = streamType
    }
}

/// ISO/IEC 13818-1 §2.4.4: the PAT (§2.4.4.3) and PMT (§2.4.4.8) sections this demuxer reads, each a whole section
/// from `PSISectionAssembler` (CRC_32 already checked).
enum ProgramTables {
    /// One PAT entry: program_number and its program_map_PID.
    struct Program: Sendable, Equatable {
        var number: Int
        var pmtPID: Int
    }

    /// A long-form section's body (after table_id_extension, version and section numbers; before CRC_32) when its
    /// table_id is `tableID` and it applies now (current_next_indicator 1), with its table_id_extension.
    static func body(_ section: [UInt8], tableID: UInt8) -> (idExtension: Int, body: ArraySlice<UInt8>)? {
        guard section.count >= 12, section[0] == tableID, section[1] & 0x80 != 0, section[5] & 0x01 != 0 else {
            return nil
        }
        return (Int(section[3]) << 8 | Int(section[4]), section[8..<section.count - 4])
    }

    /// PAT: the first program's number and program_map_PID (program_number 0 is the network PID).
    static func program(_ section: [UInt8]) -> Program? {
        guard let (_, s) = body(section, tableID: 0x00) else { return nil }
        var i = s.startIndex
        while i + 4 <= s.endIndex {
            let program = Int(s[i]) << 8 | Int(s[i + 1])
            let pid = Int(s[i + 2] & 0x1F) << 8 | Int(s[i + 3])
            if program != 0, pid != 0 { return Program(number: program, pmtPID: pid) }
            i += 4
        }
        return nil
    }

    /// PMT of `program`: every elementary stream, in order (nil for another program's PMT or a malformed one).
    static func elementaryStreams(_ section: [UInt8], program: Int) -> [TSElementaryStream]? {
        guard let (number, s) = body(section, tableID: 0x02), number == program, s.count >= 4 else { return nil }
        let infoLength = Int(s[s.startIndex + 2] & 0x0F) << 8 | Int(s[s.startIndex + 3])
        var i = s.startIndex + 4 + infoLength
        var streams: [TSElementaryStream] = []
        while i + 5 <= s.endIndex {
            let pid = Int(s[i + 1] & 0x1F) << 8 | Int(s[i + 2])
            streams.append(TSElementaryStream(pid: pid, streamType: TSStreamType(rawValue: s[i])))
            i += 5 + (Int(s[i + 3] & 0x0F) << 8 | Int(s[i + 4]))
        }
        return streams
    }
}
