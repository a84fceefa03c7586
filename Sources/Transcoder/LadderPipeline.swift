import CodecFormats
import Dispatch
import FFmpegBridge
import Foundation
import Logging
import MediaCore
import StreamHub
import Synchronization
import Telemetry

/// One ladder for one set of source parameters: a decoder thread fanning pictures out to one thread per rung.
final class LadderPipeline: Sendable {
    /// What the hub reader hands the decoder thread.
    enum Input: Sendable {
        /// A source video access unit (AVCC).
        case accessUnit(MediaFrame)
        /// A rung joining the running ladder (the source rendition of a long-GOP source); it starts at the next IDR.
        case addRung(RungWorker)
        /// Drain decoder and encoders, then stop.
        case finish
    }

    /// The decoder's inbox; the hub reader offers and never waits.
    let queue: WorkQueue<Input>
    /// The rungs the ladder started with (`add(_:)` hands the decoder thread more).
    let rungs: [RungWorker]
    let source: VideoParameters
    let logger: Logger
    private let group = DispatchGroup()
    private let decodeErrors = Atomic<Int>(0)
    /// Where decode latencies go, and the source stream they belong to.
    let telemetry: (GatewayTelemetry, StreamKey)?
    /// The ladder's x264 preset and load-shedding policy.
    let configuration: LadderConfiguration
    /// Told of every load-shedding step (the app lists and unlists rungs in the packager).
    let onShed: (@Sendable (LadderShedEvent) -> Void)?
    /// The source stream's key.
    let key: StreamKey
    /// The source's keyframe cadence as the ladder starts (from the session's first keyframe): IDRs follow it.
    private let cadence: KeyframeCadence?
    /// Shed steps kept across this stream's publisher sessions.
    let shedMemory: ShedMemory?

    init(
        source: VideoParameters,
        rungs: [RungWorker],
        configuration: LadderConfiguration,
        logger: Logger,
        key: StreamKey,
        telemetry: GatewayTelemetry? = nil,
        cadence: KeyframeCadence? = nil,
        shedMemory: ShedMemory? = nil,
        onShed: (@Sendable (LadderShedEvent) -> Void)? = nil
    ) {
        self.shedMemory = shedMemory
        self.key = key
        self.configuration = configuration
        self.onShed = onShed
        self.cadence = cadence
        self.telemetry = telemetry.map { ($0, key) }
        self.source = source
        self.rungs = rungs
        self.logger = logger
        queue = WorkQueue(capacity: configuration.decoderQueueCapacity)
    }

    /// Access units the decoder rejected.
    var decodeErrorCount: Int { decodeErrors.load(ordering: .relaxed) }

    /// Starts the rung threads and the decoder thread.
    func start() {
        for rung in rungs { rung.start(in: group) }
        group.enter()
        let thread = Thread { [self] in
            decodeLoop()
            group.leave()
        }
        thread.name = "ladder-decode"
        thread.start()
    }

    /// Starts `rung`'s thread and hands it to the decoder thread, which feeds it from the next IDR on.
    func add(_ rung: RungWorker) {
        rung.start(in: group)
        queue.offer(.addRung(rung), force: true)
    }

    /// Asks every thread to drain and waits until all have stopped (their last frames are published).
    func finish() async {
        queue.offer(.finish, force: true)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            group.notify(queue: .global()) { done.resume() }
        }
    }

    private func decodeLoop() {
        var rungs = self.rungs
        var fanOut = LadderFanOut(rungCount: rungs.count, cadence: cadence)
        var monitor = RungLoadMonitor()
        var shedder = LoadShedder(
            rungs: rungs.map(shedRung),
            normalPreset: configuration.preset,
            policy: configuration.shedding,
            remembering: shedMemory?.recall(key, within: configuration.shedding.maxRecovery)
        )
        resume(shedder, rungs, &fanOut)
        var gauge = LadderLoadGauge(memory: configuration.shedding.patience)
        var idle = false
        // Opened at the first access unit (a keyframe): its slices decide how the decoder uses the cores.
        var decoder: VideoDecoder?
        var opened = false
        // The fast-start bridge rung's handover to the source's frames (none when no rung bridges).
        // A keyframe within half a frame of the early cut is at the cut (the cadence's own rule).
        let earlyCut = (configuration.firstSegment?.lengthTicks ?? 0) - (cadence?.halfFrame ?? 0)
        var bridge = rungs.contains { $0.bridgedSource != nil } ? FirstKeyframeIntervalBridge(earlyCut: earlyCut) : nil
        while true {
            switch queue.take() {
            case .accessUnit(let unit):
                let asTheyCome = bridge?.note(unit) ?? []
                defer { sendSource(asTheyCome, to: rungs, &bridge) }
                if !opened {
                    opened = true
                    decoder = openDecoder(firstAccessUnit: unit)
                }
                guard let decoder else { continue }
                // Every rung shed: decoding feeds nobody; it resumes at a keyframe once a rung comes back.
                if !rungs.indices.contains(where: { !fanOut.isDisabled(rung: $0) }) {
                    idle = true
                } else if idle {
                    idle = !unit.isKeyframe
                }
                if !idle {
                    fanOut.note(unit)
                    do {
                        dispatch(try decoder.decode(unit), to: rungs, &fanOut, &monitor, &bridge)
                    } catch {
                        decodeErrors.add(1, ordering: .relaxed)
                        logger.debug("ladder decode error", metadata: ["error": "\(error)"])
                    }
                }
                shed(rungs, &fanOut, &shedder, &gauge, now: .now)
            case .addRung(let rung):
                rungs.append(rung)
                fanOut.addRung()
                shedder.add(shedRung(rung))
            case .finish:
                if let decoder, let rest = try? decoder.flush() {
                    dispatch(rest, to: rungs, &fanOut, &monitor, &bridge)
                }
                if let rest = bridge?.drain() { sendSource(rest, to: rungs, &bridge) }
                for rung in rungs { rung.queue.offer(.finish, force: true) }
                relist(shedder)
                return
            }
        }
    }

    /// The source decoder, threaded for this source and machine (see `DecoderThreading.choose`).
    private func openDecoder(firstAccessUnit unit: MediaFrame) -> VideoDecoder? {
        // Slices are counted for H.264 only; HEVC/AV1 count as one and get frame threads.
        let slices =
            source.codec == .h264
            ? (try? H264.nalUnits(avcc: unit.data).filter { (1...5).contains(H264.nalType($0)) }.count) ?? 1 : 1
        let threading = DecoderThreading.choose(
            slicesPerPicture: slices,
            width: source.width,
            height: source.height,
            frameRate: source.frameRate,
            cores: ProcessInfo.processInfo.activeProcessorCount,
            encoders: rungs.count
        )
        do {
            let decoder = try VideoDecoder(video: source, threading: threading)
            logger.info("ladder decoder opened", metadata: ["threads": "\(threading)", "slices": "\(slices)"])
            return decoder
        } catch {
            logger.error("ladder decoder failed to open", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// `picture` with the source's capture clock as UDU side data when its decoder did not export one (AV1: libdav1d
    /// exports no T.35 of ours; ingest read the clock from the metadata OBU), so every rung's x264 writes the SEI.
    static func carryingCaptureClock(_ picture: DecodedPicture, _ capture: WallTime?) -> DecodedPicture {
        guard let capture,
            !picture.userDataUnregistered.contains(where: { CaptureTimeSEI.captureTime(inPayload: $0) != nil })
        else { return picture }
        return (try? picture.addingUserData(CaptureTimeSEI.payload(capture: capture))) ?? picture
    }

    /// Hands source frames to the bridge rung after its handover; a refused one makes it skip to the next keyframe.
    private func sendSource(
        _ frames: [MediaFrame],
        to rungs: [RungWorker],
        _ bridge: inout FirstKeyframeIntervalBridge?
    ) {
        guard !frames.isEmpty, let rung = rungs.first(where: { $0.handsOver.load(ordering: .relaxed) }) else { return }
        for frame in frames where !rung.queue.offer(.source(frame)) {
            bridge?.refused()
            rung.meter.update { $0.picturesDropped += 1 }
            logger.warning("fast start: the top rendition's queue is full; it resumes at the next source keyframe")
            return
        }
    }

    /// Hands each picture to every rung that keeps up; a rung that overflowed waits for the next source keyframe.
    private func dispatch(
        _ pictures: [DecodedPicture],
        to rungs: [RungWorker],
        _ fanOut: inout LadderFanOut,
        _ monitor: inout RungLoadMonitor,
        _ bridge: inout FirstKeyframeIntervalBridge?
    ) {
        for decoded in pictures {
            var (forceIDR, stamps) = fanOut.take(decoded.pts.value)
            // Past the handover the bridge rung takes the source's frames, released once the decoder passed it.
            let bridgeTakes = bridge?.picture(at: decoded.pts.converted(to: 90_000).value)
            if let release = bridgeTakes?.release { sendSource(release, to: rungs, &bridge) }
            let picture = Self.carryingCaptureClock(decoded, stamps.capture)
            // Decode hop: the access unit left ingest → its picture left the decoder.
            stamps.decoded = .now
            if let (t, key) = telemetry {
                t.record(.decode, from: stamps.ingested, to: stamps.decoded, stream: key, rendition: "video")
            }
            for (i, rung) in rungs.enumerated() where !fanOut.isDisabled(rung: i) {
                if rung.handsOver.load(ordering: .relaxed), bridgeTakes?.encode == false {
                    continue
                }
                guard fanOut.accepts(rung: i, forceIDR: forceIDR),
                    rung.queue.offer(.picture(picture, forceIDR: forceIDR, stamps: stamps))
                else {
                    fanOut.dropped(rung: i)
                    rung.meter.update { $0.picturesDropped += 1 }
                    if let (t, key) = telemetry {
                        t.countDropped(stream: key, rendition: rung.rung.name, reader: "encoder")
                    }
                    continue
                }
            }
        }
        let now = ContinuousClock.now
        for (i, rung) in rungs.enumerated() where !fanOut.isDisabled(rung: i) {
            monitor.check(rung, frameRate: source.frameRate, now: now, logger: logger)
        }
    }
}
