import CodecFormats
import FuzzSupport
import WebRTCWire

/// H.264 over RTP (RFC 6184: single NAL, STAP-A, FU-A) through the reorder buffer: any packet sequence the input
/// describes depacketizes without a crash; the buffer releases each packet at most once and never holds more than its
/// capacity; every access unit is well-formed AVCC within the size limit, flagged a keyframe exactly when it holds an
/// IDR, and comes back identical after `H264Packetizer` and a fresh depacketizer.
@main enum FuzzH264RTPEntry {
    static func main() { FuzzDriver.run(fuzzH264RTP) }
}

/// The buffer bounds: small, so the fuzzer reaches the give-up paths.
let reorderCapacity = 16

/// One libFuzzer input: a settings byte, then records `control, [sequence/timestamp/time fields], length, payload`.
/// Settings: bit 0 drop until keyframe, bit 1 through the reorder buffer, bits 2–3 access-unit limit,
/// bits 4–5 the re-packetizer's payload size. Control: bits 0–1 sequence step (+1, repeat, +signed byte, absolute),
/// bit 2 timestamp +3000, bit 3 absolute timestamp, bit 4 marker, bit 5 clock +byte ms, bit 6 expire the buffer.
func fuzzH264RTP(_ bytes: [UInt8]) {
    var input = FuzzInput(bytes)
    let settings = input.byte()
    let limit = [8 << 20, 256, 2_048, 65_536][Int(settings >> 2) & 3]
    let configuration = H264Depacketizer.Configuration(dropUntilKeyframe: settings & 1 != 0, maxAccessUnitBytes: limit)
    var depacketizer = H264Depacketizer(configuration: configuration)
    var reorder = settings & 2 != 0 ? RTPReorderBuffer(configuration: .init(capacity: reorderCapacity)) : nil
    var actions: [H264Depacketizer.Action] = []
    var accounting = Accounting()
    var sequence: UInt16 = 0
    var timestamp: UInt32 = 0
    let start = ContinuousClock.now
    var now = start
    var index: UInt32 = 0
    while !input.isAtEnd {
        let control = input.byte()
        switch control & 3 {
        case 0: sequence &+= 1
        case 1: break
        case 2: sequence = UInt16(bitPattern: Int16(bitPattern: sequence) &+ Int16(Int8(bitPattern: input.byte())))
        default: sequence = input.uint16()
        }
        if control & 4 != 0 { timestamp &+= 3_000 }
        if control & 8 != 0 { timestamp = input.uint32() }
        if control & 0x20 != 0 { now += .milliseconds(Int(input.byte())) }
        let length = Int(input.byte())
        let payload = input.bytes(length)
        // The SSRC numbers the packet, so the buffer's releases can be traced (the depacketizer ignores it).
        let packet = RTPPacket(
            marker: control & 0x10 != 0, payloadType: 96, sequenceNumber: sequence, timestamp: timestamp, ssrc: index,
            payload: payload)
        index += 1
        guard var buffer = reorder else {
            actions += depacketizer.push(packet)
            continue
        }
        var released = accounting.record(buffer.insert(packet, now: now), inserted: packet.ssrc)
        if control & 0x40 != 0 { released += accounting.record(buffer.expire(now: now), inserted: nil) }
        precondition(buffer.heldCount <= reorderCapacity, "reorder buffer holds \(buffer.heldCount) packets")
        precondition(accounting.inserted == accounting.released.count + accounting.discarded + buffer.heldCount, "packets lost in the buffer")
        reorder = buffer
        for packet in released { actions += depacketizer.push(packet) }
    }
    if var buffer = reorder {
        for packet in accounting.record(buffer.expire(now: now + .seconds(10)), inserted: nil) { actions += depacketizer.push(packet) }
        precondition(buffer.heldCount == 0, "reorder buffer still holds packets after every gap expired")
    }
    actions += depacketizer.flush()
    check(actions, configuration: configuration, payloadSize: [1_200, 16, 100, 300][Int(settings >> 4) & 3])
}

/// Which packets went into the reorder buffer and what became of them.
struct Accounting {
    var inserted = 0
    var released: Set<UInt32> = []
    var discarded = 0

    /// Books one output; returns its released packets in order.
    mutating func record(_ output: RTPReorderBuffer.Output, inserted id: UInt32?) -> [RTPPacket] {
        if id != nil { inserted += 1 }
        if output.discarded {
            precondition(id != nil && !output.released.contains { $0.ssrc == id }, "a discarded packet was released")
            discarded += 1
        }
        for packet in output.released {
            precondition(released.insert(packet.ssrc).inserted, "packet \(packet.ssrc) released twice")
        }
        return output.released
    }
}

/// Invariants of the access units the depacketizer produced.
func check(_ actions: [H264Depacketizer.Action], configuration: H264Depacketizer.Configuration, payloadSize: Int) {
    var units: [H264AccessUnit] = []
    var keyframeOwed = true
    for action in actions {
        switch action {
        case .needsKeyframe: if configuration.dropUntilKeyframe { keyframeOwed = true }
        case .accessUnit(let unit):
            guard let nals = try? H264.nalUnits(avcc: unit.data, lengthSize: 4) else { preconditionFailure("access unit is not AVCC") }
            precondition(!nals.isEmpty && nals.allSatisfy { !$0.isEmpty }, "access unit with an empty NAL unit")
            precondition(unit.data.count <= configuration.maxAccessUnitBytes, "access unit over the size limit")
            precondition(nals.contains { (1...5).contains(H264.nalType($0)) }, "access unit without a slice")
            precondition(unit.isKeyframe == H264.containsIDR(avcc: unit.data), "keyframe flag disagrees with the NAL types")
            precondition(unit.isKeyframe || unit.decoderConfiguration == nil, "decoder configuration on a non-keyframe")
            precondition(unit.isKeyframe || !keyframeOwed, "a non-keyframe was emitted while a keyframe was owed")
            keyframeOwed = false
            units.append(unit)
        }
    }
    // RFC 6184 types 1…23 only (STAP/FU inside a payload would be read as aggregates again); AUD and filler are dropped.
    let clean = units.filter { unit in
        (try? H264.nalUnits(avcc: unit.data, lengthSize: 4))?.allSatisfy { (1...23).contains(H264.nalType($0)) } ?? false
    }
    guard clean.count == units.count, !units.isEmpty else { return }
    var packetizer = H264Packetizer(maxPayloadSize: payloadSize, payloadType: 96, ssrc: 1, sequenceNumber: 65_530)
    var fresh = H264Depacketizer(configuration: configuration)
    var again: [H264AccessUnit] = []
    for unit in units {
        guard let packets = try? packetizer.packetize(avcc: unit.data, timestamp: unit.timestamp) else {
            preconditionFailure("packetizer refused an access unit the depacketizer produced")
        }
        for packet in packets {
            for case .accessUnit(let unit) in fresh.push(packet) { again.append(unit) }
        }
    }
    let expected = units.map { unit in
        let kept = (try? H264.nalUnits(avcc: unit.data, lengthSize: 4))!.filter { ![9, 12].contains(H264.nalType($0)) }
        return (unit.timestamp, avcc(kept))
    }
    precondition(again.count == expected.count, "re-packetized stream gave \(again.count) access units, not \(expected.count)")
    for (unit, (timestamp, data)) in zip(again, expected) {
        precondition(unit.timestamp == timestamp && unit.data == data, "re-packetized access unit differs")
    }
}

/// NAL units with 4-byte big-endian lengths.
func avcc(_ nals: [ArraySlice<UInt8>]) -> [UInt8] {
    var out: [UInt8] = []
    for nal in nals {
        let length = UInt32(nal.count)
        out += [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)]
        out += nal
    }
    return out
}
