import CodecFormats
import FFmpegBridge
import MediaCore
import Telemetry
import WebRTCWire

/// RFC 6184 §5 and RFC 4588 §4: the video track's state (SSRC, reorder, NACK, depacketizer, timeline).
struct VideoTrack {
    let stream: NegotiatedStream
    var ssrc: UInt32?
    var reorder: RTPReorderBuffer
    var nack: RTPNackTracker
    var depacketizer = H264Depacketizer()
    var statistics: RTPReceiverStatistics?
    var senderReport: RTCPSenderReport?
    var timeline = TrackTimeline(clockRate: 90_000)
    /// First arrival per RTP timestamp: the access unit's first byte.
    var arrivals: [UInt32: ContinuousClock.Instant] = [:]
    var parameters: VideoParameters?

    init(stream: NegotiatedStream, reorder: RTPReorderBuffer.Configuration, nack: RTPNackTracker.Configuration) {
        self.stream = stream
        self.ssrc = stream.ssrcs.first
        self.reorder = RTPReorderBuffer(configuration: reorder)
        self.nack = RTPNackTracker(configuration: nack)
    }
}

extension WHIPMediaPipeline {
    mutating func receivedVideo(
        _ received: RTPPacket,
        now: ContinuousClock.Instant,
        wall: WallTime,
        into actions: inout [Action]
    ) {
        guard var track = video else { return }
        var packet = received
        if packet.payloadType == track.stream.rtxPayloadType {
            guard let ssrc = track.ssrc,
                let original = packet.unwrappingRetransmission(payloadType: track.stream.payloadType, ssrc: ssrc)
            else { return }  // A padding-only bandwidth probe, or RTX before any media.
            packet = original
            counters.video.retransmissionsReceived += 1
        } else {
            let firstPacket = track.statistics == nil
            if track.ssrc != packet.ssrc || firstPacket {
                track.ssrc = packet.ssrc
                track.statistics = RTPReceiverStatistics(ssrc: packet.ssrc, clockRate: 90_000)
            }
            track.statistics?.record(packet, arrival: now)
            counters.video.packetsReceived += 1
            // Without RTX a retransmission reuses the media payload type: it answers a NACK still pending.
            if track.nack.pending.contains(packet.sequenceNumber) { counters.video.retransmissionsReceived += 1 }
            if firstPacket {
                video = track
                lastKeyframe = lastKeyframe ?? now
                requestKeyframe(now: now, into: &actions)
                track = video ?? track
            }
        }
        if track.arrivals[packet.timestamp] == nil {
            if track.arrivals.count > 256 { track.arrivals.removeAll(keepingCapacity: true) }
            track.arrivals[packet.timestamp] = now
        }
        let output = track.reorder.insert(packet, now: now)
        counters.video.packetsLost += output.missing.count
        track.nack.resolve(packet.sequenceNumber)
        if configuration.sendsNACK { track.nack.markMissing(output.missing) }
        video = track
        releaseVideo(output, now: now, wall: wall, into: &actions)
        appendNACK(now: now, into: &actions)
    }

    mutating func releaseVideo(
        _ output: RTPReorderBuffer.Output,
        now: ContinuousClock.Instant,
        wall: WallTime,
        into actions: inout [Action]
    ) {
        guard var track = video else { return }
        for sequence in output.lost { track.nack.resolve(sequence) }
        counters.video.packetsUnrecovered += output.lost.count
        var units: [H264AccessUnit] = []
        var needsKeyframe = false
        for packet in output.released {
            for action in track.depacketizer.push(packet) {
                switch action {
                case .accessUnit(let unit): units.append(unit)
                case .needsKeyframe: needsKeyframe = true
                }
            }
        }
        video = track
        if needsKeyframe { requestKeyframe(now: now, into: &actions) }
        for unit in units { emitVideo(unit, now: now, wall: wall, into: &actions) }
    }

    private mutating func emitVideo(
        _ unit: H264AccessUnit,
        now: ContinuousClock.Instant,
        wall: WallTime,
        into actions: inout [Action]
    ) {
        guard var track = video, let origin else { return }
        if unit.isKeyframe, let record = unit.decoderConfiguration {
            let avcC = record.serialize()
            if track.parameters?.decoderConfiguration != avcC {
                do {
                    track.parameters = try VideoParameters(avcDecoderConfiguration: avcC)
                    track.parameters?.keyframesOnRequest = true
                } catch {
                    actions.append(.warning("unusable SPS/PPS from the publisher: \(error)"))
                }
            }
        }
        // A keyframe answers any request in flight: the next loss may ask again at once.
        if unit.isKeyframe {
            // A fresh pacer: the keyframe answers a deferred request and opens the window again.
            keyframePacer = KeyframeRequestPacer(interval: configuration.keyframeRequestInterval)
            lastKeyframe = now
        }
        let firstByte = track.arrivals.removeValue(forKey: unit.timestamp) ?? now
        let dts = track.timeline.time(of: unit.timestamp, arrival: firstByte, origin: origin)
        video = track
        let described = announce(now: now, into: &actions)
        if !described, track.parameters == nil {
            if !unit.isKeyframe || unit.decoderConfiguration == nil { requestKeyframe(now: now, into: &actions) }
            return
        }
        var stamps = HopStamps(firstByte: firstByte, ingested: now, ingestWall: wall)
        // The bench's SEI is the publisher's own capture clock; an SR maps RTP time to the same clock otherwise.
        stamps.capture =
            CaptureTimeSEI.captureTime(inAVCC: unit.data)
            ?? track.senderReport?.wallTime(ofRTPTimestamp: unit.timestamp, clockRate: 90_000)
        let frame = unit.mediaFrame(dts: dts, stamps: stamps)
        guard described else {
            // Held (bounded) until Opus shows up, so the first description already has both tracks.
            heldVideo.append(frame)
            return
        }
        counters.videoFrames += 1
        actions.append(.frame(frame))
    }

    /// Announces the description once video parameters are known and audio flows (or `audioGrace` passed);
    /// false while waiting. Releases video held meanwhile.
    mutating func announce(now: ContinuousClock.Instant, into actions: inout [Action]) -> Bool {
        if configuration.video != nil, video?.parameters == nil { return false }
        if announced == nil, let audio, audio.transcoder != nil, audio.statistics == nil {
            // A muted publisher may never send Opus: wait a bounded time, then go on with video only.
            let since = heldSince ?? now
            heldSince = since
            if since.duration(to: now) < configuration.audioGrace, heldVideo.count < 256 { return false }
        }
        let audioParameters = audio?.statistics == nil ? nil : audio?.transcoder?.outputParameters
        let description = StreamDescription(video: video?.parameters, audio: audioParameters)
        if description != announced {
            announced = description
            actions.append(.publish(description))
        }
        counters.videoFrames += heldVideo.count
        actions += heldVideo.map { .frame($0) }
        heldVideo.removeAll()
        return true
    }

    /// A consumer of the stream needs a keyframe now (a WHEP viewer joining or reporting loss): a PLI or FIR,
    /// within the same rate limit as the pipeline's own requests.
    public mutating func requestKeyframe(now: ContinuousClock.Instant) -> [Action] {
        var actions: [Action] = []
        requestKeyframe(now: now, into: &actions)
        return actions
    }

    mutating func requestKeyframe(now: ContinuousClock.Instant, into actions: inout [Action]) {
        guard video != nil, configuration.keyframeRequest != .unavailable else { return }
        if keyframePacer.requested(now: now) { appendKeyframeRequest(into: &actions) }
    }

    /// A request deferred inside the pacer's window goes out when the window ends.
    mutating func appendDeferredKeyframeRequest(now: ContinuousClock.Instant, into actions: inout [Action]) {
        guard video != nil, configuration.keyframeRequest != .unavailable else { return }
        if keyframePacer.tick(now: now) { appendKeyframeRequest(into: &actions) }
    }

    /// RFC 4585 §6.3.1 PLI or RFC 5104 §4.3.1 FIR, as the publisher negotiated.
    private mutating func appendKeyframeRequest(into actions: inout [Action]) {
        guard let ssrc = video?.ssrc else { return }
        let packet: RTCPPacket
        switch configuration.keyframeRequest {
        case .pli, .unavailable:
            packet = .pictureLossIndication(senderSSRC: configuration.localSSRC, mediaSSRC: ssrc)
            counters.video.plisSent += 1
        case .fir:
            counters.video.firsSent += 1
            packet = .fullIntraRequest(
                RTCPFullIntraRequest(
                    senderSSRC: configuration.localSSRC,
                    entries: [.init(ssrc: ssrc, sequenceNumber: firSequence)]
                )
            )
            firSequence &+= 1
        }
        actions.append(.sendRTCP(RTCPPacket.serializeCompound([packet])))
    }

    /// RFC 4585 §6.3.1: a browser encodes an IDR only when asked, so ask whenever none came for `keyframeInterval`;
    /// a request still outstanding (no IDR since) is repeated only after `keyframeRequestTimeout`.
    mutating func appendPeriodicKeyframeRequest(now: ContinuousClock.Instant, into actions: inout [Action]) {
        guard let since = lastKeyframe, since.duration(to: now) >= configuration.keyframeInterval else { return }
        if let last = keyframePacer.lastRequest, last.duration(to: now) < configuration.keyframeRequestTimeout {
            return
        }
        requestKeyframe(now: now, into: &actions)
    }

    mutating func appendNACK(now: ContinuousClock.Instant, into actions: inout [Action]) {
        guard configuration.sendsNACK, let ssrc = video?.ssrc, let due = video?.nack.due(now: now), !due.isEmpty
        else { return }
        counters.video.nacksSent += 1
        counters.video.nackedPackets += due.count
        let nack = RTCPGenericNACK(senderSSRC: configuration.localSSRC, mediaSSRC: ssrc, lost: due)
        actions.append(.sendRTCP(RTCPPacket.serializeCompound([.genericNACK(nack)])))
    }
}

/// RFC 3550 §5.1: one track's RTP clock onto the stream timeline, starting at its first arrival after the origin.
struct TrackTimeline {
    let clockRate: Int32
    var unwrapper = RTPTimestampUnwrapper()
    var first: (timestamp: Int64, offset: Int64)?

    init(clockRate: Int32) { self.clockRate = clockRate }

    /// Decode time of `timestamp`; the first one sits at its arrival's distance from `origin` so tracks line up.
    mutating func time(
        of timestamp: UInt32,
        arrival: ContinuousClock.Instant,
        origin: ContinuousClock.Instant
    ) -> MediaTime {
        let extended = unwrapper.unwrap(timestamp)
        if first == nil {
            let since = origin.duration(to: arrival)
            let offset =
                since.components.seconds * Int64(clockRate)
                + since.components.attoseconds / (1_000_000_000_000_000_000 / Int64(clockRate))
            first = (extended, max(0, offset))
        }
        let base = first ?? (extended, 0)
        return MediaTime(value: max(0, extended - base.timestamp + base.offset), timescale: clockRate)
    }
}
