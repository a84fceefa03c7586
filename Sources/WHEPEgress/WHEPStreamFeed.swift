import Logging
import MediaCore
import StreamHub
import Synchronization
import Telemetry
import WebRTCWire

/// One stream's WHEP egress for one video source: reads the hub once, packetizes each track once, keeps the
/// history NACKs are answered from, and fans packets out to its viewers (each encrypts its own copy).
final class WHEPStreamFeed: Sendable {
    let key: StreamKey
    let videoSource: WHEPVideoSource
    let videoSSRC: UInt32
    let audioSSRC: UInt32
    /// Video retransmissions for viewers that negotiated RTX (RFC 4588 §4: their own SSRC, one per stream).
    let videoRTXSSRC: UInt32
    let cname: String
    let hub: StreamHub
    /// The publisher's own Opus (WHIP), sent untouched when present; else the hub's audio is transcoded to Opus.
    let originalAudio: OriginalAudio?
    /// Where the source can be asked for a keyframe (a WHIP publisher); RTMP sources cannot.
    let keyframeRequests: KeyframeRequests?
    let configuration: WHEPEgressConfiguration
    let telemetry: GatewayTelemetry?
    let logger: Logger

    struct State: Sendable {
        var viewers: [String: WHEPViewer] = [:]
        /// Passthrough viewers joining on this rung (`WHEPJoinSwitch`): video only, on their own SSRC, no reports.
        var bridged: [String: WHEPViewer] = [:]
        var reported: [String: WHEPViewer.Counters] = [:]
        var video: WHEPTrackSender
        var audio: WHEPTrackSender
        /// One keyframe request per `keyframeRequestInterval`, shared by all viewers; later ones wait, never dropped.
        var keyframePacer: KeyframeRequestPacer
        /// The wall clock of media time zero for this publishing session, fixed by its first frame of either track:
        /// both tracks' sender reports map media time through it, so a receiver lines audio up with video even
        /// though video leaves later (the WebRTC rung's decode and encode).
        var clockBase: WallTime?
        var tasks: [Task<Void, Never>] = []
        var stopped = false
        /// Keyframe requests carried out by the rung (the source itself cannot be asked).
        var keyframesForced = 0
        /// Video bytes sent per second (what a viewer of this feed must take: `WHEPBandwidthAdaptation`).
        var videoRate = RateMeter(origin: .now)
    }

    let state: Mutex<State>
    /// Set when a keyframe is wanted; the rung's encoder takes it.
    let keyframeWanted = Atomic<Bool>(false)
    /// Called once when the source ended (the service closes the viewers and forgets the feed).
    let onEnded: @Sendable (WHEPStreamFeed) -> Void

    init(
        key: StreamKey,
        videoSource: WHEPVideoSource,
        hub: StreamHub,
        originalAudio: OriginalAudio? = nil,
        keyframeRequests: KeyframeRequests? = nil,
        configuration: WHEPEgressConfiguration,
        telemetry: GatewayTelemetry?,
        logger: Logger,
        onEnded: @escaping @Sendable (WHEPStreamFeed) -> Void
    ) {
        var generator = SystemRandomNumberGenerator()
        self.key = key
        self.videoSource = videoSource
        videoSSRC = UInt32.random(in: 1...UInt32.max, using: &generator)
        var audio = UInt32.random(in: 1...UInt32.max, using: &generator)
        if audio == videoSSRC { audio &+= 1 }
        audioSSRC = audio
        var rtx = UInt32.random(in: 1...UInt32.max, using: &generator)
        while rtx == videoSSRC || rtx == audio { rtx &+= 1 }
        videoRTXSSRC = rtx
        cname = "sluice-" + String(UInt64.random(in: 1...UInt64.max, using: &generator), radix: 36)
        self.hub = hub
        self.originalAudio = originalAudio
        self.keyframeRequests = keyframeRequests
        self.configuration = configuration
        self.telemetry = telemetry
        var logger = logger
        logger[metadataKey: "stream"] = "\(key)"
        logger[metadataKey: "video_source"] = "\(videoSource)"
        self.logger = logger
        self.onEnded = onEnded
        state = Mutex(
            State(
                video: WHEPTrackSender(
                    kind: .video,
                    ssrc: videoSSRC,
                    historyCapacity: configuration.videoHistoryPackets,
                    maxPayloadSize: configuration.maxPayloadSize
                ),
                audio: WHEPTrackSender(
                    kind: .audio,
                    ssrc: audio,
                    historyCapacity: configuration.audioHistoryPackets,
                    maxPayloadSize: configuration.maxPayloadSize
                ),
                keyframePacer: KeyframeRequestPacer(
                    interval: videoSource == .joinRung
                        ? configuration.joinKeyframeRequestInterval : configuration.keyframeRequestInterval
                )
            )
        )
    }

    /// The readers of one publishing session: video (none for an audio-only feed) and audio.
    struct Readers: Sendable {
        var video: (key: StreamKey, reader: StreamReader)?
        /// Video frames the reader starts with from before it subscribed (the last GOP, for the rung's decoder).
        var videoReplayed = 0
        var audio: (key: StreamKey, reader: StreamReader)
        /// True when `audio` reads the publisher's own Opus (`OriginalAudio`), not the hub.
        var original: Bool
    }

    /// Subscribes to the stream's current publication; nil when it (or the rendition the feed sends) is not live.
    func subscribe() -> Readers? {
        let videoKey: StreamKey? =
            switch videoSource {
            case .rendition(let k): k
            case .webRTCRung, .joinRung: key
            case .none: nil
            }
        var video: (key: StreamKey, reader: StreamReader)?
        var replayed = 0
        if let videoKey {
            let capacity = configuration.readerCapacity
            if videoSource.isRung {
                // The rung's decoder catches up on the last GOP, so its first picture is encoded at once.
                guard let r = hub.subscribeReplayingLastGOP(key: videoKey, name: "whep", capacity: capacity) else {
                    return nil
                }
                (video, replayed) = ((videoKey, r.reader), r.replayed)
            } else {
                guard let r = hub.subscribe(key: videoKey, name: "whep", capacity: capacity) else { return nil }
                video = (videoKey, r)
            }
        }
        if let original = originalAudio?.subscribe(key: key, name: "whep", capacity: configuration.readerCapacity) {
            return Readers(video: video, videoReplayed: replayed, audio: (key, original), original: true)
        }
        guard let audio = hub.subscribe(key: key, name: "whep", capacity: configuration.readerCapacity) else {
            if let video { hub.unsubscribe(video.reader, from: video.key) }
            return nil
        }
        return Readers(video: video, videoReplayed: replayed, audio: (key, audio), original: false)
    }

    /// Stops reading one session's readers.
    func unsubscribe(_ readers: Readers) {
        if let video = readers.video { hub.unsubscribe(video.reader, from: video.key) }
        if readers.original {
            originalAudio?.unsubscribe(readers.audio.reader, from: key)
        } else {
            hub.unsubscribe(readers.audio.reader, from: key)
        }
    }

    /// Subscribes and starts the session and report loops; false when the stream is gone.
    func start() -> Bool {
        guard let readers = subscribe() else { return false }
        let tasks = [Task { await self.runSessions(readers) }, Task { await self.runReports() }]
        state.withLock { $0.tasks = tasks }
        logger.info("WHEP feed started", metadata: ["video_ssrc": "\(videoSSRC)", "audio_ssrc": "\(audioSSRC)"])
        return true
    }

    /// Adds a viewer (it receives once DTLS connected).
    func add(_ viewer: WHEPViewer) {
        let count = state.withLock { s in
            s.viewers[viewer.id] = viewer
            return s.viewers.count
        }
        logger.debug("WHEP viewer added", metadata: ["viewers": "\(count)"])
    }

    /// Removes a viewer and reports its last counters; true when none is left.
    func remove(_ viewer: WHEPViewer) -> Bool {
        let (empty, previous) = state.withLock { s in
            s.viewers[viewer.id] = nil
            return (s.viewers.isEmpty && s.bridged.isEmpty, s.reported.removeValue(forKey: viewer.id))
        }
        report(viewer.counters, since: previous ?? .init())
        return empty
    }

    /// Feeds a passthrough viewer this rung's video until it switches (it is counted and reported by its own feed).
    func addBridged(_ viewer: WHEPViewer) {
        state.withLock { $0.bridged[viewer.id] = viewer }
    }

    /// Stops feeding a bridged viewer; true when the feed has nobody left.
    func removeBridged(_ viewer: WHEPViewer) -> Bool {
        state.withLock { s in
            s.bridged[viewer.id] = nil
            return s.viewers.isEmpty && s.bridged.isEmpty
        }
    }

    /// True when neither viewers nor bridged viewers are left.
    var isIdle: Bool { state.withLock { $0.viewers.isEmpty && $0.bridged.isEmpty } }

    /// The video track's RTP timestamp offset (`WHEPJoinSwitch` moves rung timestamps by the difference).
    var videoTimestampOffset: UInt32 { state.withLock { $0.video.timestampOffset } }

    /// The video track's next sequence number and last RTP timestamp (a viewer's timeline taken over mid-stream
    /// starts there).
    var videoPosition: (nextSequence: UInt16, lastTimestamp: UInt32?) {
        state.withLock { ($0.video.sequence, $0.video.lastTimestamp) }
    }

    /// Video bits per second sent over the last few seconds; nil before a whole second of it.
    func videoBitRate(now: ContinuousClock.Instant = .now) -> Double? {
        let rate = state.withLock { $0.videoRate.rates(now: now).bitsPerSecond }
        return rate > 0 ? rate : nil
    }

    /// Stops reading the hub; viewers are the service's to close.
    func stop() {
        let tasks = state.withLock { s in
            s.stopped = true
            defer { s.tasks = [] }
            return s.tasks
        }
        // Cancelling a loop finishes its readers (StreamReader.next), and the session loop unsubscribes them.
        for task in tasks { task.cancel() }
        logger.info("WHEP feed stopped")
    }

    var viewers: [WHEPViewer] { state.withLock { Array($0.viewers.values) } }

    /// Viewers of other feeds taking this one's video (joining, or stepped down onto it).
    var bridgedViewers: [WHEPViewer] { state.withLock { Array($0.bridged.values) } }

    /// Keyframes the rung encoded on request.
    var keyframesForced: Int { state.withLock { $0.keyframesForced } }

    func end() {
        let first = state.withLock { s -> Bool in
            defer { s.stopped = true }
            return !s.stopped
        }
        if first { onEnded(self) }
    }

    /// A viewer joined or asked (PLI/FIR): one keyframe per `keyframeRequestInterval` per stream, shared by all; a
    /// request inside the window is deferred to its end (`tickKeyframeRequests`) unless a keyframe reaches the
    /// viewers first. The WebRTC rung encodes it; a passthrough asks its source when the source can be asked (WHIP);
    /// a ladder rung cannot be asked (its viewers wait for its next IDR). True when a keyframe was asked for now.
    @discardableResult
    func requestKeyframe(now: ContinuousClock.Instant = .now) -> Bool {
        guard canRequestKeyframes else { return false }
        let due = state.withLock { $0.keyframePacer.requested(now: now) }
        if due { carryOutKeyframeRequest() }
        return due
    }

    /// Passes on a deferred keyframe request whose window ended; the video loop calls it for each source frame.
    func tickKeyframeRequests(now: ContinuousClock.Instant = .now) {
        guard canRequestKeyframes else { return }
        let due = state.withLock { $0.keyframePacer.tick(now: now) }
        if due { carryOutKeyframeRequest() }
    }

    /// The rung can always make a keyframe; a passthrough only when its source can be asked.
    private var canRequestKeyframes: Bool {
        switch videoSource {
        case .webRTCRung, .joinRung: true
        case .rendition(let rendition): rendition == key && keyframeRequests?.canRequest(key: key) == true
        case .none: false
        }
    }

    private func carryOutKeyframeRequest() {
        state.withLock { $0.keyframesForced += 1 }
        if videoSource.isRung {
            keyframeWanted.store(true, ordering: .relaxed)
        } else {
            keyframeRequests?.request(key: key)
        }
    }

    /// Packetizes one video access unit once and hands it to every viewer.
    func send(video frame: MediaFrame) {
        let now = WallTime.now()
        typealias Built = (packets: [[UInt8]], viewers: [WHEPViewer], bridged: [WHEPViewer])
        let result = state.withLock { s -> Result<Built, WebRTCWireError> in
            let wall = s.mediaWall(of: frame.pts, now: now)
            // The viewers get this keyframe: it answers a request still waiting for its window.
            if frame.isKeyframe { s.keyframePacer.keyframePassed() }
            do throws(WebRTCWireError) {
                let packets = try s.video.packetize(video: frame, wall: wall)
                s.videoRate.add(frames: 1, bytes: packets.reduce(0) { $0 + $1.count }, at: .now)
                return .success((packets, Array(s.viewers.values), Array(s.bridged.values)))
            } catch {
                return .failure(error)
            }
        }
        let built: Built
        switch result {
        case .success(let b): built = b
        case .failure(let error):
            logger.warning("WHEP video frame not packetized", metadata: ["reason": "\(error)"])
            return
        }
        var wanted = false
        for viewer in built.viewers where viewer.deliver(video: built.packets, keyframe: frame.isKeyframe) {
            wanted = true
        }
        for viewer in built.bridged
        where viewer.deliver(video: built.packets, keyframe: frame.isKeyframe, origin: .rung) {
            wanted = true
        }
        if wanted { requestKeyframe() }
    }

    /// Packetizes one Opus frame once and hands it to every viewer.
    func send(audio frame: MediaFrame) {
        let now = WallTime.now()
        let (packets, viewers) = state.withLock { s in
            (s.audio.packetize(audio: frame, wall: s.mediaWall(of: frame.dts, now: now)), Array(s.viewers.values))
        }
        for viewer in viewers { viewer.deliver(audio: packets) }
    }

    /// New SPS/PPS for in-band repetition before keyframes.
    func setDecoderConfiguration(_ avcC: [UInt8]) {
        state.withLock { $0.video.setDecoderConfiguration(avcC) }
    }

    /// Packets still in the track's history, for a NACK.
    func history(_ kind: MediaKind, _ sequenceNumbers: [UInt16]) -> [[UInt8]] {
        state.withLock { s in
            let history = kind == .video ? s.video.history : s.audio.history
            return sequenceNumbers.compactMap { history.packet($0) }
        }
    }

    /// Which track an SSRC in feedback names.
    func kind(ofSSRC ssrc: UInt32) -> MediaKind? {
        ssrc == videoSSRC ? .video : ssrc == audioSSRC ? .audio : nil
    }

    /// Adds what a viewer counted since the last report to the Prometheus counters.
    func report(_ now: WHEPViewer.Counters, since old: WHEPViewer.Counters) {
        guard let telemetry else { return }
        let video: [(WHEPCounter, Int)] = [
            (.packetsSent, now.videoPacketsSent - old.videoPacketsSent),
            (.packetsDropped, now.videoPacketsDropped - old.videoPacketsDropped),
            (.nackedPackets, now.nackedPackets - old.nackedPackets),
            (.retransmittedPackets, now.retransmittedPackets - old.retransmittedPackets),
            (.rtxPackets, now.retransmittedOnRTX - old.retransmittedOnRTX),
            (.keyframeRequests, now.keyframeRequests - old.keyframeRequests),
        ]
        for (counter, amount) in video { telemetry.countWHEP(counter, stream: key, kind: "video", amount) }
        telemetry.countWHEP(.packetsSent, stream: key, kind: "audio", now.audioPacketsSent - old.audioPacketsSent)
        telemetry.countWHEP(
            .packetsDropped,
            stream: key,
            kind: "audio",
            now.audioPacketsDropped - old.audioPacketsDropped
        )
    }
}

extension WHEPStreamFeed.State {
    /// Where media time `time` sits on the session's wall clock (the first frame fixes the mapping at `now`).
    mutating func mediaWall(of time: MediaTime, now: WallTime) -> WallTime {
        let offset = Duration.microseconds(time.converted(to: 1_000_000).value)
        if let clockBase { return clockBase.advanced(by: offset) }
        let base = now.advanced(by: .zero - offset)
        clockBase = base
        return now
    }
}
