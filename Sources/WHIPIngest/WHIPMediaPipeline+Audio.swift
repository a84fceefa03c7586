import FFmpegBridge
import MediaCore
import Telemetry
import WebRTCWire

/// RFC 7587 §4.2: the Opus track's state; its packets become AAC (FFmpegBridge) so the hub carries what RTMP carries.
struct AudioTrack {
    let stream: NegotiatedStream
    var ssrc: UInt32?
    var reorder: RTPReorderBuffer
    var depacketizer = OpusDepacketizer()
    var statistics: RTPReceiverStatistics?
    var senderReport: RTCPSenderReport?
    var timeline = TrackTimeline(clockRate: 48_000)
    var arrivals: [UInt32: ContinuousClock.Instant] = [:]
    /// The last frame handed to the transcoder: where the next one should start.
    var lastFrame: (timestamp: UInt32, samples: Int)?
    /// Nil when libav could not open Opus → AAC (the session then carries video only).
    let transcoder: AACTranscoder?
    let transcoderFailure: String?
    var reportedFailure = false

    /// RFC 6716 §3.1: one 20 ms CELT fullband frame of silence (TOC 0xF8), what a gap is filled with.
    static let silence: [UInt8] = [0xF8, 0xFF, 0xFE]

    /// Silent frames covering the whole 20 ms slots missing between the last frame and `frame` (at most 1 s):
    /// the AAC encoder counts samples, so a lost packet left unfilled would pull audio earlier than video for good.
    mutating func concealment(before frame: OpusFrame) -> [OpusFrame] {
        defer { lastFrame = (frame.timestamp, frame.sampleCount ?? 960) }
        guard let last = lastFrame else { return [] }
        let expected = last.timestamp &+ UInt32(truncatingIfNeeded: last.samples)
        let gap = Int(Int32(bitPattern: frame.timestamp &- expected))
        guard gap >= 960, gap <= 48_000 else { return [] }
        return (0..<gap / 960).map { OpusFrame(timestamp: expected &+ UInt32($0 * 960), data: Self.silence) }
    }

    /// RFC 7845 §5.1 OpusHead for stereo 48 kHz, mapping family 0 (WebRTC Opus has no in-band header).
    static let opusHead: [UInt8] = Array("OpusHead".utf8) + [1, 2, 0x38, 0x01, 0x80, 0xBB, 0, 0, 0, 0, 0]

    init(stream: NegotiatedStream, reorder: RTPReorderBuffer.Configuration) {
        self.stream = stream
        self.ssrc = stream.ssrcs.first
        self.reorder = RTPReorderBuffer(configuration: reorder)
        let input = AudioParameters(
            codec: .opus,
            decoderConfiguration: Self.opusHead,
            sampleRate: 48_000,
            channels: 2,
            samplesPerFrame: 960,
            codecString: "opus"
        )
        do {
            transcoder = try AACTranscoder(input: input)
            transcoderFailure = nil
        } catch {
            transcoder = nil
            transcoderFailure = "\(error)"
        }
    }
}

extension WHIPMediaPipeline {
    mutating func receivedAudio(
        _ packet: RTPPacket,
        now: ContinuousClock.Instant,
        wall: WallTime,
        into actions: inout [Action]
    ) {
        guard var track = audio else { return }
        if track.ssrc != packet.ssrc || track.statistics == nil {
            track.ssrc = packet.ssrc
            track.statistics = RTPReceiverStatistics(ssrc: packet.ssrc, clockRate: 48_000)
        }
        track.statistics?.record(packet, arrival: now)
        counters.audio.packetsReceived += 1
        if track.arrivals.count > 256 { track.arrivals.removeAll(keepingCapacity: true) }
        track.arrivals[packet.timestamp] = track.arrivals[packet.timestamp] ?? now
        let output = track.reorder.insert(packet, now: now)
        audio = track
        counters.audio.packetsLost += output.missing.count
        counters.audio.packetsUnrecovered += output.lost.count
        releaseAudio(output.released, now: now, wall: wall, into: &actions)
    }

    mutating func releaseAudio(
        _ packets: [RTPPacket],
        now: ContinuousClock.Instant,
        wall: WallTime,
        into actions: inout [Action]
    ) {
        guard var track = audio, let origin, !packets.isEmpty else { return }
        guard let transcoder = track.transcoder else {
            if !track.reportedFailure, let failure = track.transcoderFailure {
                track.reportedFailure = true
                actions.append(.warning("Opus → AAC unavailable, audio dropped: \(failure)"))
            }
            audio = track
            return
        }
        var opus: [MediaFrame] = []
        for packet in packets {
            guard let frame = track.depacketizer.push(packet) else { continue }
            for filler in track.concealment(before: frame) {
                let dts = track.timeline.time(of: filler.timestamp, arrival: now, origin: origin)
                opus.append(
                    filler.mediaFrame(dts: dts, stamps: HopStamps(firstByte: now, ingested: now, ingestWall: wall))
                )
                counters.audioConcealedFrames += 1
            }
            let firstByte = track.arrivals.removeValue(forKey: frame.timestamp) ?? now
            let dts = track.timeline.time(of: frame.timestamp, arrival: firstByte, origin: origin)
            var stamps = HopStamps(firstByte: firstByte, ingested: now, ingestWall: wall)
            stamps.capture = track.senderReport?.wallTime(ofRTPTimestamp: frame.timestamp, clockRate: 48_000)
            opus.append(frame.mediaFrame(dts: dts, stamps: stamps))
        }
        audio = track
        // Audio waits for the description (video parameters); earlier Opus is dropped rather than queued.
        guard announce(now: now, into: &actions) else { return }
        for frame in opus {
            actions.append(.originalAudio(frame))
            do {
                for aac in try transcoder.transcode(frame) {
                    counters.audioFrames += 1
                    actions.append(.frame(aac))
                }
            } catch {
                actions.append(.warning("Opus → AAC failed on one packet: \(error)"))
            }
        }
    }
}
