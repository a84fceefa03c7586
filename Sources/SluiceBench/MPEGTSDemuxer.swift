import MediaCore

/// One H.264 access unit from an MPEG-TS PES packet: Annex B bytes and 90 kHz timestamps.
public struct TSAccessUnit: Sendable, Equatable {
    /// Presentation time (90 kHz, 33-bit wrap not undone).
    public var pts: MediaTime
    /// Decode time (the PTS when the PES carries none).
    public var dts: MediaTime
    /// The PES payload: Annex B NAL units with start codes.
    public var data: [UInt8]
}

/// ISO/IEC 13818-1 §2.4: a minimal MPEG-TS demuxer for the first H.264 stream (PAT → PMT → PID, PES, PTS/DTS).
///
/// Enough for classic-HLS segments (nginx-rtmp, ffmpeg): sections fit one packet, no scrambling, no CRC check.
public struct MPEGTSDemuxer: Sendable {
    /// ISO/IEC 13818-1 Table 2-34: stream_type of AVC video.
    static let h264StreamType: UInt8 = 0x1B
    /// Transport packet size (§2.4.3.2).
    static let packetSize = 188

    private var pending: [UInt8] = []
    private var pmtPID: Int?
    private var videoPID: Int?
    private var pes: [UInt8]?
    /// Bytes skipped while looking for the sync byte 0x47.
    public private(set) var skippedBytes = 0

    /// A demuxer with no program yet.
    public init() {}

    /// Feeds bytes (any split); returns the access units completed by them.
    public mutating func feed(_ bytes: some Collection<UInt8>) -> [TSAccessUnit] {
        pending.append(contentsOf: bytes)
        var units: [TSAccessUnit] = []
        var offset = 0
        while pending.count - offset >= Self.packetSize {
            guard pending[offset] == 0x47 else {
                offset += 1
                skippedBytes += 1
                continue
            }
            if let unit = packet(pending[offset..<offset + Self.packetSize]) { units.append(unit) }
            offset += Self.packetSize
        }
        pending.removeFirst(offset)
        return units
    }

    /// Ends the stream: the PES in progress (unbounded video PES end only at the next start) is returned.
    public mutating func flush() -> [TSAccessUnit] {
        defer { pes = nil }
        return pes.flatMap(Self.accessUnit).map { [$0] } ?? []
    }

    /// Demuxes a whole buffer, e.g. one segment.
    public static func accessUnits(in bytes: [UInt8]) -> [TSAccessUnit] {
        var demuxer = MPEGTSDemuxer()
        return demuxer.feed(bytes) + demuxer.flush()
    }

    /// One 188-byte packet (§2.4.3.2); returns an access unit when a PES completes.
    private mutating func packet(_ p: ArraySlice<UInt8>) -> TSAccessUnit? {
        let b = p.startIndex
        let unitStart = p[b + 1] & 0x40 != 0
        let pid = Int(p[b + 1] & 0x1F) << 8 | Int(p[b + 2])
        let adaptation = (p[b + 3] >> 4) & 0x03
        var start = b + 4
        if adaptation & 0x02 != 0 {
            start += 1 + Int(p[b + 4])  // adaptation_field_length (§2.4.3.5)
        }
        guard adaptation & 0x01 != 0, start < p.endIndex else { return nil }
        let payload = p[start...]
        if pid == 0 {
            if unitStart { readPAT(payload) }
            return nil
        }
        if pid == pmtPID {
            if unitStart { readPMT(payload) }
            return nil
        }
        guard pid == videoPID else { return nil }
        var finished: TSAccessUnit?
        if unitStart {
            finished = pes.flatMap(Self.accessUnit)
            pes = Array(payload)
        } else {
            pes?.append(contentsOf: payload)  // Continuation without a start (joined mid-PES) is dropped.
        }
        return finished
    }

    /// The section after the pointer_field (§2.4.4.2), bounded by section_length; nil if malformed.
    private static func section(_ payload: ArraySlice<UInt8>, tableID: UInt8) -> ArraySlice<UInt8>? {
        guard let pointer = payload.first else { return nil }
        let start = payload.startIndex + 1 + Int(pointer)
        guard payload.endIndex - start >= 3, payload[start] == tableID else { return nil }
        let length = Int(payload[start + 1] & 0x0F) << 8 | Int(payload[start + 2])
        let end = start + 3 + length
        guard end <= payload.endIndex, length >= 9 else { return nil }
        return payload[start + 3..<end - 4]  // After the header, without the CRC_32.
    }

    /// PAT (§2.4.4.3): the first program's program_map_PID.
    private mutating func readPAT(_ payload: ArraySlice<UInt8>) {
        guard let s = Self.section(payload, tableID: 0x00) else { return }
        var i = s.startIndex + 5  // transport_stream_id, version, section numbers.
        while i + 4 <= s.endIndex {
            let program = Int(s[i]) << 8 | Int(s[i + 1])
            let pid = Int(s[i + 2] & 0x1F) << 8 | Int(s[i + 3])
            if program != 0 {
                pmtPID = pid
                return
            }
            i += 4
        }
    }

    /// PMT (§2.4.4.8): the PID of the first stream_type 0x1B elementary stream.
    private mutating func readPMT(_ payload: ArraySlice<UInt8>) {
        guard let s = Self.section(payload, tableID: 0x02), s.count >= 9 else { return }
        let infoLength = Int(s[s.startIndex + 7] & 0x0F) << 8 | Int(s[s.startIndex + 8])
        var i = s.startIndex + 9 + infoLength
        while i + 5 <= s.endIndex {
            let type = s[i]
            let pid = Int(s[i + 1] & 0x1F) << 8 | Int(s[i + 2])
            let esInfo = Int(s[i + 3] & 0x0F) << 8 | Int(s[i + 4])
            if type == Self.h264StreamType {
                videoPID = pid
                return
            }
            i += 5 + esInfo
        }
    }

    /// A PES packet (§2.4.3.6) as an access unit; nil without a start code prefix or PTS.
    static func accessUnit(_ pes: [UInt8]) -> TSAccessUnit? {
        guard pes.count >= 9, pes[0] == 0, pes[1] == 0, pes[2] == 1 else { return nil }
        let flags = pes[7] >> 6
        let headerEnd = 9 + Int(pes[8])
        guard flags & 0x02 != 0, pes.count >= headerEnd, headerEnd >= 14 else { return nil }
        let pts = timestamp(pes[9..<14])
        let dts = flags == 0x03 && headerEnd >= 19 ? timestamp(pes[14..<19]) : pts
        // PES_packet_length bounds the payload when set; video usually leaves it 0 (unbounded).
        let declared = Int(pes[4]) << 8 | Int(pes[5])
        let end = declared > 0 ? min(pes.count, 6 + declared) : pes.count
        guard end >= headerEnd else { return nil }
        return TSAccessUnit(
            pts: MediaTime(value: pts, timescale: 90_000),
            dts: MediaTime(value: dts, timescale: 90_000),
            data: Array(pes[headerEnd..<end])
        )
    }

    /// A 33-bit PTS/DTS in its 5-byte marker-bit layout (§2.4.3.7).
    static func timestamp(_ b: ArraySlice<UInt8>) -> Int64 {
        let i = b.startIndex
        let high = Int64(b[i] >> 1 & 0x07) << 30
        let mid = ((Int64(b[i + 1]) << 8 | Int64(b[i + 2])) >> 1) << 15
        let low = (Int64(b[i + 3]) << 8 | Int64(b[i + 4])) >> 1
        return high | mid | low
    }
}
