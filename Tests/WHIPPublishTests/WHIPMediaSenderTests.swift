import CodecFormats
import FFmpegBridge
import MediaCore
import TestSupport
import Testing
import WebRTCWire

@testable import WHIPPublish

/// RFC 3550/4585/6184/7587 sender side: packetization, NACK answers from history, PLI pacing and sender reports.
@Suite struct WHIPMediaSenderTests {
    static let configuration = WHIPMediaSender.Configuration(
        videoSSRC: 0xAAAA,
        videoPayloadType: 102,
        audioSSRC: 0xBBBB,
        audioPayloadType: 111,
        cname: "cn",
        videoSequence: 65_530,
        audioSequence: 100,
        videoTimestampOffset: 4_294_000_000,
        audioTimestampOffset: 7
    )

    /// Real x264 frames (320x180, SPS/PPS only in the avcC, as the test pattern encodes them).
    static let source: (avcC: [UInt8], frames: [MediaFrame]) = {
        let pattern = try! TestPatternSource(
            configuration: .init(width: 320, height: 180, fps: 30, gop: 10, videoBitRate: 600_000)
        )
        var frames: [MediaFrame] = []
        while frames.count < 12, let frame = try! pattern.nextFrame() {
            if frame.kind == .video { frames.append(frame) }
        }
        return (pattern.streamDescription.video!.decoderConfiguration, frames)
    }()

    static func rtp(_ actions: [WHIPMediaSender.Action]) -> [RTPPacket] {
        actions.compactMap { if case .sendRTP(let bytes) = $0 { try? RTPPacket(parsing: bytes) } else { nil } }
    }

    @Test func keyframesGainParameterSetsAndDepacketizeToTheSameFrames() throws {
        var sender = try WHIPMediaSender(configuration: Self.configuration, avcC: Self.source.avcC)
        var depacketizer = H264Depacketizer()
        var units: [H264AccessUnit] = []
        var sequence: UInt16?
        for frame in Self.source.frames {
            let packets = Self.rtp(try sender.send(video: frame, now: .now, wall: .now()))
            #expect(packets.last?.marker == true && packets.dropLast().allSatisfy { !$0.marker })
            #expect(packets.allSatisfy { $0.ssrc == 0xAAAA && $0.payloadType == 102 && $0.payload.count <= 1_200 })
            #expect(Set(packets.map(\.timestamp)) == [4_294_000_000 &+ UInt32(frame.pts.converted(to: 90_000).value)])
            for packet in packets {
                if let sequence { #expect(packet.sequenceNumber == sequence &+ 1) }
                sequence = packet.sequenceNumber
                for case .accessUnit(let unit) in depacketizer.push(packet) { units.append(unit) }
            }
        }
        #expect(units.count == Self.source.frames.count)  // Each completes on its marker bit.
        let record = try AVCDecoderConfigurationRecord(parsing: Self.source.avcC)
        #expect(units.first?.isKeyframe == true)
        #expect(units.first?.decoderConfiguration?.sequenceParameterSets == record.sequenceParameterSets)
        for (unit, frame) in zip(units, Self.source.frames) {
            let sent = try H264.nalUnits(avcc: frame.data).filter { ![9, 12].contains(H264.nalType($0)) }
            let received = try H264.nalUnits(avcc: unit.data).filter { ![7, 8].contains(H264.nalType($0)) }
            #expect(sent.map(Array.init) == received.map(Array.init))
        }
        #expect(sender.counters.videoFrames == Self.source.frames.count && sender.counters.keyframesSent == 2)
    }

    @Test func nackIsAnsweredWithTheSamePacketsFromHistory() throws {
        var configuration = Self.configuration
        configuration.videoSequence = 65_534
        var sender = try WHIPMediaSender(configuration: configuration, avcC: Self.source.avcC)
        var sent: [UInt16: [UInt8]] = [:]
        var order: [UInt16] = []
        for frame in Self.source.frames.prefix(3) {
            for case .sendRTP(let bytes) in try sender.send(video: frame, now: .now, wall: .now()) {
                let sequence = try RTPPacket(parsing: bytes).sequenceNumber
                sent[sequence] = bytes
                order.append(sequence)
            }
        }
        // The first frames span the 16-bit wrap (first sequence 65 534).
        try #require(order.count >= 4 && order.contains(65_535) && order.contains(0))
        let lost: [UInt16] = [order[0], 65_535, 0, order[order.count - 1]]
        let nack = RTCPPacket.serializeCompound([
            .receiverReport(RTCPReceiverReport(ssrc: 9, reports: [])),
            .genericNACK(RTCPGenericNACK(senderSSRC: 9, mediaSSRC: 0xAAAA, lost: lost + [40_000])),
        ])
        let actions = sender.received(rtcp: nack, now: .now)
        #expect(actions == lost.map { .sendRTP(sent[$0]!) })
        #expect(sender.counters.nackedPackets == 5 && sender.counters.retransmittedPackets == 4)
        let foreign = RTCPPacket.serializeCompound([
            .genericNACK(RTCPGenericNACK(senderSSRC: 9, mediaSSRC: 1, lost: lost))
        ])
        #expect(sender.received(rtcp: foreign, now: .now) == [])
    }

    /// One step of a keyframe-request timeline: at `ms`, a PLI, a FIR or a frame sent; and whether the sender asks
    /// its source for an IDR then.
    struct KeyframeStep: Sendable, CustomTestStringConvertible {
        enum Event: Sendable {
            case pli
            case fir
            case frame(Int)
        }
        let ms: Int
        let event: Event
        let asks: Bool
        var testDescription: String { "\(ms) ms \(event) → \(asks ? "IDR" : "-")" }
    }

    /// Every PLI/FIR is answered: at once outside the 300 ms spacing, else deferred to its end (the next frame sent
    /// after it), unless a keyframe goes out first; a natural keyframe does not swallow a request that follows it.
    static let keyframeTimeline: [KeyframeStep] = [
        .init(ms: 0, event: .frame(0), asks: false),  // The first (natural) keyframe.
        .init(ms: 100, event: .pli, asks: true),  // Right after a keyframe, still answered: the viewer missed it.
        .init(ms: 300, event: .pli, asks: false),  // Inside the spacing: deferred…
        .init(ms: 350, event: .fir, asks: false),  // …and folded into the same request.
        .init(ms: 399, event: .frame(1), asks: false),
        .init(ms: 410, event: .frame(2), asks: true),  // …passed on with the first frame after 400 ms.
        .init(ms: 500, event: .pli, asks: false),  // Deferred again…
        .init(ms: 520, event: .frame(10), asks: false),  // …and answered by the keyframe that went out meanwhile.
        .init(ms: 800, event: .frame(11), asks: false),
        .init(ms: 900, event: .pli, asks: true),
    ]

    @Test func everyKeyframeRequestIsAnsweredAtOnceOrDeferred() throws {
        var sender = try WHIPMediaSender(configuration: Self.configuration, avcC: Self.source.avcC)
        let t0 = ContinuousClock.now
        let pli = RTCPPacket.serializeCompound([.pictureLossIndication(senderSSRC: 9, mediaSSRC: 0xAAAA)])
        let fir = RTCPPacket.serializeCompound([
            .fullIntraRequest(RTCPFullIntraRequest(senderSSRC: 9, entries: [.init(ssrc: 0xAAAA, sequenceNumber: 1)]))
        ])
        #expect(Self.source.frames[10].isKeyframe && !Self.source.frames[11].isKeyframe)
        for step in Self.keyframeTimeline {
            let now = t0.advanced(by: .milliseconds(step.ms))
            let actions: [WHIPMediaSender.Action]
            switch step.event {
            case .pli: actions = sender.received(rtcp: pli, now: now)
            case .fir: actions = sender.received(rtcp: fir, now: now)
            case .frame(let index): actions = try sender.send(video: Self.source.frames[index], now: now, wall: .now())
            }
            #expect(actions.contains(.requestKeyframe) == step.asks, "\(step.testDescription)")
        }
        let otherSource = RTCPPacket.serializeCompound([.pictureLossIndication(senderSSRC: 9, mediaSSRC: 0xBBBB)])
        #expect(sender.received(rtcp: otherSource, now: t0.advanced(by: .seconds(5))) == [])
        #expect(sender.counters.keyframeRequestsReceived == 5 && sender.counters.keyframesForced == 3)
        #expect(sender.received(rtcp: [0x80, 0xC9, 0, 9], now: t0) == [])
        #expect(sender.counters.malformedRTCP == 1)
    }

    @Test func senderReportsMapTheWallClockOntoEachRTPClock() throws {
        var sender = try WHIPMediaSender(configuration: Self.configuration, avcC: Self.source.avcC)
        let t0 = ContinuousClock.now
        #expect(sender.tick(now: t0, wall: .now()) == [])  // Nothing sent yet: nothing to map.
        let wall = WallTime(millisecondsSince1970: 1_800_000_000_000)
        let frame = Self.source.frames[0]
        _ = try sender.send(video: frame, now: t0, wall: wall)
        let opus = MediaFrame(
            kind: .audio,
            dts: MediaTime(value: 960, timescale: 48_000),
            isKeyframe: true,
            data: [0xFC, 1, 2]
        )
        let audio = Self.rtp(sender.send(audio: opus, wall: wall))
        #expect(audio.count == 1 && audio[0].timestamp == 967 && audio[0].marker && audio[0].sequenceNumber == 100)
        let later = wall.advanced(by: .milliseconds(500))
        let actions = sender.tick(now: t0, wall: later)
        guard case .sendRTCP(let bytes)? = actions.first, actions.count == 1 else {
            Issue.record("expected one compound RTCP, got \(actions)")
            return
        }
        let packets = try RTCPPacket.parseCompound(bytes)
        let reports = packets.compactMap { if case .senderReport(let r) = $0 { r } else { nil } }
        #expect(reports.map(\.ssrc) == [0xAAAA, 0xBBBB])
        let videoRTP = 4_294_000_000 &+ UInt32(frame.dts.converted(to: 90_000).value) &+ 45_000
        #expect(reports[0].rtpTimestamp == videoRTP)
        #expect(reports[1].rtpTimestamp == 967 + 24_000)
        #expect(
            reports[0].wallTime(ofRTPTimestamp: videoRTP, clockRate: 90_000).millisecondsSince1970
                == later.millisecondsSince1970
        )
        #expect(reports[0].packetCount > 0 && reports[1].packetCount == 1 && reports[1].octetCount == 3)
        guard case .sourceDescription(let chunks)? = packets.last else {
            Issue.record("expected SDES last")
            return
        }
        #expect(chunks.map(\.cname) == ["cn", "cn"])
        #expect(sender.tick(now: t0.advanced(by: .milliseconds(999)), wall: later) == [])
        #expect(sender.tick(now: t0.advanced(by: .seconds(1)), wall: later).count == 1)
    }

    @Test func audioIsDroppedWhenTheAnswerRejectedIt() throws {
        var configuration = Self.configuration
        configuration.audioPayloadType = nil
        var sender = try WHIPMediaSender(configuration: configuration, avcC: Self.source.avcC)
        let opus = MediaFrame(kind: .audio, dts: MediaTime(value: 0, timescale: 48_000), isKeyframe: true, data: [1])
        #expect(sender.send(audio: opus, wall: .now()) == [])
    }

    @Test func malformedVideoAndConfigurationAreRefused() throws {
        #expect(throws: WHIPPublishError.self) { try WHIPMediaSender(configuration: Self.configuration, avcC: [1, 2]) }
        var sender = try WHIPMediaSender(configuration: Self.configuration, avcC: Self.source.avcC)
        let broken = MediaFrame(
            kind: .video,
            dts: MediaTime(value: 0, timescale: 90_000),
            isKeyframe: true,
            data: [0, 0, 0, 9, 0x65]
        )
        #expect(throws: WHIPPublishError.self) { try sender.send(video: broken, now: .now, wall: .now()) }
    }

    /// Seeded: random access units of any size come out as contiguous packets under the payload limit, and the
    /// history returns exactly the last `historyCapacity` of them.
    @Test func randomAccessUnitsPacketizeWithinLimitsAndHistoryKeepsTheNewest() throws {
        var random = SeededRandom(seed: 6184)
        var configuration = Self.configuration
        configuration.historyCapacity = 64
        var sender = try WHIPMediaSender(configuration: configuration, avcC: Self.source.avcC)
        var all: [RTPPacket] = []
        for index in 0..<60 {
            var data: [UInt8] = []
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let size = Int.random(in: 1...3_000, using: &random)
                data += WHIPMediaSender.lengthPrefix(size) + [0x41] + random.bytes(size - 1)
            }
            let frame = MediaFrame(
                kind: .video,
                dts: MediaTime(value: Int64(index) * 3_000, timescale: 90_000),
                isKeyframe: false,
                data: data
            )
            let packets = Self.rtp(try sender.send(video: frame, now: .now, wall: .now()))
            #expect(packets.allSatisfy { $0.payload.count <= configuration.maxPayloadSize })
            all += packets
        }
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.sequenceNumber &+ 1 == $1.sequenceNumber })
        let nack = RTCPPacket.serializeCompound([
            .genericNACK(RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 0xAAAA, lost: all.map(\.sequenceNumber)))
        ])
        let resent = Self.rtp(sender.received(rtcp: nack, now: .now))
        #expect(resent == Array(all.suffix(64)))
    }
}
