import CodecFormats
import MediaCore

/// ISO/IEC 13818-1 §2.4: muxes H.264 and AAC frames into a transport stream (one program, PCR on the video PID).
///
/// Built for a live caller (the bench's SRT publisher): every frame is its own PES, written at once (no audio
/// coalescing), PAT and PMT precede every keyframe, parameter sets and an access unit delimiter go in-band.
public struct MPEGTSMuxer: Sendable {
    /// PMT PID, as FFmpeg's muxer uses.
    static let pmtPID = 0x1000
    /// Elementary PIDs.
    static let videoPID = 0x100
    static let audioPID = 0x101
    /// Added to every timestamp so B-frames' decode times stay positive (90 kHz).
    static let timestampOffset: Int64 = 90_000

    private let description: StreamDescription
    private let parameterSets: [[UInt8]]
    private let audioConfig: AudioSpecificConfig?
    private var counters: [Int: UInt8] = [:]
    private var wroteTables = false

    /// A muxer for `description`'s tracks; throws when its parameter sets cannot be read.
    public init(description: StreamDescription) throws(MPEGTSError) {
        self.description = description
        if let video = description.video {
            do {
                let record = try AVCDecoderConfigurationRecord(parsing: video.decoderConfiguration)
                parameterSets = record.sequenceParameterSets + record.pictureParameterSets
            } catch { throw .codec(pid: Self.videoPID, error) }
        } else {
            parameterSets = []
        }
        if let audio = description.audio {
            do { audioConfig = try AudioSpecificConfig(parsing: audio.decoderConfiguration) } catch {
                throw .codec(pid: Self.audioPID, error)
            }
        } else {
            audioConfig = nil
        }
    }

    /// The transport packets of one frame (PAT/PMT first before a keyframe, and before anything else).
    public mutating func mux(_ frame: MediaFrame) throws(MPEGTSError) -> [UInt8] {
        var out: [UInt8] = []
        let isVideo = frame.kind == .video
        if !wroteTables || (isVideo && frame.isKeyframe) {
            out += tables()
            wroteTables = true
        }
        let dts = frame.dts.converted(to: 90_000).value + Self.timestampOffset
        let pts = frame.pts.converted(to: 90_000).value + Self.timestampOffset
        if isVideo {
            var payload: [UInt8] = [0, 0, 0, 1, 0x09, 0xF0]  // Access unit delimiter: any primary picture type.
            if frame.isKeyframe { for ps in parameterSets { payload += [0, 0, 0, 1] + ps } }
            do { payload += try H264.annexB(fromAVCC: frame.data) } catch { throw .codec(pid: Self.videoPID, error) }
            // A bounded PES (allowed for video, §2.4.3.7) lets a demuxer finish the frame when its last packet is in,
            // instead of one frame interval later when the next PES starts; too large a frame stays unbounded.
            let bounded = payload.count + 19 <= 0xFFFF ? payload.count : nil
            let header = Self.pesHeader(streamID: 0xE0, pts: pts, dts: dts, payloadLength: bounded)
            out += packets(pid: Self.videoPID, pes: header + payload, randomAccess: frame.isKeyframe, pcr: dts - 9_000)
        } else if let audioConfig {
            let adts = ADTS.wrap(frame.data, config: audioConfig)
            let header = Self.pesHeader(streamID: 0xC0, pts: pts, dts: pts, payloadLength: adts.count)
            out += packets(pid: Self.audioPID, pes: header + adts, randomAccess: true, pcr: nil)
        }
        return out
    }

    /// PAT (§2.4.4.3) and PMT (§2.4.4.8), each in one packet.
    private mutating func tables() -> [UInt8] {
        let pat = Self.section(
            tableID: 0x00,
            idExtension: 1,
            body: [0x00, 0x01, 0xE0 | UInt8(Self.pmtPID >> 8), UInt8(Self.pmtPID & 0xFF)]
        )
        var streams: [UInt8] = []
        if description.video != nil {
            streams += [0x1B, 0xE0 | UInt8(Self.videoPID >> 8), UInt8(Self.videoPID & 0xFF), 0xF0, 0x00]
        }
        if audioConfig != nil {
            streams += [0x0F, 0xE0 | UInt8(Self.audioPID >> 8), UInt8(Self.audioPID & 0xFF), 0xF0, 0x00]
        }
        let pcrPID = description.video != nil ? Self.videoPID : Self.audioPID
        let pmt = Self.section(
            tableID: 0x02,
            idExtension: 1,
            body: [0xE0 | UInt8(pcrPID >> 8), UInt8(pcrPID & 0xFF), 0xF0, 0x00] + streams
        )
        return packets(pid: 0, pes: [0] + pat, randomAccess: false, pcr: nil)
            + packets(pid: Self.pmtPID, pes: [0] + pmt, randomAccess: false, pcr: nil)
    }

    /// A long-form section: header, `body`, CRC_32.
    static func section(tableID: UInt8, idExtension: UInt16, body: [UInt8]) -> [UInt8] {
        let length = 5 + body.count + 4
        var s: [UInt8] = [tableID, 0xB0 | UInt8(length >> 8), UInt8(length & 0xFF)]
        s += [UInt8(idExtension >> 8), UInt8(idExtension & 0xFF), 0xC1, 0x00, 0x00] + body
        let crc = CRC32MPEG2.checksum(s)
        return s + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
    }

    /// §2.4.3.6: PES header with PTS (and DTS when it differs); `payloadLength` nil leaves the length 0 (video).
    static func pesHeader(streamID: UInt8, pts: Int64, dts: Int64, payloadLength: Int?) -> [UInt8] {
        let both = pts != dts
        let headerData = both ? 10 : 5
        var h: [UInt8] = [0, 0, 1, streamID]
        let length = payloadLength.map { 3 + headerData + $0 } ?? 0
        h += length <= 0xFFFF ? [UInt8(length >> 8), UInt8(length & 0xFF)] : [0, 0]
        h += [0x80, both ? 0xC0 : 0x80, UInt8(headerData)]
        h += timestamp(pts, marker: both ? 0x3 : 0x2)
        if both { h += timestamp(dts, marker: 0x1) }
        return h
    }

    /// §2.4.3.7: 33 bits in five bytes with marker bits.
    static func timestamp(_ value: Int64, marker: UInt8) -> [UInt8] {
        let v = UInt64(value) & 0x1_FFFF_FFFF
        return [
            marker << 4 | UInt8(v >> 29 & 0x0E) | 1, UInt8(v >> 22 & 0xFF), UInt8(v >> 14 & 0xFE) | 1,
            UInt8(v >> 7 & 0xFF), UInt8(v << 1 & 0xFE) | 1,
        ]
    }

    /// Splits a PES (or a section after its pointer_field) into 188-byte packets; the last one is stuffed through its
    /// adaptation field (§2.4.3.5), the first carries the random-access flag and PCR when asked.
    private mutating func packets(pid: Int, pes: [UInt8], randomAccess: Bool, pcr: Int64?) -> [UInt8] {
        var out: [UInt8] = []
        var offset = 0
        var first = true
        while offset < pes.count || first {
            var field: [UInt8] = []
            if first, randomAccess || pcr != nil {
                field = [(randomAccess ? 0x40 : 0) | (pcr != nil ? 0x10 : 0)]
                if let pcr { field += Self.programClock(max(0, pcr)) }
            }
            let remaining = pes.count - offset
            let cc = counters[pid, default: 0]
            counters[pid] = (cc + 1) & 0x0F
            var p: [UInt8] = [0x47, (first ? 0x40 : 0) | UInt8(pid >> 8), UInt8(pid & 0xFF)]
            if field.isEmpty, remaining >= 184 {
                p.append(0x10 | cc)
                p += pes[offset..<offset + 184]
                offset += 184
            } else {
                let space = 184 - 1 - field.count
                let n = min(remaining, space)
                var stuffing = space - n
                if field.isEmpty, stuffing > 0 {
                    field = [0x00]
                    stuffing -= 1
                }
                field += [UInt8](repeating: 0xFF, count: stuffing)
                p.append(0x30 | cc)
                p += [UInt8(field.count)] + field
                p += pes[offset..<offset + n]
                offset += n
            }
            out += p
            first = false
        }
        return out
    }

    /// §2.4.3.5: a 27 MHz clock in the 6-byte base/extension layout (extension 0).
    static func programClock(_ ticks90k: Int64) -> [UInt8] {
        let base = UInt64(ticks90k) & 0x1_FFFF_FFFF
        return [
            UInt8(base >> 25 & 0xFF), UInt8(base >> 17 & 0xFF), UInt8(base >> 9 & 0xFF), UInt8(base >> 1 & 0xFF),
            UInt8(base << 7 & 0x80) | 0x7E, 0x00,
        ]
    }
}
