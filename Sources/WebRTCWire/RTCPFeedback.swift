import MediaCore

/// RFC 4585 §6.2.1: generic NACK, lost sequence numbers packed as PID + 16-bit BLP bitmask entries.
public struct RTCPGenericNACK: Equatable, Sendable {
    /// Our SSRC.
    public var senderSSRC: UInt32
    /// The publisher's media SSRC whose packets are missing.
    public var mediaSSRC: UInt32
    /// The missing sequence numbers, in the order entries carry them.
    public var lostSequenceNumbers: [UInt16]

    /// A NACK for `lost` (packed greedily: each PID covers itself and the 16 numbers after it).
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, lost: [UInt16]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        lostSequenceNumbers = lost
    }

    /// The (PID, BLP) entries this NACK encodes to.
    public var entries: [(pid: UInt16, blp: UInt16)] {
        var result: [(pid: UInt16, blp: UInt16)] = []
        for sequence in lostSequenceNumbers {
            if let last = result.last {
                let step = RTPSequenceNumber.distance(from: last.pid, to: sequence)
                if (1...16).contains(step) {
                    result[result.count - 1].blp |= 1 << (step - 1)
                    continue
                }
                if step == 0 { continue }
            }
            result.append((sequence, 0))
        }
        return result
    }

    init(reading reader: inout ByteReader) throws(ByteReaderError) {
        senderSSRC = try reader.readUInt32()
        mediaSSRC = try reader.readUInt32()
        lostSequenceNumbers = []
        while reader.remaining >= 4 {
            let pid = try reader.readUInt16()
            let blp = try reader.readUInt16()
            lostSequenceNumbers.append(pid)
            for bit in 0..<16 where blp & (1 << bit) != 0 { lostSequenceNumbers.append(pid &+ UInt16(bit + 1)) }
        }
    }

    func encodedBody() -> [UInt8] {
        var out = ByteWriter(capacity: 8 + 4 * lostSequenceNumbers.count)
        out.writeUInt32(senderSSRC)
        out.writeUInt32(mediaSSRC)
        for entry in entries {
            out.writeUInt16(entry.pid)
            out.writeUInt16(entry.blp)
        }
        return out.bytes
    }
}

/// RFC 5104 §4.3.1: Full Intra Request; media SSRC in the common header is 0, the target sits in each FCI entry.
public struct RTCPFullIntraRequest: Equatable, Sendable {
    /// One FCI entry: the source asked for a keyframe and the request's command sequence number.
    public struct Entry: Equatable, Sendable {
        /// The source that must send a decoder refresh point.
        public var ssrc: UInt32
        /// Incremented per new request (modulo 256), repeated on retransmission.
        public var sequenceNumber: UInt8

        /// An entry.
        public init(ssrc: UInt32, sequenceNumber: UInt8) {
            self.ssrc = ssrc
            self.sequenceNumber = sequenceNumber
        }
    }

    /// Our SSRC.
    public var senderSSRC: UInt32
    /// The requests.
    public var entries: [Entry]

    /// A FIR.
    public init(senderSSRC: UInt32, entries: [Entry]) {
        self.senderSSRC = senderSSRC
        self.entries = entries
    }

    init(reading reader: inout ByteReader) throws(ByteReaderError) {
        senderSSRC = try reader.readUInt32()
        _ = try reader.readUInt32()  // Media source SSRC: unused, SHALL be 0.
        entries = []
        while reader.remaining >= 8 {
            let ssrc = try reader.readUInt32()
            let sequence = try reader.readUInt8()
            try reader.skip(3)
            entries.append(Entry(ssrc: ssrc, sequenceNumber: sequence))
        }
    }

    func encodedBody() -> [UInt8] {
        var out = ByteWriter(capacity: 8 + 8 * entries.count)
        out.writeUInt32(senderSSRC)
        out.writeUInt32(0)
        for entry in entries {
            out.writeUInt32(entry.ssrc)
            out.writeUInt8(entry.sequenceNumber)
            out.writeUInt24(0)
        }
        return out.bytes
    }
}
