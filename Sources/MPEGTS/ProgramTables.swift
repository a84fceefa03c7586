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
    /// ITU-T H.265 video (recognised, not yet taken).
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

/// ISO/IEC 13818-1 §2.4.4: the PAT (§2.4.4.3) and PMT (§2.4.4.8) sections this demuxer reads.
///
/// Sections are read from the packet that starts them (every muxer seen — FFmpeg, OBS, srt-live-transmit — fits
/// them in one); the CRC_32 is not checked because the continuity counter already catches lost packets.
enum ProgramTables {
    /// The section after the pointer_field (§2.4.4.2), bounded by section_length, without header and CRC_32.
    static func section(_ payload: ArraySlice<UInt8>, tableID: UInt8) -> ArraySlice<UInt8>? {
        guard let pointer = payload.first else { return nil }
        let start = payload.startIndex + 1 + Int(pointer)
        guard start < payload.endIndex, payload.endIndex - start >= 3, payload[start] == tableID else { return nil }
        let length = Int(payload[start + 1] & 0x0F) << 8 | Int(payload[start + 2])
        let end = start + 3 + length
        guard end <= payload.endIndex, length >= 9 else { return nil }
        return payload[start + 3..<end - 4]
    }

    /// PAT: the first program's program_map_PID (program_number 0 is the network PID).
    static func programMapPID(_ payload: ArraySlice<UInt8>) -> Int? {
        guard let s = section(payload, tableID: 0x00) else { return nil }
        var i = s.startIndex + 5  // transport_stream_id, version, section numbers.
        while i + 4 <= s.endIndex {
            let program = Int(s[i]) << 8 | Int(s[i + 1])
            if program != 0 { return Int(s[i + 2] & 0x1F) << 8 | Int(s[i + 3]) }
            i += 4
        }
        return nil
    }

    /// PMT: every elementary stream, in order.
    static func elementaryStreams(_ payload: ArraySlice<UInt8>) -> [TSElementaryStream]? {
        guard let s = section(payload, tableID: 0x02), s.count >= 9 else { return nil }
        let infoLength = Int(s[s.startIndex + 7] & 0x0F) << 8 | Int(s[s.startIndex + 8])
        var i = s.startIndex + 9 + infoLength
        var streams: [TSElementaryStream] = []
        while i + 5 <= s.endIndex {
            let pid = Int(s[i + 1] & 0x1F) << 8 | Int(s[i + 2])
            streams.append(TSElementaryStream(pid: pid, streamType: TSStreamType(rawValue: s[i])))
            i += 5 + (Int(s[i + 3] & 0x0F) << 8 | Int(s[i + 4]))
        }
        return streams
    }
}
