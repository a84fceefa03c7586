import MediaCore

/// ISO/IEC 13818-1 §2.4: demuxes a transport stream (PAT → PMT → elementary PIDs → PES) into access units.
///
/// One demuxer for every TS reader in the gateway (SRT ingest, the bench's classic-HLS viewer). A lost packet
/// (continuity_counter gap, §2.4.3.3) drops the PES it belonged to instead of passing on a damaged frame.
public struct MPEGTSDemuxer: Sendable {
    /// A PES being gathered on one PID.
    private struct Assembly {
        var bytes: [UInt8] = []
        /// False once a packet of it was lost: the rest is skipped until the next unit start.
        var intact = true
        var afterDiscontinuity = false
    }

    private var pending: [UInt8] = []
    /// The program followed (the PAT's first) and its PMT PID.
    private var program: ProgramTables.Program?
    private var sections: [Int: PSISectionAssembler] = [:]
    private var assemblies: [Int: Assembly] = [:]
    private var lastCounter: [Int: UInt8] = [:]
    /// PIDs a changed PMT (re)listed: their next PES starts a new timeline, like a flagged discontinuity.
    private var restarted: Set<Int> = []
    /// The program's elementary streams from the latest PMT (empty before it).
    public private(set) var streams: [TSElementaryStream] = []
    /// Bytes skipped while looking for the sync byte 0x47.
    public private(set) var skippedBytes = 0
    /// Whole packets read.
    public private(set) var packetsRead = 0
    /// Continuity-counter gaps: packets lost before they reached us.
    public private(set) var continuityErrors = 0
    /// PES packets dropped: damaged by a loss, or without a start code prefix or PTS.
    public private(set) var droppedPES = 0
    /// PAT/PMT sections dropped: a packet of theirs lost, or a CRC_32 that did not match.
    public var droppedSections: Int { sections.values.reduce(0) { $0 + $1.dropped } }
    /// Times the PMT changed the program's elementary streams after the first.
    public private(set) var programChanges = 0

    /// A demuxer with no program yet.
    public init() {}

    /// Feeds bytes (any split); returns the access units completed by them.
    public mutating func feed(_ bytes: some Collection<UInt8>) throws(MPEGTSError) -> [TSAccessUnit] {
        pending.append(contentsOf: bytes)
        var units: [TSAccessUnit] = []
        var offset = 0
        defer { pending.removeFirst(offset) }
        while pending.count - offset >= TSPacket.size {
            guard pending[offset] == TSPacket.syncByte else {
                offset += 1
                skippedBytes += 1
                continue
            }
            let packet = try TSPacket(parsing: pending[offset..<offset + TSPacket.size])
            offset += TSPacket.size
            packetsRead += 1
            units += read(packet)
        }
        return units
    }

    /// Ends the stream: the PES in progress (video PES end only at the next start) is returned.
    public mutating func flush() -> [TSAccessUnit] {
        var units: [TSAccessUnit] = []
        for stream in streams {
            if let a = assemblies.removeValue(forKey: stream.pid), let u = finish(a, stream: stream) { units.append(u) }
        }
        return units
    }

    /// Demuxes a whole buffer, e.g. one segment; a broken packet ends it there.
    public static func accessUnits(in bytes: [UInt8]) -> [TSAccessUnit] {
        var demuxer = MPEGTSDemuxer()
        let units = (try? demuxer.feed(bytes)) ?? []
        return units + demuxer.flush()
    }

    private mutating func read(_ packet: TSPacket) -> [TSAccessUnit] {
        if packet.pid == 0 || packet.pid == program?.pmtPID { return readTables(packet) }
        guard let stream = streams.first(where: { $0.pid == packet.pid }), packet.hasPayload else { return [] }
        let continuity = continuity(packet)
        guard continuity != .duplicate else { return [] }
        let lost = continuity == .gap
        var finished: [TSAccessUnit] = []
        if packet.payloadUnitStart {
            if var previous = assemblies[packet.pid] {
                // The lost packets may have been the previous PES's tail.
                if lost { previous.intact = false }
                if let unit = finish(previous, stream: stream) { finished.append(unit) }
            }
            var next = Assembly(bytes: Array(packet.payload))
            next.afterDiscontinuity = lost || packet.discontinuity || restarted.remove(packet.pid) != nil
            assemblies[packet.pid] = next
        } else if assemblies[packet.pid] != nil {
            // Mutated in place: a copy out of the dictionary would copy the whole PES for every packet.
            if lost { assemblies[packet.pid]!.intact = false }
            if assemblies[packet.pid]!.intact { assemblies[packet.pid]!.bytes.append(contentsOf: packet.payload) }
        }
        // A continuation without a start (joined mid-PES) has nothing to join: dropped.
        // A PES with PES_packet_length set (audio) is whole once that many bytes are in, and an unbounded one
        // (video from FFmpeg, OBS) at its stuffed last packet: no wait for the next PES, a frame interval later.
        if let a = assemblies[packet.pid], a.bytes.count >= 6 {
            let declared = Int(a.bytes[4]) << 8 | Int(a.bytes[5])
            let whole = declared > 0 ? a.bytes.count >= 6 + declared : packet.endsWithStuffing
            if whole || (!a.intact && packet.endsWithStuffing) {
                assemblies[packet.pid] = nil
                if let unit = finish(a, stream: stream) { finished.append(unit) }
            }
        }
        return finished
    }

    /// PAT and PMT packets: sections gathered across packets (§2.4.4.1), the program and its streams followed as
    /// they change.
    private mutating func readTables(_ packet: TSPacket) -> [TSAccessUnit] {
        guard packet.hasPayload else { return [] }
        let continuity = continuity(packet)
        guard continuity != .duplicate else { return [] }
        var assembler = sections[packet.pid] ?? PSISectionAssembler()
        let whole = assembler.feed(packet.payload, unitStart: packet.payloadUnitStart, lost: continuity == .gap)
        sections[packet.pid] = assembler
        var units: [TSAccessUnit] = []
        for section in whole {
            if packet.pid == 0 {
                guard let found = ProgramTables.program(section), found != program else { continue }
                // A new PMT PID: its PMT is awaited; the streams listed so far stay until it comes.
                if let old = program?.pmtPID, old != found.pmtPID { sections[old] = nil }
                program = found
            } else if let program, let found = ProgramTables.elementaryStreams(section, program: program.number) {
                units += update(streams: found)
            }
        }
        return units
    }

    /// A PMT's streams. A PID gone or given another stream_type ends what it was gathering: an unbounded PES is
    /// whole (a muxer writes new tables between PES packets, as at an encoder restart); a bounded one still short
    /// of its length is dropped.
    private mutating func update(streams found: [TSElementaryStream]) -> [TSAccessUnit] {
        guard found != streams else { return [] }
        var units: [TSAccessUnit] = []
        for old in streams where !found.contains(old) {
            lastCounter[old.pid] = nil
            guard let a = assemblies.removeValue(forKey: old.pid) else { continue }
            guard a.bytes.count >= 6, a.bytes[4] == 0, a.bytes[5] == 0 else {
                droppedPES += 1
                continue
            }
            if let unit = finish(a, stream: old) { units.append(unit) }
        }
        if !streams.isEmpty {
            programChanges += 1
            restarted.formUnion(found.filter { !streams.contains($0) }.map(\.pid))
        }
        streams = found
        return units
    }

    /// How a packet's continuity_counter follows the previous one on its PID.
    private enum Continuity { case next, duplicate, gap }

    /// §2.4.3.3: one duplicate may repeat a packet (its payload is dropped); a flagged discontinuity resets.
    private mutating func continuity(_ packet: TSPacket) -> Continuity {
        defer { lastCounter[packet.pid] = packet.continuityCounter }
        guard let last = lastCounter[packet.pid], !packet.discontinuity else { return .next }
        if packet.continuityCounter == (last &+ 1) & 0x0F { return .next }
        if packet.continuityCounter == last { return .duplicate }
        continuityErrors += 1
        return .gap
    }

    private mutating func finish(_ a: Assembly, stream: TSElementaryStream) -> TSAccessUnit? {
        guard a.intact, let pes = PESPacket.parse(a.bytes) else {
            droppedPES += 1
            return nil
        }
        return TSAccessUnit(
            stream: stream,
            pts: MediaTime(value: pes.pts, timescale: 90_000),
            dts: MediaTime(value: pes.dts, timescale: 90_000),
            data: Array(pes.payload),
            followsDiscontinuity: a.afterDiscontinuity
        )
    }
}
