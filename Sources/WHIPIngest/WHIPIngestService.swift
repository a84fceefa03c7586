import Logging
import MediaCore
import StreamHub
import Synchronization
import Telemetry
import WebRTCTransport
import WebRTCWire

/// RFC 9725: WHIP sessions on the shared WebRTC port; each answers one offer and publishes its media into the hub.
public final class WHIPIngestService: Sendable {
    /// What a successful POST returns.
    public struct CreatedSession: Sendable, Hashable {
        /// The SDP answer (`application/sdp`).
        public var answer: String
        /// The session id for the `Location` path.
        public var sessionID: String
        /// The session's entity tag (RFC 9725 §4.3 ties ICE restarts to it).
        public var etag: String
    }

    /// The transport every session rides on.
    public let transport: WebRTCTransportService
    let hub: StreamHub
    let telemetry: GatewayTelemetry?
    /// Where the publisher's Opus goes untranscoded (WHEP viewers); nil: only the AAC reaches the hub.
    let originalAudio: OriginalAudio?
    /// Where consumers ask this publisher for a keyframe (turned into PLI/FIR); nil: only the ingest's own requests.
    let keyframeRequests: KeyframeRequests?
    let logger: Logger
    /// Candidates, reorder wait, session limit and timer periods.
    public let configuration: WHIPIngestConfiguration
    private let sessions = Mutex<[String: Entry]>([:])

    struct Entry: Sendable {
        let key: StreamKey
        let session: WebRTCSession
    }

    /// A service publishing into `hub` over `transport` (which the app starts and stops).
    public init(
        transport: WebRTCTransportService,
        hub: StreamHub,
        telemetry: GatewayTelemetry? = nil,
        configuration: WHIPIngestConfiguration = .init(),
        originalAudio: OriginalAudio? = nil,
        keyframeRequests: KeyframeRequests? = nil,
        logger: Logger = Logger(label: "sluice.whip")
    ) {
        self.keyframeRequests = keyframeRequests
        self.transport = transport
        self.hub = hub
        self.telemetry = telemetry
        self.originalAudio = originalAudio
        self.configuration = configuration
        self.logger = logger
    }

    /// The host candidates an answer lists now: the bound ones, then `configuration.additionalHosts`.
    public var candidates: [TransportAddress] { configuration.candidates(bound: transport.candidates) }

    /// Live session count.
    public var sessionCount: Int { sessions.withLock { $0.count } }

    /// Answers `offer` for `streamKey`, goes live on the key (in `seat`: the primary, or its hot standby), and starts
    /// receiving on the shared port.
    public func createSession(
        streamKey: String,
        offer: String,
        seat: OnAirRole = .primary
    ) async throws(WHIPIngestError) -> CreatedSession {
        guard let key = StreamKey(streamKey) else { throw .invalidStreamKey(streamKey) }
        let candidates = self.candidates
        guard !candidates.isEmpty else { throw .transportUnavailable }
        let limit = configuration.maxSessions
        if limit > 0, sessionCount >= limit { throw .tooManySessions(limit: limit) }
        let local = ICECredentials.random()
        let negotiation: WHIPNegotiation
        do {
            let configuration = WHIPAnswerConfiguration(
                iceUfrag: local.ufrag,
                icePwd: local.password,
                fingerprint: transport.certificate.fingerprint,
                candidates: candidates,
                sessionID: UInt64.random(in: 1...UInt64(Int64.max))
            )
            let parsed = try WHIPOffer(parsing: offer, sizeLimit: self.configuration.maxOfferBytes)
            negotiation = try WHIPNegotiation(offer: parsed, configuration: configuration)
        } catch {
            logger.info("WHIP offer refused", metadata: ["stream": "\(key)", "reason": "\(error)"])
            throw .offer(error)
        }
        let publication: Publication
        do { publication = try hub.publish(key: key, origin: "whip", seat: seat) } catch {
            throw WHIPIngestError(error)
        }
        let parameters = WebRTCSessionParameters(
            local: local,
            remote: ICECredentials(ufrag: negotiation.offer.iceUfrag, password: negotiation.offer.icePwd),
            remoteFingerprint: negotiation.offer.fingerprint,
            dtlsRole: negotiation.dtlsRole,
            iceRole: .controlled
        )
        let session: WebRTCSession
        do {
            session = try await transport.openSession(parameters)
        } catch {
            publication.end()
            throw .transport(error)
        }
        let id = Self.randomID()
        sessions.withLock { $0[id] = Entry(key: key, session: session) }
        if negotiation.audio != nil {
            let opus = AudioParameters(
                codec: .opus,
                decoderConfiguration: AudioTrack.opusHead,
                sampleRate: 48_000,
                channels: 2,
                samplesPerFrame: 960,
                codecString: "opus"
            )
            // Only the primary's Opus is the key's original audio: a standby's would replace it under WHEP viewers.
            if seat == .primary { originalAudio?.begin(key: key, parameters: opus) }
        }
        var configuration = WHIPMediaConfiguration(
            negotiation: negotiation,
            localSSRC: UInt32.random(in: 1...UInt32.max)
        )
        configuration.reorder.maxWait = self.configuration.reorderWait
        configuration.keyframeInterval = self.configuration.keyframeInterval ?? configuration.keyframeInterval
        configuration.maxBitrate = self.configuration.maxBitrate
        var metadata: Logger.Metadata = ["stream": "\(key)", "session": "\(id)"]
        metadata["dtls_role"] = "\(negotiation.dtlsRole)"
        metadata["keyframe_request"] = "\(configuration.keyframeRequest)"
        metadata["remb"] = "\(configuration.sendsREMB)"
        metadata["role"] = "\(seat.rawValue)"
        logger.info("WHIP session created", metadata: metadata)
        run(
            session,
            id: id,
            publication: publication,
            configuration: configuration,
            metadata: metadata,
            primary: seat == .primary
        )
        return CreatedSession(answer: negotiation.answerText, sessionID: id, etag: "\"\(id)\"")
    }

    /// Ends a session (RFC 9725 §4.4 DELETE); `key` must match the one it publishes when given.
    public func endSession(id: String, key: String? = nil) throws(WHIPIngestError) {
        let entry = sessions.withLock { table -> Entry? in
            guard let entry = table[id], key == nil || entry.key.rawValue == key else { return nil }
            return table.removeValue(forKey: id)
        }
        guard let entry else { throw .sessionNotFound(id) }
        logger.info("WHIP session ended by DELETE", metadata: ["stream": "\(entry.key)", "session": "\(id)"])
        entry.session.close()
    }

    /// Closes every session (shutdown).
    public func closeAll() {
        let all = sessions.withLock { table in
            defer { table.removeAll() }
            return Array(table.values)
        }
        for entry in all { entry.session.close() }
    }

    private enum Input: Sendable {
        case event(WebRTCSessionEvent)
        case tick
        /// A consumer (WHEP) asked for a keyframe through `keyframeRequests`.
        case keyframeWanted
    }

    /// One task owns the pipeline; transport events and timer ticks reach it through one stream, in order.
    private func run(
        _ session: WebRTCSession,
        id: String,
        publication: Publication,
        configuration: WHIPMediaConfiguration,
        metadata: Logger.Metadata,
        primary: Bool
    ) {
        // A standby leaves the key's original audio and keyframe requests to the primary.
        let originalAudio = primary ? self.originalAudio : nil
        let keyframeRequests = primary ? self.keyframeRequests : nil
        let (inputs, continuation) = AsyncStream<Input>.makeStream(bufferingPolicy: .bufferingNewest(8_192))
        let forward = Task {
            for await event in session.events { continuation.yield(.event(event)) }
            continuation.finish()
        }
        let interval = self.configuration.tickInterval
        let metricsInterval = self.configuration.metricsInterval
        let telemetry = telemetry
        let key = publication.key
        let kinds = [("video", configuration.video != nil), ("audio", configuration.audio != nil)]
        telemetry?.webrtcSessionStarted(stream: key)
        keyframeRequests?.register(key: key) { continuation.yield(.keyframeWanted) }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                continuation.yield(.tick)
            }
        }
        Task {
            var pipeline = WHIPMediaPipeline(configuration: configuration)
            var reason = "transport finished"
            var reported: WHIPPipelineCounters?
            var lastReport = ContinuousClock.now
            /// Adds what the pipeline counted since the last report (the first report creates every series).
            func report(_ counters: WHIPPipelineCounters) {
                guard let telemetry else { return }
                for (kind, negotiated) in kinds where negotiated {
                    let now = kind == "video" ? counters.video : counters.audio
                    let old = reported.map { kind == "video" ? $0.video : $0.audio }
                    if let old, now == old { continue }
                    telemetry.countWebRTC(stream: key, kind: kind, now.subtracting(old ?? WebRTCReceiveCounts()))
                }
                reported = counters
            }
            loop: for await input in inputs {
                let actions: [WHIPMediaPipeline.Action]
                switch input {
                case .tick:
                    // The hub gave the seat to a newer publish of the key: this publisher's media goes nowhere now.
                    if publication.isEnded {
                        reason = OnAirRole.replacedReason
                        break loop
                    }
                    let now = ContinuousClock.now
                    actions = pipeline.tick(now: now, wall: .now())
                    if reported == nil || lastReport.duration(to: now) >= metricsInterval {
                        lastReport = now
                        report(pipeline.counters)
                    }
                case .keyframeWanted: actions = pipeline.requestKeyframe(now: .now)
                case .event(.rtp(let bytes, let wall)): actions = pipeline.receivedRTP(bytes, now: .now, wall: wall)
                case .event(.rtcp(let bytes, _)): actions = pipeline.receivedRTCP(bytes, now: .now)
                case .event(.iceConnected(let remote)):
                    logger.info("WHIP ICE connected", metadata: metadata.merging(["remote": "\(remote)"]) { $1 })
                    actions = []
                case .event(.connected(let profile)):
                    logger.info("WHIP DTLS connected", metadata: metadata.merging(["srtp": "\(profile)"]) { $1 })
                    actions = []
                case .event(.closed(let error)):
                    reason = error.map { "\($0)" } ?? "closed"
                    break loop
                }
                perform(
                    actions,
                    session: session,
                    publication: publication,
                    metadata: metadata,
                    originalAudio: originalAudio
                )
            }
            ticker.cancel()
            forward.cancel()
            report(pipeline.counters)
            telemetry?.webrtcSessionEnded(stream: key)
            session.close()
            _ = sessions.withLock { $0.removeValue(forKey: id) }
            originalAudio?.end(key: key)
            keyframeRequests?.unregister(key: key)
            publication.end()
            var ended = metadata
            ended["reason"] = "\(reason)"
            ended["video_frames"] = "\(pipeline.counters.videoFrames)"
            ended["audio_frames"] = "\(pipeline.counters.audioFrames)"
            ended["audio_concealed"] = "\(pipeline.counters.audioConcealedFrames)"
            ended["nacked"] = "\(pipeline.counters.nackedSequenceNumbers)"
            ended["lost"] = "\(pipeline.counters.video.packetsLost + pipeline.counters.audio.packetsLost)"
            ended["unrecovered"] = "\(pipeline.counters.lostPackets)"
            ended["retransmissions"] = "\(pipeline.counters.retransmissionsReceived)"
            ended["keyframe_requests"] = "\(pipeline.counters.keyframeRequests)"
            ended["remb_sent"] = "\(pipeline.counters.bitrateEstimatesSent)"
            logger.info("WHIP session ended", metadata: ended)
        }
    }

    private func perform(
        _ actions: [WHIPMediaPipeline.Action],
        session: WebRTCSession,
        publication: Publication,
        metadata: Logger.Metadata,
        originalAudio: OriginalAudio?
    ) {
        for action in actions {
            switch action {
            case .publish(let description):
                var described = metadata
                described["video"] =
                    "\(description.video.map { "\($0.codecString) \($0.width)x\($0.height)" } ?? "none")"
                described["audio"] = "\(description.audio?.codecString ?? "none")"
                logger.info("WHIP stream described", metadata: described)
                publication.update(description: description)
            case .frame(let frame):
                publication.send(frame)
            case .originalAudio(let frame):
                originalAudio?.send(frame, key: publication.key)
            case .sendRTCP(let bytes): session.sendRTCP(bytes)
            case .warning(let text):
                logger.warning("WHIP media", metadata: metadata.merging(["reason": "\(text)"]) { $1 })
            }
        }
    }

    private static func randomID() -> String {
        (0..<4).map { _ in String(UInt32.random(in: 0...UInt32.max), radix: 16) }.joined()
    }
}
