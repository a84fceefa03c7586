import CodecFormats
import FFmpegBridge
import Foundation
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
    private let onShed: (@Sendable (LadderShedEvent) -> Void)?
    private let dropped = Atomic<Int>(0)
    private let shedMemory: ShedMemory?

    /// Subscribes to `source` at once (so no frame is missed); nil when it is not live.
    public convenience init?(
        hub: StreamHub,
        source: StreamKey,
        configuration: LadderConfiguration = LadderConfiguration(),
        logger: Logger = Logger(label: "sluice.transcoder"),
        telemetry: GatewayTelemetry? = nil,
        onShed: (@Sendable (LadderShedEvent) -> Void)? = nil
    ) {
        self.init(
            hub: hub,
            source: source,
            configuration: configuration,
            logger: logger,
            telemetry: telemetry,
            shedMemory: nil,
            onShed: onShed
        )
    }

    /// The same, with the shed steps of the stream's previous sessions (`TranscoderService` keeps them).
    init?(
        hub: StreamHub,
        source: StreamKey,
        configuration: LadderConfiguration,
        logger: Logger,
        telemetry: GatewayTelemetry?,
        shedMemory: ShedMemory?,
        onShed: (@Sendable (LadderShedEvent) -> Void)?
    ) {
        self.shedMemory = shedMemory
        guard let reader = hub.subscribe(key: source, name: "transcoder", capacity: configuration.readerCapacity) else {
            return nil
        }
        self.hub = hub
        self.source = source
        self.reader = reader
        self.configuration = configuration
        self.telemetry = telemetry
        self.onShed = onShed
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
                await offer(frame, &state)
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
        /// The ladder for `video` was planned (at its first keyframe, where x264 states its keyframe interval).
        var planned = false
        /// The source's keyframe cadence since the ladder was planned (the same frames the packager sees).
        var cadence: KeyframeCadence?
        /// The rung at the source's size, once the top rendition is transcoded.
        var sourceRung: PlannedRung?
    }

    /// Hands a source access unit to the decoder without ever waiting; after any loss, resumes at a keyframe.
    private func offer(_ frame: MediaFrame, _ state: inout RunState) async {
        if !state.planned {
            guard frame.isKeyframe, let video = state.video else { return }
            state.planned = true
            await plan(video, firstKeyframe: frame, &state)
        }
        let evidence = state.cadence?.observe(
            time: frame.dts.converted(to: 90_000).value,
            isKeyframe: frame.isKeyframe,
            data: frame.data
        )
        if let evidence, configuration.sourceRendition == .auto, state.sourceRung == nil, let video = state.video {
            await transcodeSourceRendition(video, because: evidence, &state)
        }
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

    /// Stops the ladder for new source video parameters; the next keyframe plans the new one.
    private func reconfigure(for video: VideoParameters?, _ state: inout RunState) async {
        guard !Self.sameStream(video, state.video) else { return }
        await state.pipeline?.finish()
        state.pipeline = nil
        state.video = video
        state.awaitingKeyframe = true
        state.planned = false
        state.cadence = nil
        var kept: Set<String> = []
        if let video {
            kept = Set(
                LadderPlan.plan(source: video, rungs: configuration.rungs, maxRungs: configuration.maxRungs).map(\.name)
            )
            kept.insert(LadderPlan.sourceRung(source: video, rungs: configuration.rungs).name)
        }
        for (name, publication) in state.publications where !kept.contains(name) {
            publication.end()
            state.publications[name] = nil
        }
        if state.sourceRung.map({ !kept.contains($0.name) }) ?? false { state.sourceRung = nil }
        // Claim the rung keys now, so their readers (the packager) subscribe before the first rung frame.
        guard let video else { return }
        var claimed = LadderPlan.plan(source: video, rungs: configuration.rungs, maxRungs: configuration.maxRungs)
        if configuration.sourceRendition == .transcode {
            claimed.append(LadderPlan.sourceRung(source: video, rungs: configuration.rungs))
        }
        for rung in claimed { _ = await publication(for: rung.name, in: &state) }
    }

    /// Plans and starts the ladder at the source's first keyframe: the lower rungs, plus a rung at the source's size
    /// when `transcode.source_rendition` asks for it or the encoder's settings show a keyframe interval above the target.
    private func plan(_ video: VideoParameters, firstKeyframe: MediaFrame, _ state: inout RunState) async {
        // A ladder started late (see transcodeSourceRendition) keeps the session's grid; the fan-out observes this
        // keyframe itself, so the look-ahead at its SEI works on a copy.
        let cadence =
            state.cadence
            ?? KeyframeCadence(
                target: KeyframeCadence.gridTarget(forSegmentTarget: configuration.segmentTarget),
                frameRate: video.frameRate,
                trustsEncoderSettings: !video.keyframesOnRequest,
                firstSegment: configuration.firstSegment?.applying(to: video)
            )
        state.cadence = cadence
        var lookahead = cadence
        let stated =
            lookahead.longGOP
            ?? lookahead.observe(
                time: firstKeyframe.dts.converted(to: 90_000).value,
                isKeyframe: true,
                data: firstKeyframe.data
            )
        var plan = LadderPlan.plan(source: video, rungs: configuration.rungs, maxRungs: configuration.maxRungs)
        let top = LadderPlan.sourceRung(source: video, rungs: configuration.rungs)
        var bridged: PlannedRung?
        switch configuration.sourceRendition {
        case .transcode:
            plan.insert(top, at: 0)
            logger.info("transcoding the top rendition at the source size (transcode.source_rendition: transcode)")
        case .auto:
            if state.sourceRung != nil {
                plan.insert(top, at: 0)
            } else if let stated {
                plan.insert(top, at: 0)
                logSourceRendition(top, because: stated)
            } else if lookahead.bridgesFirstKeyframeInterval, video.codec == .h264 {
                plan.insert(top, at: 0)
                bridged = top
                logger.info(
                    """
                    fast start: the top rendition is encoded at the source size until the source's second keyframe, \
                    then carries the source's own frames (transcode.fast_start)
                    """,
                    metadata: ["rung": "\(top.name)=\(top.width)x\(top.height)"]
                )
            } else if plan.isEmpty, video.codec == .hevc {
                // Browsers play no HEVC: a source too small for a lower rung still gets one H.264 rendition.
                plan.insert(top, at: 0)
                logger.info(
                    """
                    HEVC source without a lower rung: the top rendition is H.264 at the source size, for players \
                    without HEVC (browsers)
                    """,
                    metadata: ["rung": "\(top.name)=\(top.width)x\(top.height)"]
                )
            }
        case .passthrough:
            if let stated {
                logger.warning(
                    """
                    source keyframe interval exceeds the segment target; the passthrough stays the top rendition \
                    (transcode.source_rendition: passthrough), so its segments start without a keyframe
                    """,
                    metadata: ["evidence": "\(stated)"]
                )
            }
        }
        state.sourceRung = plan.first { $0 == top }
        guard !plan.isEmpty else {
            logger.info("no ladder for this source", metadata: ["size": "\(video.width)x\(video.height)"])
            return
        }
        var workers: [RungWorker] = []
        for rung in plan {
            let bridging = rung == bridged ? video : nil
            if let worker = await worker(for: rung, video, in: plan, &state, bridging: bridging) {
                workers.append(worker)
            }
        }
        let pipeline = LadderPipeline(
            source: video,
            rungs: workers,
            configuration: configuration,
            logger: logger,
            key: source,
            telemetry: telemetry,
            cadence: state.cadence,
            shedMemory: shedMemory,
            onShed: onShed
        )
        pipeline.start()
        state.pipeline = pipeline
        logger.info(
            "ladder started",
            metadata: [
                "source": "\(video.width)x\(video.height)",
                "rungs": "\(plan.map { "\($0.name)=\($0.width)x\($0.height)" })",
            ]
        )
    }

    /// A long GOP seen only after the ladder started (the encoder did not state its interval): the top rendition
    /// becomes a rung at the source's size from the next grid IDR on.
    private func transcodeSourceRendition(
        _ video: VideoParameters,
        because evidence: KeyframeCadence.Evidence,
        _ state: inout RunState
    ) async {
        let top = LadderPlan.sourceRung(source: video, rungs: configuration.rungs)
        state.sourceRung = top
        logSourceRendition(top, because: evidence)
        if let pipeline = state.pipeline {
            let all =
                [top] + LadderPlan.plan(source: video, rungs: configuration.rungs, maxRungs: configuration.maxRungs)
            if let worker = await worker(for: top, video, in: all, &state) { pipeline.add(worker) }
        } else {
            // No lower rung fits this source: the ladder starts at the next keyframe with the source rung alone.
            state.planned = false
        }
    }

    private func logSourceRendition(_ top: PlannedRung, because evidence: KeyframeCadence.Evidence) {
        let target = KeyframeCadence.Evidence.format(
            KeyframeCadence.gridTarget(forSegmentTarget: configuration.segmentTarget).secondsDouble
        )
        logger.warning(
            """
            source keyframe interval exceeds the segment target: the top rendition is transcoded at the source size \
            with an IDR at every segment target instead of passing the source through (transcode.source_rendition: \
            auto; a 1-2 s keyframe interval in the encoder avoids this cost)
            """,
            metadata: [
                "evidence": "\(evidence)", "rung": "\(top.name)=\(top.width)x\(top.height)",
                "video_kbps": "\(top.videoBitRate.bitsPerSecond / 1000)", "segment_target_s": "\(target)",
            ]
        )
    }

    /// A rung's worker with its publication and meter (nil if the derived key could not be claimed).
    private func worker(
        for rung: PlannedRung,
        _ video: VideoParameters,
        in ladder: [PlannedRung],
        _ state: inout RunState,
        bridging source: VideoParameters? = nil
    ) async -> RungWorker? {
        guard let publication = await publication(for: rung.name, in: &state) else { return nil }
        let meter = meters.withLock { m in
            let meter = m[rung.name] ?? RungMeter(name: rung.name, width: rung.width, height: rung.height)
            m[rung.name] = meter
            return meter
        }
        meter.update {
            $0.width = rung.width
            $0.height = rung.height
        }
        let threads = LadderPlan.encoderThreads(
            for: rung,
            in: ladder,
            cores: ProcessInfo.processInfo.activeProcessorCount,
            configured: configuration.encoderThreads
        )
        return RungWorker(
            rung: rung,
            frameRate: video.frameRate,
            publication: publication,
            meter: meter,
            configuration: configuration,
            threads: threads,
            logger: logger,
            telemetry: telemetry,
            bridging: source
        )
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
