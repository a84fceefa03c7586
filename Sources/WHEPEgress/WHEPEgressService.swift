import Logging
import MediaCore
import StreamHub
import Synchronization
import Telemetry
import WebRTCTransport
import WebRTCWire

/// draft-ietf-wish-whep-03: WHEP viewers as sending sessions on the shared WebRTC port. Viewers of one stream and
/// video source share a feed (packetized once); each viewer encrypts its own copy.
public final class WHEPEgressService: Sendable {
    /// What a successful POST returns.
    public struct CreatedSession: Sendable, Hashable {
        /// The SDP answer (`application/sdp`).
        public var answer: String
        /// The session id for the `Location` path.
        public var sessionID: String
        /// The session's entity tag.
        public var etag: String
        /// Which rendition the viewer gets (`passthrough`, `rung 480p`, `webrtc-rung`), for logs and tests.
        public var videoSource: String
    }

    /// The transport every session rides on.
    public let transport: WebRTCTransportService
    let hub: StreamHub
    /// WHIP publishers' own Opus, sent untouched.
    let originalAudio: OriginalAudio?
    /// Where a passthrough's source can be asked for a keyframe (WHIP publishers).
    let keyframeRequests: KeyframeRequests?
    let telemetry: GatewayTelemetry?
    let logger: Logger
    /// Limits, queues, history and the WebRTC rung's encoder.
    public let configuration: WHEPEgressConfiguration

    struct State: Sendable {
        var viewers: [String: WHEPViewer] = [:]
        var feeds: [String: WHEPStreamFeed] = [:]
        /// Whether a publication's video reorders (B-frames), by publish session id: probed once.
        var reorders: [String: Bool] = [:]
        /// POSTs between the viewer-limit check and their session (each holds a slot).
        var admitting = 0
    }

    let state = Mutex(State())

    /// A service sending `hub`'s streams over `transport` (which the app starts and stops).
    public init(
        transport: WebRTCTransportService,
        hub: StreamHub,
        originalAudio: OriginalAudio? = nil,
        keyframeRequests: KeyframeRequests? = nil,
        telemetry: GatewayTelemetry? = nil,
        configuration: WHEPEgressConfiguration = .init(),
        logger: Logger = Logger(label: "sluice.whep")
    ) {
        self.transport = transport
        self.hub = hub
        self.originalAudio = originalAudio
        self.keyframeRequests = keyframeRequests
        self.telemetry = telemetry
        self.configuration = configuration
        self.logger = logger
    }

    /// Viewers with a session now.
    public var viewerCount: Int { state.withLock { $0.viewers.count } }

    /// Answers a viewer's `offer` for `streamKey` and starts sending once its DTLS connects.
    public func createSession(streamKey: String, offer: String) async throws(WHEPEgressError) -> CreatedSession {
        guard let key = StreamKey(streamKey) else { throw .invalidStreamKey(streamKey) }
        let candidates = candidates
        guard !candidates.isEmpty else { throw .transportUnavailable }
        let limit = configuration.maxViewers
        // A slot is held from here to the answer, so POSTs racing past the check cannot overshoot the limit.
        let admitted = state.withLock { s -> Bool in
            guard limit == 0 || s.viewers.count + s.admitting < limit else { return false }
            s.admitting += 1
            return true
        }
        guard admitted else { throw .tooManyViewers(limit: limit, retryAfter: configuration.retryAfter) }
        var holdingSlot = true
        defer { if holdingSlot { state.withLock { $0.admitting -= 1 } } }
        let parsed: WHIPOffer
        do {
            parsed = try WHIPOffer(parsing: offer, sizeLimit: configuration.maxOfferBytes)
        } catch {
            logger.info("WHEP offer refused", metadata: ["stream": "\(key)", "reason": "\(error)"])
            throw .offer(error)
        }
        guard let publication = hub.publication(for: key) else { throw .streamNotLive(streamKey) }
        let description = try await described(publication)
        let choices = await videoChoices(publication, description: description)
        let local = ICECredentials.random()
        let feedProbe = WHEPAnswerConfiguration(
            iceUfrag: local.ufrag,
            icePwd: local.password,
            fingerprint: transport.certificate.fingerprint,
            candidates: candidates,
            sessionID: UInt64.random(in: 1...UInt64(Int64.max)),
            cname: "",
            videoSSRC: 0,
            audioSSRC: 0
        )
        let sendable = WHEPSendable(video: choices.map(\.profile), audio: description.audio != nil)
        // Negotiate first to learn the source, then again with that feed's SSRCs and CNAME for the real answer.
        let negotiation: WHEPNegotiation
        let feed: WHEPStreamFeed
        var lower: [WHEPVideoSource] = []
        do {
            let first = try WHEPNegotiation(offer: parsed, sendable: sendable, configuration: feedProbe)
            let source = first.videoChoice.map { choices[$0].source } ?? .none
            if let chosen = first.videoChoice { lower = Self.lowerRenditions(choices, below: chosen) }
            feed = try self.feed(key: key, source: source)
            var answerConfiguration = feedProbe
            answerConfiguration.cname = feed.cname
            answerConfiguration.videoSSRC = feed.videoSSRC
            answerConfiguration.audioSSRC = feed.audioSSRC
            answerConfiguration.videoRTXSSRC = feed.videoRTXSSRC
            negotiation = try WHEPNegotiation(offer: parsed, sendable: sendable, configuration: answerConfiguration)
        } catch let error as WebRTCWireError {
            logger.info("WHEP offer refused", metadata: ["stream": "\(key)", "reason": "\(error)"])
            throw .offer(error)
        } catch let error as WHEPEgressError {
            throw error
        } catch {
            throw .streamNotLive(streamKey)
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
            release(feed)
            throw .transport(error)
        }
        let id = Self.randomID()
        let viewer = WHEPViewer(
            id: id,
            key: key,
            session: session,
            videoPayloadType: negotiation.video?.payloadType,
            audioPayloadType: negotiation.audio?.payloadType,
            videoRetransmission: negotiation.video?.retransmission,
            queueLimit: configuration.viewerQueuePackets,
            videoSource: "\(feed.videoSource)",
            lowerRenditions: configuration.adaptToBandwidth ? lower : []
        )
        let count = state.withLock { s in
            s.viewers[id] = viewer
            s.admitting -= 1
            return s.viewers.values.filter { $0.key == key }.count
        }
        holdingSlot = false
        feed.add(viewer)
        telemetry?.setWHEPViewers(stream: key, count)
        var metadata: Logger.Metadata = ["stream": "\(key)", "session": "\(id)", "video": "\(feed.videoSource)"]
        metadata["video_pt"] = "\(negotiation.video.map { "\($0.payloadType) \($0.codec.fmtpValue)" } ?? "none")"
        metadata["audio_pt"] = "\(negotiation.audio.map { "\($0.payloadType)" } ?? "none")"
        metadata["rtx_pt"] = "\(negotiation.video?.retransmission.map { "\($0.payloadType)" } ?? "none")"
        logger.info("WHEP session created", metadata: metadata)
        run(viewer, feed: feed, metadata: metadata)
        return CreatedSession(
            answer: negotiation.answerText,
            sessionID: id,
            etag: "\"\(id)\"",
            videoSource: "\(feed.videoSource)"
        )
    }

    /// Ends a session (DELETE); `key` must match the stream it watches when given.
    public func endSession(id: String, key: String? = nil) throws(WHEPEgressError) {
        let viewer = state.withLock { s -> WHEPViewer? in
            guard let viewer = s.viewers[id], key == nil || viewer.key.rawValue == key else { return nil }
            return viewer
        }
        guard let viewer else { throw .sessionNotFound(id) }
        logger.info("WHEP session ended by DELETE", metadata: ["stream": "\(viewer.key)", "session": "\(id)"])
        viewer.session.close()
    }

    /// Closes every session (shutdown).
    public func closeAll() {
        for viewer in state.withLock({ Array($0.viewers.values) }) { viewer.session.close() }
    }

    /// The host candidates an answer lists: the bound ones, then `configuration.additionalHosts` on the same port.
    var candidates: [TransportAddress] {
        let bound = transport.candidates
        guard let port = bound.first?.port else { return bound }
        var out = bound
        for host in configuration.additionalHosts {
            guard let ip = TransportAddress.parseIP(host), let address = TransportAddress(ip: ip, port: port),
                !out.contains(address)
            else { continue }
            out.append(address)
        }
        return out
    }

    /// Where `state.feeds` keeps the feed of `key` and `source`.
    static func feedName(key: StreamKey, source: WHEPVideoSource) -> String { "\(key.rawValue)|\(source)" }

    /// The feed for `key` and `source`, started on first use.
    func feed(key: StreamKey, source: WHEPVideoSource) throws(WHEPEgressError) -> WHEPStreamFeed {
        let name = Self.feedName(key: key, source: source)
        let created = state.withLock { s -> (WHEPStreamFeed, Bool) in
            if let existing = s.feeds[name] { return (existing, false) }
            let feed = WHEPStreamFeed(
                key: key,
                videoSource: source,
                hub: hub,
                originalAudio: originalAudio,
                keyframeRequests: keyframeRequests,
                configuration: configuration,
                telemetry: telemetry,
                logger: logger
            ) { [weak self] ended in self?.feedEnded(ended, name: name) }
            s.feeds[name] = feed
            return (feed, true)
        }
        if created.1, !created.0.start() {
            state.withLock { _ = $0.feeds.removeValue(forKey: name) }
            throw .streamNotLive(key.rawValue)
        }
        return created.0
    }

    /// The source ended: its viewers' sessions close (each viewer task then cleans up).
    private func feedEnded(_ feed: WHEPStreamFeed, name: String) {
        state.withLock { s in if s.feeds[name] === feed { s.feeds[name] = nil } }
        feed.stop()
        let viewers = feed.viewers
        logger.info("WHEP stream ended", metadata: ["stream": "\(feed.key)", "viewers": "\(viewers.count)"])
        for viewer in viewers { viewer.session.close() }
        // A lower rung that stops (shed, or its stream ended) sends its viewers back to their own feed.
        for viewer in feed.bridgedViewers where viewer.lowerRendition === feed {
            if viewer.lowerRenditionEnded() {
                logger.info(
                    "WHEP viewer's lower rendition ended; back to its own",
                    metadata: ["stream": "\(viewer.key)", "session": "\(viewer.id)"]
                )
            }
        }
    }

    /// Stops a feed nobody watches any more.
    func release(_ feed: WHEPStreamFeed) {
        let name = Self.feedName(key: feed.key, source: feed.videoSource)
        let idle = state.withLock { s -> Bool in
            guard s.feeds[name] === feed, feed.isIdle else { return false }
            s.feeds[name] = nil
            return true
        }
        if idle { feed.stop() }
    }

    /// Rung frames a WebRTC-rung viewer's join holds back: its own rung's IDR of a picture comes out up to this many
    /// frames after the join rung's encode of it (two encodes of one decoded picture, the IDR the larger).
    static let joinHoldFrames = 2

    /// A viewer whose own feed cannot give it a keyframe now (an RTMP passthrough, or a WHIP passthrough or the WebRTC
    /// rung inside its keyframe window) starts on the join rung, which makes an IDR at once, and moves onto its own
    /// feed at that feed's next keyframe (`WHEPJoinSwitch`). The answer's profile-level-id covers both: the rung is
    /// constrained baseline, which every H.264 decoder takes (A.2). A passthrough's frames arrive before the join rung's
    /// encodes of them; the WebRTC rung's IDR comes level with or behind them, so its viewers' rung frames are held
    /// back `joinHoldFrames` frames until the IDR takes their place. A ladder rung's viewers wait for its next IDR: it
    /// cannot be asked for one, and the switch would wait as long.
    func joinOnRung(_ viewer: WHEPViewer, feed: WHEPStreamFeed) {
        let ownIsWebRTCRung = feed.videoSource == .webRTCRung
        guard configuration.joinOnRung, feed.videoSource == .rendition(feed.key) || ownIsWebRTCRung,
            let rung = try? self.feed(key: feed.key, source: .joinRung)
        else { return }
        viewer.joinOnRung(
            rung,
            timeline: WHEPJoinSwitch(
                firstSequence: UInt16.random(in: 0...UInt16.max),
                timestampShift: feed.videoTimestampOffset &- rung.videoTimestampOffset,
                holdFrames: ownIsWebRTCRung ? Self.joinHoldFrames : 0
            ),
            ssrc: feed.videoSSRC,
            historyCapacity: configuration.videoHistoryPackets
        ) { [weak self] viewer, rung in
            let frames = viewer.counters.framesFromRung
            self?.logger.info(
                "WHEP viewer left the rung",
                metadata: [
                    "stream": "\(viewer.key)", "session": "\(viewer.id)", "rung_frames": "\(frames)",
                    "own_feed": "\(feed.videoSource)", "on_own_feed": "\(viewer.switchedToOwnFeed)",
                ]
            )
            if rung.removeBridged(viewer) { self?.release(rung) }
        }
        rung.addBridged(viewer)
    }

    private static func randomID() -> String {
        (0..<4).map { _ in String(UInt32.random(in: 0...UInt32.max), radix: 16) }.joined()
    }
}
