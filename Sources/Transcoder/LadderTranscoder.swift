import FFmpegBridge
import Logging
import MediaCore
import StreamHub
import Synchronization
import Telemetry

/// Transcodes one source stream into its ladder: decode once, scale + encode every rung in parallel, publish each
/// rung under `source.rendition(name)` with IDRs at exactly the source's keyframe times.
public final class LadderTranscoder: Sendable {
    /// The source stream's key.
    public let source: StreamKey
    private let hub: StreamHub
    private let reader: StreamReader
    private let configuration: LadderConfiguration
    private let logger: Logger
    private let telemetry: GatewayTelemetry?
    private let meters = Mutex<[String: RungMeter]>([:])
    private let dropped = Atomic<Int>(0)

    /// Subscribes to `source` at once (so no frame is missed); nil when it is not live.
    public init?(
        hub: StreamHub, source: StreamKey, configuration: LadderConfiguration = LadderConfiguration(),
        logger: Logger = Logger(label: "sluice.transcoder"), telemetry: GatewayTelemetry? = nil
    ) {
        guard let reader = hub.subscribe(key: source, name: "transcoder", capacity: configuration.readerCapacity) else {
            return nil
        }
        self.hub = hub
        self.source = source
        self.reader = reader
        self.configuration = configuration
        self.telemetry = telemetry
        var logger = logger
        logger[metadataKey: "stream"] = "\(source)"
        self.logger = logger
    }

    /// Per-rung counters and encode speed, highest rung first.
    public var statistics: [RungStatistics] {
        meters.withLock { $0.values.map(\.snapshot) }.sorted { $0.height > $1.height }
    }

    /// Source access units dropped before decoding (decoder behind, or the hub reader overflowed).
    public var droppedAccessUnits: Int { dropped.load(ordering: .relaxed) }

    /// Runs until the source ends (or the task is cancelled), then ends every rung publication.
    public func run() async {
        var state = RunState()
        defer { for p in state.publications.values { p.end() } }
        while let event = await reader.next() {
            switch event {
            case .description(let description):
                await reconfigure(for: description.video, &state)
            case .frame(let frame) where frame.kind == .video:
                offer(frame, &state)
            case .frame:
                continue  // Audio passes through from the source stream.
            case .ended:
                await state.pipeline?.finish()
                state.pipeline = nil
                return
            }
        }
        await state.pipeline?.finish()
        state.pipeline = nil
    }

    /// What the hub-reading loop owns.
    private struct RunState {
        var video: VideoParameters?
        var pipeline: LadderPipeline?
        var publications: [String: Publication] = [:]
        var awaitingKeyframe = true
    }

    /// Hands a source access unit to the decoder without ever waiting; after any loss, resumes at a keyframe.
    private func offer(_ frame: MediaFrame, _ state: inout RunState) {
        guard let pipeline = state.pipeline else { return }
        if reader.takeDropFlag() { state.awaitingKeyframe = true }
        if state.awaitingKeyframe && !frame.isKeyframe {
            dropped.add(1, ordering: .relaxed)
            telemetry?.countDropped(stream: source, rendition: "video", reader: "transcoder")
            return
        }
        if pipeline.queue.offer(.accessUnit(frame)) {
            state.awaitingKeyframe = false
        } else {
            dropped.add(1, ordering: .relaxed)
            telemetry?.countDropped(stream: source, rendition: "video", reader: "transcoder")
            state.awaitingKeyframe = true
        }
    }

    /// Restarts the ladder for new source video parameters (or stops it when video went away).
    private func reconfigure(for video: VideoParameters?, _ state: inout RunState) async {
        guard !Self.sameStream(video, state.video) else { return }
        await state.pipeline?.finish()
        state.pipeline = nil
        state.video = video
        state.awaitingKeyframe = true
        let plan =
            video.map {
                LadderPlan.plan(source: $0, rungs: configuration.rungs, maxRungs: configuration.maxRungs)
            } ?? []
        for (name, publication) in state.publications where !plan.contains(where: { $0.name == name }) {
            publication.end()
            state.publications[name] = nil
        }
        guard let video, !plan.isEmpty else {
            logger.info(
                "no ladder for this source", metadata: ["size": "\(video.map { "\($0.width)x\($0.height)" } ?? "none")"]
            )
            return
        }
        var workers: [RungWorker] = []
        for rung in plan {
            guard let publication = await publication(for: rung.name, in: &state) else { continue }
            let meter = meters.withLock { m in
                let meter = m[rung.name] ?? RungMeter(name: rung.name, width: rung.width, height: rung.height)
                m[rung.name] = meter
                return meter
            }
            meter.update {
                $0.width = rung.width
                $0.height = rung.height
            }
            workers.append(
                RungWorker(
                    rung: rung, frameRate: video.frameRate, publication: publication, meter: meter,
                    configuration: configuration, logger: logger, telemetry: telemetry))
        }
        let pipeline = LadderPipeline(
            source: video, rungs: workers, configuration: configuration, logger: logger,
            telemetry: telemetry.map { ($0, self.source) })
        pipeline.start()
        state.pipeline = pipeline
        logger.info(
            "ladder started",
            metadata: [
                "source": "\(video.width)x\(video.height)",
                "rungs": "\(plan.map { "\($0.name)=\($0.width)x\($0.height)" })",
            ])
    }

    /// The rung's publication, claiming the derived key on first use (retrying while a previous session lets go).
    private func publication(for name: String, in state: inout RunState) async -> Publication? {
        if let existing = state.publications[name] { return existing }
        let key = source.rendition(name)
        for attempt in 0..<30 {
            do {
                let publication = try hub.publish(key: key, origin: "transcoder:\(source)", role: .derived)
                state.publications[name] = publication
                return publication
            } catch {
                if attempt == 29 {
                    logger.error("rung key unavailable", metadata: ["key": "\(key)", "error": "\(error)"])
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        return nil
    }

    /// True when two video descriptions decode identically (frame-rate-only or audio-only updates keep the ladder).
    static func sameStream(_ a: VideoParameters?, _ b: VideoParameters?) -> Bool {
        a?.decoderConfiguration == b?.decoderConfiguration && a?.width == b?.width && a?.height == b?.height
    }
}
