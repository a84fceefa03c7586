import CodecFormats
import HTTPOrigin
import LLHLSPackager
import Logging
import MediaCore
import PublishAuth
import RTMPIngest
import Recorder
import SRTIngest
import ServiceLifecycle
import StreamHub
import Synchronization
import Telemetry
import Transcoder
import UnixSignals
import WHEPEgress
import WHIPIngest
import WebRTCTransport

import struct Foundation.Data
import class Foundation.FileHandle

/// Wires hub, ingest, packager and origin into one ServiceGroup (the `sluice serve` process).
public struct GatewayApp: Sendable {
    /// Effective configuration.
    public let configuration: SluiceConfiguration
    /// Publish the built-in test pattern as `demo`.
    public let demo: Bool
    /// The gateway's one telemetry: ingest, transcoder, packager and origin record into it; `/metrics` exports it.
    public let telemetry = GatewayTelemetry()
    private let logger: Logger

    /// Creates the app.
    public init(configuration: SluiceConfiguration, demo: Bool, logger: Logger) {
        self.configuration = configuration
        self.demo = demo
        self.logger = logger
    }

    /// Runs until SIGTERM/SIGINT; playlists end with ENDLIST before the origin closes.
    public func run() async throws {
        let c = configuration
        let telemetry = telemetry
        // Every ingest's frames enter the hub through one publication path: recorded there once.
        let logger = logger
        let hub = StreamHub(
            maxStreams: c.security.maxStreams,
            onAir: c.effectiveOnAir,
            slateMaker: try c.slateMaker(logger: logger),
            onSwitch: { event in
                telemetry.countIngestSwitch(event)
                Self.log(event, to: logger)
            },
            onIngest: { telemetry.recordIngest($1, stream: $0) }
        )
        // Always there: with record.enabled off, a stream is recorded only when the admin API starts it.
        let recorder = Recorder(configuration: c.record, logger: logger)
        // Before anything serves: a listing asked for at start must already hold what a crash left on disk.
        recorder.recover()
        let onSegment: PackagedSegmentSink = { recorder.accept($0) }
        let onEnd: PackagedStreamEnd = { recorder.ended(key: $0, epoch: $1) }
        let cluster = try Self.makeCluster(c, hub: hub, logger: logger)
        let packager = LLHLSPackager(
            hub: hub,
            configuration: c.effectiveHLS,
            logger: logger,
            telemetry: telemetry,
            onSegment: onSegment,
            onEnd: onEnd,
            continuations: cluster?.continuations(configuration: c, logger: logger)
        )
        await cluster?.recordPositions(of: packager)
        let readiness = OriginReadiness()
        let ports = BoundPorts(
            bind: c.bind,
            demoKey: demo ? c.demoKey : nil,
            scheme: c.usesTLS ? "https" : "http",
            srtPort: c.srt.port == 0 ? nil : c.srt.port
        ) {
            readiness.markReady()
        }
        // One publish authorizer for every ingest protocol.
        let authorizer = PublishAuthorizer(configuration: c.security.publish)
        let transport = WebRTCTransportService(
            configuration: c.webrtcTransport,
            certificate: try DTLSCertificate(),
            logger: logger
        )
        // WHIP's Opus reaches WHEP viewers untouched through here (the hub carries the AAC made for HLS).
        let originalAudio = OriginalAudio()
        // WHEP viewers of a WHIP passthrough ask its publisher for keyframes (a PLI) through here.
        let keyframeRequests = KeyframeRequests()
        let whip = WHIPIngestService(
            transport: transport,
            hub: hub,
            telemetry: telemetry,
            configuration: c.whipIngest,
            originalAudio: originalAudio,
            keyframeRequests: keyframeRequests,
            logger: logger
        )
        // WHEP viewers share the WHIP port and follow HLS playback's viewer-token rule.
        let whep = WHEPEgressService(
            transport: transport,
            hub: hub,
            originalAudio: originalAudio,
            keyframeRequests: keyframeRequests,
            telemetry: telemetry,
            configuration: c.whepEgress,
            logger: logger
        )
        var originOptions = c.originOptions(readiness: readiness)
        cluster?.install(into: &originOptions, ports: .init(rtmp: c.rtmpPort, srt: c.srt.port == 0 ? nil : c.srt.port))
        let playerLibrary = c.servePlayerLibrary(into: &originOptions)
        logger.log(level: playerLibrary.level, "\(playerLibrary.message)")
        originOptions.routeGroups.append(
            WHIPOriginRoutes.group(whip: whip, authorize: { await authorizer.authorize($0) })
        )
        originOptions.routeGroups.append(
            RecorderOriginRoutes.group(
                recorder: recorder,
                admin: AdminAccess(token: c.adminToken),
                isLive: { key in StreamKey(key).map { hub.publication(for: $0) != nil } ?? false }
            )
        )
        originOptions.routeGroups.append(
            WHEPOriginRoutes.group(
                whep: whep,
                viewerSecret: c.security.origin.viewerSecret,
                owner: cluster?.owner(hub: hub)
            )
        )
        originOptions.routeGroups.append(WHEPOriginRoutes.reports(whep: whep))
        let origin = HTTPOriginService(
            packager: packager,
            host: c.bind,
            port: c.httpPort,
            logger: logger,
            options: originOptions
        ) { port in
            ports.set(http: port)
        }
        let ingest = RTMPIngestService(
            host: c.bind,
            port: c.rtmpPort,
            hub: hub,
            logger: logger,
            configuration: c.rtmp,
            onBound: { port in ports.set(rtmp: port) },
            authorizer: authorizer,
            telemetry: telemetry
        )
        // Shutdown runs in reverse: demo and ingest stop, the packager writes ENDLIST, then the origin drains.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: origin)]
        // After the origin: at shutdown it stops first, removing this node's entries while the origin still serves.
        if let cluster { services.append(.init(service: cluster.service(packager: packager))) }
        services.append(.init(service: RecorderService(recorder: recorder)))
        services += [
            .init(service: PackagerService(packager: packager)), .init(service: ingest),
            .init(service: WHIPGatewayService(whip: whip, whep: whep, logger: logger)),
        ]
        if c.srt.port != 0 {
            let srt = SRTIngestService(
                host: c.bind,
                configuration: c.srt,
                hub: hub,
                logger: logger,
                telemetry: telemetry,
                authorizer: authorizer
            )
            services.append(.init(service: srt))
        }
        if c.transcode {
            // Rung IDRs for a long-GOP source follow the packager's segment target, and its early first cut.
            var ladder = c.ladder
            ladder.segmentTarget = c.hls.segmentTarget
            ladder.firstSegment = c.effectiveHLS.firstSegment
            let transcoder = TranscoderService(
                hub: hub,
                configuration: ladder,
                logger: logger,
                telemetry: telemetry,
                onShed: { Self.list($0, in: packager) }
            )
            services.append(.init(service: TranscoderGatewayService(transcoder: transcoder)))
        }
        if demo, let key = StreamKey(c.demoKey) {
            services.append(
                .init(service: DemoService(hub: hub, key: key, logger: logger), successTerminationBehavior: .ignore)
            )
        }
        // Last, so it is the first told of shutdown: /readyz turns 503 while everything else drains.
        services.append(
            .init(
                service: ReadinessService(readiness: readiness, drainDelay: c.drainDelay),
                successTerminationBehavior: .ignore
            )
        )
        var groupConfig = ServiceGroupConfiguration(services: services, logger: logger)
        groupConfig.gracefulShutdownSignals = [.sigterm, .sigint]
        groupConfig.maximumGracefulShutdownDuration = .seconds(10)
        try await ServiceGroup(configuration: groupConfig).run()
        logger.info("sluice stopped")
    }
}

extension GatewayApp {
    /// A rung the ladder shed leaves the packager's multivariant and rendition reports; one fed again comes back;
    /// one behind the source holds no other rendition back.
    static func list(_ event: LadderShedEvent, in packager: LLHLSPackager) {
        switch event.step {
        case .leftOut: packager.stream(for: event.source)?.setListed(false, rung: event.rung)
        case .listedAgain: packager.stream(for: event.source)?.setListed(true, rung: event.rung)
        case .fellBehind: packager.stream(for: event.source)?.setKeepingUp(false, rung: event.rung)
        case .keepsUp: packager.stream(for: event.source)?.setKeepingUp(true, rung: event.rung)
        case .fasterPreset, .normalPreset: break
        }
    }
}

/// Collects the bound ports and prints the URLs a user needs once both are known.
final class BoundPorts: Sendable {
    private let state = Mutex<(rtmp: Int?, http: Int?)>((nil, nil))
    let bind: String
    let demoKey: String?
    let scheme: String
    let srtPort: Int?
    let onReady: @Sendable () -> Void

    init(
        bind: String,
        demoKey: String?,
        scheme: String = "http",
        srtPort: Int? = nil,
        onReady: @escaping @Sendable () -> Void = {}
    ) {
        self.bind = bind
        self.demoKey = demoKey
        self.scheme = scheme
        self.srtPort = srtPort
        self.onReady = onReady
    }

    func set(rtmp: Int) { update { $0.rtmp = rtmp } }
    func set(http: Int) { update { $0.http = http } }

    private func update(_ body: (inout (rtmp: Int?, http: Int?)) -> Void) {
        let ready = state.withLock { s -> (Int, Int)? in
            body(&s)
            guard let r = s.rtmp, let h = s.http else { return nil }
            return (r, h)
        }
        guard let (r, h) = ready else { return }
        onReady()
        let host = bind == "0.0.0.0" || bind == "::" ? "127.0.0.1" : bind
        var lines = [
            "Sluice is up: \(GatewayProtocols.summary).",
            "  OBS / FFmpeg server:  rtmp://\(host):\(r)/live   (stream key: any name, e.g. mystream)",
            "  WHIP (OBS 30+, web):  \(scheme)://\(host):\(h)/whip/<stream key>",
            "  Watch (LL-HLS):       \(scheme)://\(host):\(h)/live/<stream key>/index.m3u8",
            "  Watch (WebRTC, WHEP): \(scheme)://\(host):\(h)/whep/<stream key>",
            "  Pages:                \(scheme)://\(host):\(h)/  (streams), /watch/<stream key>, /publish, /dashboard",
        ]
        if let srtPort {
            lines.insert(
                "  SRT (OBS, encoders):  srt://\(host):\(srtPort)?streamid=#!::r=live/<stream key>,m=publish",
                at: 3
            )
        }
        if let k = demoKey {
            lines.append(
                "  Demo stream:          \(scheme)://\(host):\(h)/watch/\(k)  (\(scheme)://\(host):\(h)/live/\(k)/index.m3u8)"
            )
        }
        // Unbuffered so scripts and tests reading our stdout see the URLs at once.
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}

extension GatewayApp {
    /// One line per change of who is on a stream's air, saying from what to what and why.
    static func log(_ event: OnAirSwitchEvent, to logger: Logger) {
        switch event.kind {
        case .switched(let from, let to, let reason):
            logger.notice(
                "on air: \(from ?? "nothing") → \(to ?? "nothing")",
                metadata: [
                    "stream": "\(event.key)", "reason": "\(reason)", "switches": "\(event.switches)",
                ]
            )
        case .replaced(let role, let silent, let session):
            logger.warning(
                "publisher replaced: a new connection took the seat of one that had gone silent without closing",
                metadata: [
                    "stream": "\(event.key)", "role": "\(role.rawValue)", "replaced_session": "\(session)",
                    "silent_ms": "\(silent.milliseconds)",
                ]
            )
        case .heldOff(let role, let hold, let drops):
            logger.warning(
                "publisher flapping: held off air before it returns",
                metadata: [
                    "stream": "\(event.key)", "role": "\(role.rawValue)", "drops": "\(drops)",
                    "hold_ms": "\(hold.milliseconds)",
                ]
            )
        case .rebased(let role, let track, let from, let to, let offset):
            logger.warning(
                "publisher timestamps jumped: timeline rebased",
                metadata: [
                    "stream": "\(event.key)", "role": "\(role.rawValue)", "track": "\(track.rawValue)",
                    "from": "\(from.secondsText)", "to": "\(to.secondsText)",
                    "offset": "\(offset.secondsText)",
                ]
            )
        }
    }
}

extension GatewayTelemetry {
    /// Counts a change of who is on air (a flapping hold counts as `flapping`).
    func countIngestSwitch(_ event: OnAirSwitchEvent) {
        switch event.kind {
        case .switched(_, _, let reason): countIngestSwitch(stream: event.key, reason: reason)
        case .heldOff: countIngestSwitch(stream: event.key, reason: "flapping")
        case .rebased, .replaced: break
        }
    }
}

extension MediaTime {
    /// Seconds to the millisecond with their unit, for log metadata ("-19.967s").
    fileprivate var secondsText: String {
        let ms = converted(to: 1_000).value
        let fraction = String(abs(ms) % 1_000)
        return "\(ms < 0 ? "-" : "")\(abs(ms) / 1_000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)s"
    }
}
