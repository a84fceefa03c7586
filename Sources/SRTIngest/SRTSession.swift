import CSRT
import CodecFormats
import Dispatch
import Logging
import MPEGTS
import MediaCore
import PublishAuth
import SRTWire
import StreamHub
import Synchronization
import Telemetry

/// One SRT publisher: its own thread reads messages (blocking libsrt calls, never on the cooperative pool), demuxes
/// the transport stream and publishes frames into the hub like any other ingest.
struct SRTSession: Sendable {
    let socket: SRTSocket
    let admitted: SRTListener.Admitted
    let hub: StreamHub
    let authorizer: PublishAuthorizer
    let telemetry: GatewayTelemetry?
    let configuration: SRTIngestConfiguration
    let registry: SRTSessionRegistry
    let logger: Logger

    /// One SRT live message holds at most 1456 bytes (seven 188-byte TS packets are the usual 1316).
    static let messageCapacity = 1500

    /// Runs the session to its end; call on a dedicated thread.
    func run() {
        guard registry.add(socket) else { return }
        defer {
            registry.remove(socket)
            socket.close()
        }
        var metadata: Logger.Metadata = ["peer": "\(admitted.peer)", "stream": "\(admitted.id.key)"]
        if let user = admitted.id.user { metadata["user"] = "\(user)" }
        let publication: Publication
        do {
            try prepareSocket()
            let method = try admitted.auth ?? askWebhook()
            publication = try publish()
            logger.info(
                "SRT publish started",
                metadata: metadata.merging(
                    [
                        "auth": "\(method)", "session": "\(publication.sessionID)",
                        "latency_ms": "\(negotiatedLatency)", "role": "\(admitted.id.seat.rawValue)",
                    ]
                ) { $1 }
            )
        } catch {
            logger.warning("SRT caller refused", metadata: metadata.merging(["reason": "\(error)"]) { $1 })
            return
        }
        telemetry?.srtSessionStarted(stream: publication.key)
        var adapter = TSToStream()
        let outcome = receive(into: publication, adapter: &adapter)
        publication.end()
        telemetry?.srtSessionEnded(stream: publication.key)
        let stats = telemetry?.srt(stream: publication.key) ?? SRTLinkStats()
        var end = metadata.merging(
            [
                "reason": "\(outcome)", "frames": "\(publication.framesIn)",
                "continuity_errors": "\(adapter.demuxer.continuityErrors)",
                "dropped_pes": "\(adapter.demuxer.droppedPES)",
                "dropped_before_parameters": "\(adapter.framesDroppedBeforeParameters)",
                "srt_lost": "\(stats.packetsLost)", "srt_retransmitted": "\(stats.packetsRetransmitted)",
                "srt_dropped": "\(stats.packetsDropped)",
            ]
        ) { $1 }
        end["session"] = "\(publication.sessionID)"
        if case .connectionEnded = outcome {
            logger.info("SRT publish ended", metadata: end)
        } else {
            logger.warning("SRT session closed on error", metadata: end)
        }
    }

    /// Accepted sockets inherit the listener's non-blocking mode: the session reads blocking, waking to check stop.
    private func prepareSocket() throws(SRTIngestError) {
        try socket.set(SRTO_RCVSYN, 1, name: "SRTO_RCVSYN")
        try socket.set(SRTO_RCVTIMEO, 250, name: "SRTO_RCVTIMEO")
    }

    private var negotiatedLatency: Int { Int(socket.int(SRTO_RCVLATENCY) ?? -1) }

    /// The webhook, for callers the local rules could not decide; this thread may wait, libsrt's could not.
    private func askWebhook() throws(SRTIngestError) -> String {
        let request = PublishAuthRequest(
            key: admitted.id.key,
            credential: admitted.id.credential,
            peerIP: admitted.peer.split(separator: ":").dropLast().joined(separator: ":"),
            transport: .srt
        )
        let answer = Mutex<PublishAuthDecision?>(nil)
        let done = DispatchSemaphore(value: 0)
        let authorizer = authorizer
        Task {
            let decision = await authorizer.authorize(request)
            answer.withLock { $0 = decision }
            done.signal()
        }
        done.wait()
        switch answer.withLock({ $0 }) {
        case .allowed(let method): return method
        case .denied(let reason): throw .publishRefused(reason: reason)
        case nil: throw .publishRefused(reason: "no decision")
        }
    }

    private func publish() throws(SRTIngestError) -> Publication {
        let id = admitted.id
        do { return try hub.publish(key: id.key, origin: "srt://\(admitted.peer)", seat: id.seat) } catch {
            throw .hub(error)
        }
    }

    /// Reads until the peer leaves, shutdown, or bad input; returns why it stopped.
    private func receive(into publication: Publication, adapter: inout TSToStream) -> SRTIngestError {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.messageCapacity, alignment: 16)
        defer { buffer.deallocate() }
        var nextStats = ContinuousClock.now
        // TSBPD delivers a message this long after the sender sent it (plus the first packet's one-way delay).
        let window = Duration.milliseconds(max(0, negotiatedLatency))
        while !registry.isClosed {
            if publication.isEnded {
                return .connectionEnded(OnAirRole.replacedReason)
            }
            let now = ContinuousClock.now
            if now >= nextStats {
                if let stats = socket.stats() { telemetry?.recordSRT(stream: publication.key, stats) }
                nextStats = now + configuration.statsInterval
            }
            switch socket.receive(into: buffer) {
            case .timeout: continue
            case .ended(let reason):
                // Final counters, while libsrt still has the socket's statistics.
                if let stats = socket.stats() { telemetry?.recordSRT(stream: publication.key, stats) }
                // The last video PES ends only with the stream: flushed so no frame is lost at the end.
                let stamps = HopStamps(firstByte: .now, ingestWall: WallTime.now())
                if let last = try? adapter.flush(stamps: stamps) { deliver(last, to: publication) }
                return .connectionEnded(reason)
            case .message(let count, let sinceDue):
                let arrival = ContinuousClock.now
                // The sender's send instant when libsrt tells the delivery time: the ingest hop then includes the
                // latency window, the price SRT pays for retransmission.
                let firstByte = sinceDue.map { arrival - $0 - window } ?? arrival
                let stamps = HopStamps(firstByte: firstByte, ingestWall: WallTime.now())
                do { deliver(try adapter.feed(buffer.prefix(count), stamps: stamps), to: publication) } catch {
                    return .transportStream(error)
                }
            }
        }
        return .connectionEnded("gateway shutting down")
    }

    /// Hands the adapter's outputs to the hub, stamping each frame as it enters.
    private func deliver(_ outputs: [TSToStream.Output], to publication: Publication) {
        for output in outputs {
            switch output {
            case .description(let d): publication.update(description: d)
            case .frame(var frame):
                frame.stamps.ingested = .now
                publication.send(frame)
            }
        }
    }
}
