import CodecFormats
import MediaCore

/// RFC 6184 §5.6–5.8 (non-interleaved mode): single NAL units, STAP-A and FU-A into AVCC access units.
public struct H264Depacketizer: Sendable {
    /// What the depacketizer does after loss and how large an access unit may grow.
    public struct Configuration: Sendable {
        /// After a loss, drop access units until the next IDR (a freeze instead of smeared references).
        public var dropUntilKeyframe: Bool = true
        /// Larger access units are dropped as corrupt.
        public var maxAccessUnitBytes: Int = 8 << 20

        /// Defaults.
        public init(dropUntilKeyframe: Bool = true, maxAccessUnitBytes: Int = 8 << 20) {
            self.dropUntilKeyframe = dropUntilKeyframe
            self.maxAccessUnitBytes = maxAccessUnitBytes
        }
    }

    /// Why a keyframe is needed (send PLI or FIR).
    public enum KeyframeReason: Equatable, Sendable {
        /// No IDR seen yet.
        case waitingForFirstKeyframe
        /// `missing` sequence numbers never arrived.
        case packetLoss(missing: Int)
        /// An FU-A continued without a start, or STAP-A sizes ran past the payload.
        case corruptPayload
        /// STAP-B, MTAP, FU-B or a reserved NAL type (not allowed in packetization-mode 1).
        case unsupportedPayload(nalType: UInt8)
        /// The access unit outgrew `maxAccessUnitBytes`.
        case tooLarge
    }

    /// What a pushed packet produced.
    public enum Action: Equatable, Sendable {
        /// A complete, decodable access unit.
        case accessUnit(H264AccessUnit)
        /// Ask the publisher for a keyframe.
        case needsKeyframe(KeyframeReason)
    }

    private let configuration: Configuration
    private var lastSequence: UInt16?
    private var timestamp: UInt32?
    private var data: [UInt8] = []
    private var hasSlice = false
    private var carried: [UInt8] = []
    private var corrupt = false
    private var lossPending = false
    private var fragment: [UInt8]?
    private var waitingForKeyframe = true
    private var requested = false
    private var sps: [UInt8]?
    private var pps: [UInt8]?

    /// A depacketizer waiting for its first IDR.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The latest SPS/PPS as an avcC record, once both have been seen.
    public var decoderConfiguration: AVCDecoderConfigurationRecord? {
        guard let sps, let pps else { return nil }
        return AVCDecoderConfigurationRecord(sps: sps, pps: pps)
    }

    /// Takes the next packet in sequence order (from `RTPReorderBuffer`); one SSRC per depacketizer.
    public mutating func push(_ packet: RTPPacket) -> [Action] {
        var actions: [Action] = []
        if let last = lastSequence {
            switch RTPSequenceNumber.step(from: last, to: packet.sequenceNumber) {
            case .next: break
            case .stale: return []
            case .gap(let missing): noteLoss(.packetLoss(missing: missing), into: &actions)
            case .restart:
                // A new sequence: what is in progress is cut off, and decoding starts over at an IDR.
                corrupt = corrupt || timestamp != nil
                fragment = nil
                waitingForKeyframe = true
                requested = false
            }
        }
        lastSequence = packet.sequenceNumber
        if packet.payload.isEmpty { return actions }  // Padding-only probe.
        if let current = timestamp, current != packet.timestamp { finish(into: &actions) }
        if timestamp == nil {
            timestamp = packet.timestamp
            corrupt = lossPending
            data = lossPending ? [] : carried
            carried = []
        } else if lossPending {
            corrupt = true
        }
        lossPending = false
        if !corrupt { depayload(packet.payload, into: &actions) }
        if packet.marker { finish(into: &actions) }
        return actions
    }

    /// Emits the access unit in progress (for a stream that ends without a marker).
    public mutating func flush() -> [Action] {
        var actions: [Action] = []
        finish(into: &actions)
        return actions
    }

    private mutating func noteLoss(_ reason: KeyframeReason, into actions: inout [Action]) {
        // The gap may hold the tail of this access unit or the head of the next one: both are suspect.
        lossPending = true
        corrupt = corrupt || timestamp != nil
        fragment = nil
        requestKeyframe(reason, into: &actions)
    }

    private mutating func requestKeyframe(_ reason: KeyframeReason, into actions: inout [Action]) {
        if configuration.dropUntilKeyframe || reason == .waitingForFirstKeyframe { waitingForKeyframe = true }
        actions.append(.needsKeyframe(reason))
        requested = true
    }

    private mutating func markCorrupt(_ reason: KeyframeReason, into actions: inout [Action]) {
        if !corrupt { requestKeyframe(reason, into: &actions) }
        corrupt = true
        fragment = nil
    }

    private mutating func depayload(_ payload: [UInt8], into actions: inout [Action]) {
        let type = payload[0] & 0x1F
        switch type {
        case 1...23: appendNAL(payload[...], into: &actions)
        case 24:
            var offset = 1
            while offset < payload.count {
                guard offset + 2 <= payload.count else { return markCorrupt(.corruptPayload, into: &actions) }
                let size = Int(payload[offset]) << 8 | Int(payload[offset + 1])
                guard size > 0, offset + 2 + size <= payload.count else {
                    return markCorrupt(.corruptPayload, into: &actions)
                }
                appendNAL(payload[(offset + 2)..<(offset + 2 + size)], into: &actions)
                offset += 2 + size
            }
        case 28:
            guard payload.count >= 2 else { return markCorrupt(.corruptPayload, into: &actions) }
            let header = payload[1]
            if header & 0x80 != 0 {
                // A new start while one is open means the previous end never came.
                if fragment != nil { return markCorrupt(.corruptPayload, into: &actions) }
                fragment = [payload[0] & 0xE0 | header & 0x1F] + payload[2...]
            } else if fragment != nil {
                fragment! += payload[2...]
            } else {
                return markCorrupt(.corruptPayload, into: &actions)
            }
            if let nal = fragment, header & 0x40 != 0 {
                fragment = nil
                appendNAL(nal[...], into: &actions)
            } else if (fragment?.count ?? 0) > configuration.maxAccessUnitBytes {
                markCorrupt(.tooLarge, into: &actions)
            }
        default: markCorrupt(.unsupportedPayload(nalType: type), into: &actions)
        }
    }

    private mutating func appendNAL(_ nal: ArraySlice<UInt8>, into actions: inout [Action]) {
        guard data.count + 4 + nal.count <= configuration.maxAccessUnitBytes else {
            return markCorrupt(.tooLarge, into: &actions)
        }
        switch nal.first.map({ $0 & 0x1F }) ?? 0 {
        case 1...5: hasSlice = true
        case 7: sps = Array(nal)
        case 8: pps = Array(nal)
        default: break
        }
        data += be(UInt64(nal.count), width: 4)
        data += nal
    }

    private mutating func finish(into actions: inout [Action]) {
        defer {
            timestamp = nil
            data = []
            corrupt = false
            fragment = nil
            hasSlice = false
        }
        guard let timestamp, !data.isEmpty else { return }
        if fragment != nil { return markCorrupt(.corruptPayload, into: &actions) }
        if corrupt { return }
        // Parameter sets or SEI sent with their own marker belong to the next picture, not a frame of their own.
        guard hasSlice else {
            if data.count <= 65_536 { carried = data }
            return
        }
        let isKeyframe = H264.containsIDR(avcc: data)
        if waitingForKeyframe {
            guard isKeyframe else {
                if !requested { requestKeyframe(.waitingForFirstKeyframe, into: &actions) }
                return
            }
            waitingForKeyframe = false
            requested = false
        }
        actions.append(
            .accessUnit(
                H264AccessUnit(
                    timestamp: timestamp,
                    data: data,
                    isKeyframe: isKeyframe,
                    decoderConfiguration: isKeyframe ? decoderConfiguration : nil
                )
            )
        )
    }
}

/// One H.264 access unit: every NAL unit of one RTP timestamp, 4-byte length prefixed (MediaCore's AVCC convention).
public struct H264AccessUnit: Equatable, Sendable {
    /// RTP timestamp (90 kHz, wraps).
    public var timestamp: UInt32
    /// AVCC NAL units as sent (SPS/PPS included when the publisher sent them in band).
    public var data: [UInt8]
    /// True when an IDR slice is present.
    public var isKeyframe: Bool
    /// On keyframes: the latest SPS/PPS as an avcC record (nil if none was ever sent).
    public var decoderConfiguration: AVCDecoderConfigurationRecord?

    /// An access unit.
    public init(
        timestamp: UInt32,
        data: [UInt8],
        isKeyframe: Bool,
        decoderConfiguration: AVCDecoderConfigurationRecord? = nil
    ) {
        self.timestamp = timestamp
        self.data = data
        self.isKeyframe = isKeyframe
        self.decoderConfiguration = decoderConfiguration
    }

    /// The frame for the hub at decode time `dts` (WebRTC H.264 has no B-frames: composition offset 0).
    public func mediaFrame(dts: MediaTime, stamps: HopStamps = HopStamps()) -> MediaFrame {
        MediaFrame(kind: .video, dts: dts, isKeyframe: isKeyframe, data: data, stamps: stamps)
    }
}
