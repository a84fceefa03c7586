import CodecFormats
import Logging
import MediaCore
import NIOCore
import PublishAuth
import RTMPWire
import StreamHub
import Telemetry

/// One RTMP connection: handshake, chunk decoding, the session state machine and the hub publication.
final class RTMPSessionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let hub: StreamHub
    private let configuration: RTMPIngestConfiguration
    private let logger: Logger
    private var handshake = RTMPHandshake()
    private var handshakeComplete = false
    private var decoder: ChunkDecoder
    private var encoder = ChunkEncoder()
    private var machine: RTMPSessionStateMachine
    private var adapter = RTMPToStream()
    private var publication: Publication?
    /// The seat on the key's air this publisher asked for (`role=backup` in its name's query).
    private var seat = OnAirRole.primary
    private var arrivals = ArrivalLog()
    private var handshakeTimer: Scheduled<Void>?
    private var peer = "unknown"
    private var peerIP: String?
    private var closing = false
    private let authorizer: PublishAuthorizer
    /// Where the publisher's unserved multitrack tracks are listed for `/api/streams` and `sluice stats`.
    private let telemetry: GatewayTelemetry?
    /// Unserved tracks already logged and listed this session.
    private var reportedTracks: Set<UnservedTrack> = []
    /// `rtmp` or `rtmps`: the scheme in the publication's origin and the webhook's `protocol`.
    var transport = PublishTransport.rtmp

    init(
        hub: StreamHub,
        configuration: RTMPIngestConfiguration,
        logger: Logger,
        authorizer: PublishAuthorizer = PublishAuthorizer(configuration: PublishAuthConfiguration()),
        telemetry: GatewayTelemetry? = nil
    ) {
        self.authorizer = authorizer
        self.telemetry = telemetry
        self.hub = hub
        self.configuration = configuration
        self.logger = logger
        decoder = ChunkDecoder(limits: configuration.chunkLimits)
        machine = RTMPSessionStateMachine(configuration: configuration)
    }

    func channelActive(context: ChannelHandlerContext) {
        peer = context.remoteAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" } ?? "unknown"
        peerIP = context.remoteAddress?.ipAddress
        let timeout = configuration.handshakeTimeout
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        handshakeTimer = context.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
            let (handler, context) = loopBound.value
            handler.fail(context: context, .handshakeTimeout(timeout))
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        let now = ContinuousClock.now
        var buffer = unwrapInboundIn(data)
        let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        do {
            try process(bytes, receivedAt: now, context: context)
        } catch {
            fail(context: context, error)
        }
        if let publication, publication.isEnded {
            close(context: context, reason: OnAirRole.replacedReason)
        }
        context.flush()
    }

    func channelInactive(context: ChannelHandlerContext) {
        handshakeTimer?.cancel()
        performSafely(machine.connectionClosed(), context: context)
        endPublication()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.info("RTMP connection error", metadata: metadata(["reason": "\(error)"]))
        endPublication()
        context.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            fail(context: context, .idleTimeout(configuration.idleTimeout))
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func process(
        _ input: [UInt8],
        receivedAt now: ContinuousClock.Instant,
        context: ChannelHandlerContext
    )
        throws(RTMPIngestError)
    {
        var bytes = input
        if !handshakeComplete {
            let out: RTMPHandshake.Output
            do { out = try handshake.receive(bytes) } catch { throw .wire(error) }
            if !out.reply.isEmpty { write(out.reply, context: context) }
            guard out.isComplete else { return }
            handshakeComplete = true
            handshakeTimer?.cancel()
            bytes = out.leftover
        }
        arrivals.record(count: bytes.count, at: now)
        decoder.feed(bytes)
        try perform(machine.receivedBytes(input.count), context: context, firstByte: nil)
        while !closing {
            let raw: RTMPRawMessage?
            do { raw = try decoder.nextMessage() } catch { throw .wire(error) }
            guard let raw else { break }
            let message: RTMPMessage
            do {
                message = try RTMPMessage(raw: raw, amf0: AMF0Decoder(maxDepth: configuration.maxAMF0Depth))
            } catch .unsupportedAMF3(let type) {
                logger.debug("ignoring AMF3 message", metadata: metadata(["type": "\(type)"]))
                continue
            } catch {
                throw .wire(error)
            }
            let firstByte = arrivals.instant(atOffset: decoder.lastMessageStartOffset) ?? now
            try perform(machine.received(message, timestamp: raw.timestamp), context: context, firstByte: firstByte)
        }
    }

    private func perform(
        _ actions: [RTMPSessionStateMachine.Action],
        context: ChannelHandlerContext,
        firstByte: ContinuousClock.Instant?
    )
        throws(RTMPIngestError)
    {
        for action in actions {
            switch action {
            case .send(let message, let streamID):
                write(encoder.encode(message.raw(messageStreamID: streamID)), context: context)
                if case .setChunkSize(let size) = message { encoder.setChunkSize(Int(size)) }
            case .publish(let key):
                authorize(key, context: context)
            case .endPublication:
                endPublication()
            case .metadata(let m):
                deliver(adapter.update(metadata: m))
            case .media(let kind, let timestamp, let payload):
                let stamps = HopStamps(firstByte: firstByte, ingested: .now, ingestWall: WallTime.now())
                switch kind {
                case .video: deliver(try adapter.video(timestamp: timestamp, body: payload, stamps: stamps))
                case .audio: deliver(try adapter.audio(timestamp: timestamp, body: payload, stamps: stamps))
                }
                reportUnservedTracks()
            case .ignored(let what):
                logger.debug("RTMP ignored", metadata: metadata(["what": "\(what)"]))
            case .close(let reason):
                close(context: context, reason: reason)
            }
        }
    }

    /// Local rules answer at once; a webhook answers later, back on this channel's event loop.
    private func authorize(_ key: StreamKey, context: ChannelHandlerContext) {
        // The name's query is the credential: `cam1?s3cret` publishes `cam1` presenting `s3cret`; `role=backup` in
        // it asks for the key's standby seat (`cam1?s3cret&role=backup`).
        let name = machine.publishName ?? key.rawValue
        let (seat, credential) = OnAirRole.parse(
            query: name.firstIndex(of: "?").map { String(name[name.index(after: $0)...]) }
        )
        self.seat = seat
        let request = PublishAuthRequest(key: key, credential: credential, peerIP: peerIP, transport: transport)
        let now = WallTime.now().nanosecondsSince1970 / 1_000_000_000
        if let decision = authorizer.localDecision(request, now: now) {
            authorized(decision, key: key, context: context)
            return
        }
        let authorizer = authorizer
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.makeFutureWithTask { await authorizer.authorize(request, now: now) }.whenSuccess {
            let (handler, context) = loopBound.value
            handler.authorized($0, key: key, context: context)
            context.flush()
        }
    }

    private func authorized(_ decision: PublishAuthDecision, key: StreamKey, context: ChannelHandlerContext) {
        guard !closing else { return }
        switch decision {
        case .denied(let reason):
            logger.warning("RTMP publish refused", metadata: metadata(["reason": "\(reason)"]))
            performSafely(machine.publishRefused(reason), context: context)
        case .allowed(let method):
            let next: [RTMPSessionStateMachine.Action]
            do {
                publication = try hub.publish(key: key, origin: "\(transport)://\(peer)", seat: seat)
                adapter = RTMPToStream()
                reportedTracks = []
                telemetry?.forgetUnservedTracks(stream: key)
                next = machine.publishSucceeded()
            } catch {
                next = machine.publishFailed(error)
            }
            if publication != nil {
                logger.info(
                    "RTMP publish started",
                    metadata: metadata(["auth": "\(method)", "role": "\(seat.rawValue)"])
                )
            }
            performSafely(next, context: context)
        }
    }

    /// Non-throwing entry for actions without media (byte counters, disconnect).
    private func performSafely(_ actions: [RTMPSessionStateMachine.Action], context: ChannelHandlerContext) {
        do { try perform(actions, context: context, firstByte: nil) } catch { fail(context: context, error) }
    }

    private func deliver(_ outputs: [RTMPToStream.Output]) {
        guard let publication else { return }
        for output in outputs {
            switch output {
            case .description(let d): publication.update(description: d)
            case .frame(var f):
                // The publisher's capture clock rides in an SEI or metadata OBU (bench); it feeds the available hop.
                if f.kind == .video, f.stamps.capture == nil {
                    f.stamps.capture = CaptureStamp.read(f.data, codec: publication.description?.video?.codec ?? .h264)
                }
                publication.send(f)
            }
        }
    }

    /// E-RTMP multitrack: the first video and audio track are the stream; each other track is logged once and listed.
    private func reportUnservedTracks() {
        let count = adapter.otherVideoTracks.count + adapter.otherAudioTracks.count
        guard count != reportedTracks.count, let key = publication?.key else { return }
        let tracks =
            adapter.otherVideoTracks.map { UnservedTrack(kind: "video", track: Int($0.key), codec: "\($0.value)") }
            + adapter.otherAudioTracks.map { UnservedTrack(kind: "audio", track: Int($0.key), codec: "\($0.value)") }
        for track in tracks.sorted() where reportedTracks.insert(track).inserted {
            telemetry?.noteUnservedTrack(stream: key, track)
            logger.info(
                "RTMP multitrack: track not served",
                metadata: metadata(["kind": "\(track.kind)", "track": "\(track.track)", "codec": "\(track.codec)"])
            )
        }
    }

    private func write(_ bytes: [UInt8], context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
    }

    private func endPublication() {
        guard let publication else { return }
        logger.info(
            "RTMP publish ended",
            metadata: metadata([
                "dropped_before_sequence_header": "\(adapter.framesDroppedBeforeSequenceHeader)",
                // E-RTMP multitrack: only the first video track is served; name the rest.
                "other_video_tracks": "\(adapter.otherVideoTracks.keys.sorted())",
                "other_audio_tracks": "\(adapter.otherAudioTracks.keys.sorted())",
            ])
        )
        self.publication = nil
        publication.end()
    }

    /// Malformed input or a timeout: one log line, end the publication, close only this connection.
    private func fail(context: ChannelHandlerContext, _ error: RTMPIngestError) {
        guard !closing else { return }
        logger.warning("RTMP connection closed on error", metadata: metadata(["reason": "\(error)"]))
        closing = true
        endPublication()
        context.close(promise: nil)
    }

    private func close(context: ChannelHandlerContext, reason: String) {
        guard !closing else { return }
        logger.info("RTMP connection closed", metadata: metadata(["reason": "\(reason)"]))
        closing = true
        endPublication()
        context.flush()
        context.close(promise: nil)
    }

    private func metadata(_ extra: Logger.Metadata) -> Logger.Metadata {
        var m = extra
        m["peer"] = "\(peer)"
        m["stream"] = "\(publication?.key.rawValue ?? machine.streamKey?.rawValue ?? "-")"
        if let publication { m["session"] = "\(publication.sessionID)" }
        return m
    }
}
