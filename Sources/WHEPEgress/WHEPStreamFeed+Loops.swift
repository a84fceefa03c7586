import FFmpegBridge
import Logging
import MediaCore
import StreamHub
import Synchronization
import Telemetry
import WebRTCWire

/// The feed's three loops: video from the hub (as is, or through the WebRTC rung), audio (Opus as is, AAC through
/// one Opus transcoder per stream), and RTCP sender reports with the metrics flush.
extension WHEPStreamFeed {
    /// Reads video; `encode` runs the WebRTC rung, and a passthrough that turns out to reorder (B-frames) switches to it.
    /// The first `replayed` video frames are from before the feed started (the last GOP): the rung only decodes them.
    func runVideo(_ reader: StreamReader, encode: Bool, replayed: Int = 0) async {
        var encoding = encode
        var catchUp: [MediaFrame] = []
        var toReplay = replayed
        var encoder: WebRTCRungWorker?
        var parameters: VideoParameters?
        var sentConfiguration: [UInt8]?
        var waitingForKeyframe = true
        while let event = await reader.next() {
            switch event {
            case .description(let description):
                guard let video = description.video, video != parameters else { continue }
                parameters = video
                waitingForKeyframe = true
                if encoding {
                    encoder = openEncoder(video)
                } else {
                    setDecoderConfiguration(video.decoderConfiguration)
                }
            case .frame(let frame) where frame.kind == .video:
                tickKeyframeRequests()
                if reader.takeDropFlag() {
                    // The reader fell behind (the replay no longer lines up): start over at the next keyframe.
                    waitingForKeyframe = true
                    toReplay = 0
                }
                if !encoding, frame.compositionOffset.value != 0, let video = parameters {
                    // RFC 6184 leaves reordering to the sender; browsers' WebRTC receivers do not reorder: re-encode.
                    logger.warning("WHEP passthrough has B-frames: switching to the WebRTC rung")
                    encoding = true
                    encoder = openEncoder(video)
                    waitingForKeyframe = true
                }
                if toReplay > 0 {
                    toReplay -= 1
                    // Decoded in one job once the replay is in (no viewer waits for these pictures).
                    if encoding, !waitingForKeyframe || frame.isKeyframe {
                        waitingForKeyframe = false
                        catchUp.append(frame)
                    }
                    if toReplay == 0, let encoder, !catchUp.isEmpty {
                        if case .failure(let error) = await encoder.catchUp(catchUp) {
                            logger.warning("WHEP rung could not decode the last GOP", metadata: ["reason": "\(error)"])
                            waitingForKeyframe = true
                        }
                        logger.info("WHEP rung caught up on the last GOP", metadata: ["frames": "\(catchUp.count)"])
                    }
                    if toReplay == 0 { catchUp = [] }
                    continue
                }
                if waitingForKeyframe {
                    guard frame.isKeyframe else { continue }
                    waitingForKeyframe = false
                }
                guard encoding else {
                    send(video: frame)
                    continue
                }
                guard let encoder else { continue }
                let force = keyframeWanted.exchange(false, ordering: .relaxed)
                let frames: [MediaFrame]
                let avcC: [UInt8]?
                switch await encoder.encode(frame, forceIDR: force) {
                case .success(let encoded): (frames, avcC) = encoded
                case .failure(let error):
                    logger.warning("WHEP rung could not encode", metadata: ["reason": "\(error)"])
                    waitingForKeyframe = true
                    continue
                }
                if let configuration = avcC, configuration != sentConfiguration {
                    sentConfiguration = configuration
                    setDecoderConfiguration(configuration)
                }
                for encoded in frames { send(video: encoded) }
            case .frame:
                continue
            case .ended:
                return
            }
        }
    }

    private func openEncoder(_ video: VideoParameters) -> WebRTCRungWorker? {
        do {
            let encoder = try WebRTCRungEncoder(
                source: video,
                bitRate: configuration.rungBitRate,
                preset: configuration.rungPreset
            )
            logger.info(
                "WHEP WebRTC rung opened",
                metadata: ["source": "\(video.codecString) \(video.width)x\(video.height)"]
            )
            return WebRTCRungWorker(encoder, label: "sluice.whep.rung.\(key)")
        } catch {
            logger.error("WHEP WebRTC rung failed to open", metadata: ["reason": "\(error)"])
            return nil
        }
    }

    /// Reads audio: Opus goes out as it came (WHIP's, from `OriginalAudio`), anything else through one Opus transcoder.
    func runAudio(_ reader: StreamReader) async {
        var transcoder: OpusTranscoder?
        var passthrough = false
        var parameters: AudioParameters?
        while let event = await reader.next() {
            switch event {
            case .description(let description):
                guard let audio = description.audio, audio != parameters else { continue }
                parameters = audio
                passthrough = audio.codec == .opus
                transcoder = nil
                if !passthrough {
                    do {
                        // Once per stream and feed, never per viewer.
                        transcoder = try OpusTranscoder(input: audio, bitRate: configuration.opusBitRate)
                        logger.info("WHEP audio transcoded to Opus", metadata: ["from": "\(audio.codecString)"])
                    } catch {
                        logger.error("WHEP Opus transcoder failed to open", metadata: ["reason": "\(error)"])
                    }
                }
            case .frame(let frame) where frame.kind == .audio:
                if passthrough {
                    send(audio: frame)
                    continue
                }
                guard let transcoder else { continue }
                do {
                    for opus in try transcoder.transcode(frame) { send(audio: opus) }
                } catch {
                    logger.warning("WHEP Opus transcode failed", metadata: ["reason": "\(error)"])
                }
            case .frame:
                continue
            case .ended:
                return
            }
        }
    }

    /// RFC 3550 §6.4.1: a sender report per track that has sent, with the CNAME, to every connected viewer.
    func runReports() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: configuration.senderReportInterval)
            let wall = WallTime.now()
            let (reports, viewers) = state.withLock { s in
                ([s.video.senderReport(at: wall), s.audio.senderReport(at: wall)].compactMap { $0 }, s.viewers)
            }
            if !reports.isEmpty {
                let cname = RTCPSourceDescriptionChunk.Item(type: 1, text: cname)
                let chunks = reports.map { RTCPSourceDescriptionChunk(ssrc: $0.ssrc, items: [cname]) }
                let bytes = RTCPPacket.serializeCompound(
                    reports.map { .senderReport($0) } + [.sourceDescription(chunks)]
                )
                for viewer in viewers.values { viewer.sendRTCP(bytes) }
            }
            for viewer in viewers.values {
                let now = viewer.counters
                // A viewer removed meanwhile already reported its last counters.
                let old = state.withLock { s -> WHEPViewer.Counters?? in
                    guard s.viewers[viewer.id] != nil else { return .none }
                    defer { s.reported[viewer.id] = now }
                    return .some(s.reported[viewer.id])
                }
                guard let old else { continue }
                report(now, since: old ?? .init())
            }
        }
    }
}
