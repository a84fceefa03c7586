import CodecFormats
import Logging
import MediaCore
import Telemetry

/// Carries out the `LoadShedder`'s steps on the decoder thread: presets, which rungs get pictures, and telling the
/// log, the metrics and the packager (through `onShed`).
extension LadderPipeline {
    /// How the shedder weighs a rung: by its pixels; a rung at the source's size is the top rendition.
    func shedRung(_ worker: RungWorker) -> ShedRung {
        let top = LadderPlan.sourceRung(source: source, rungs: configuration.rungs)
        return ShedRung(
            name: worker.rung.name,
            pixels: worker.rung.width * worker.rung.height,
            isTop: worker.rung.width == top.width && worker.rung.height == top.height
        )
    }

    /// Measures the queues, asks the shedder, and carries out its steps.
    func shed(
        _ rungs: [RungWorker],
        _ fanOut: inout LadderFanOut,
        _ shedder: inout LoadShedder,
        _ gauge: inout LadderLoadGauge,
        now: ContinuousClock.Instant
    ) {
        var load = LadderLoad()
        let decoder = gauge.behind(
            "",
            depth: queue.count,
            capacity: queue.capacity,
            refusedTotal: queue.refused,
            now: now
        )
        load.decoderBehind = decoder.behind
        var calm = decoder.low
        var states: [String: QueueState] = [:]
        for (i, rung) in rungs.enumerated() where !fanOut.isDisabled(rung: i) {
            let state = gauge.behind(
                rung.rung.name,
                depth: rung.queue.count,
                capacity: rung.queue.capacity,
                refusedTotal: rung.queue.refused,
                skipping: fanOut.isSkipping(rung: i),
                now: now
            )
            if state.behind { load.behind.append(rung.rung.name) }
            states[rung.rung.name] = state
            calm = calm && state.low
        }
        load.calm = calm
        // The packager stops waiting for a rung (or all, when the decoder lags) as soon as it lags, and waits again
        // once it has drained.
        for (i, rung) in rungs.enumerated() {
            let name = rung.rung.name
            let fed = !fanOut.isDisabled(rung: i)
            let behind = fed && (states[name]?.lagging == true || decoder.lagging)
            let keepsUp = !fed || (states[name]?.drained == true && decoder.drained)
            if behind, gauge.flagBehind(name) {
                onShed?(LadderShedEvent(source: key, rung: name, step: .fellBehind, reason: "queue behind"))
            } else if keepsUp, gauge.clearBehind(name) {
                onShed?(LadderShedEvent(source: key, rung: name, step: .keepsUp, reason: "queue low"))
            }
        }
        let steps = shedder.observe(load, now: now)
        for (action, cause) in steps {
            carryOut(action, because: describe(cause, rungs), rungs, &fanOut, shedder)
        }
        if !steps.isEmpty { shedMemory?.store(shedder.memory, for: key, now: now) }
    }

    /// Carries out the steps a new ladder inherited from the stream's previous session, before its first picture.
    func resume(_ shedder: LoadShedder, _ rungs: [RungWorker], _ fanOut: inout LadderFanOut) {
        for step in shedder.inForce {
            carryOut(step, because: "kept from the stream's previous session", rungs, &fanOut, shedder)
        }
    }

    /// The ladder stops: every rung shed is listed again (a next session's ladder sheds them again at its start if it
    /// inherits the steps, see `ShedMemory`).
    func relist(_ shedder: LoadShedder) {
        for rung in shedder.dropped.sorted() {
            report(rung, .listedAgain, level: 0, note: nil, reason: "the ladder stopped")
        }
    }

    private func carryOut(
        _ action: ShedAction,
        because reason: String,
        _ rungs: [RungWorker],
        _ fanOut: inout LadderFanOut,
        _ shedder: LoadShedder
    ) {
        let index = { (name: String) in rungs.firstIndex { $0.rung.name == name } }
        switch action {
        case .fasterPreset(let name, let preset), .normalPreset(let name, let preset):
            guard let i = index(name) else { return }
            rungs[i].queue.offer(.preset(preset), force: true)
            let normal = configuration.preset
            let faster = preset != normal
            if faster {
                warn(
                    "ladder sheds load: a rung switches to a faster x264 preset at its next IDR",
                    rung: name,
                    reason: reason,
                    ["preset": "\(preset)", "from_preset": "\(normal)"]
                )
            } else {
                warn(
                    "ladder load fell: a rung returns to its x264 preset at its next IDR",
                    rung: name,
                    reason: reason,
                    ["preset": "\(preset)"]
                )
            }
            report(
                name,
                faster ? .fasterPreset(preset) : .normalPreset(preset),
                level: faster ? 1 : 0,
                note: faster
                    ? "rung \(name) encodes with x264 \(preset) instead of \(normal) (load shed: \(reason))" : nil,
                reason: reason
            )
        case .drop(let name):
            guard let i = index(name) else { return }
            fanOut.setEnabled(false, rung: i)
            warn(
                """
                ladder sheds load: a rung is no longer encoded and leaves the multivariant; players on it switch to \
                another rendition (its media playlist answers 404)
                """,
                rung: name,
                reason: reason
            )
            report(
                name,
                .leftOut,
                level: 2,
                note: "rung \(name) is left out of the multivariant and not encoded (load shed: \(reason))",
                reason: reason
            )
        case .restore(let name):
            guard let i = index(name) else { return }
            fanOut.setEnabled(true, rung: i)
            warn(
                "ladder load fell: a rung is encoded again from the next IDR and rejoins the multivariant",
                rung: name,
                reason: reason
            )
            let fast = shedder.modes[name] == .fast
            report(
                name,
                .listedAgain,
                level: fast ? 1 : 0,
                note: fast
                    ? "rung \(name) encodes with x264 \(configuration.shedding.fastPreset ?? "") (load shed)" : nil,
                reason: reason
            )
        case .exhausted:
            logger.warning(
                "ladder still behind with nothing left to shed: every rung is shed, the top rendition is never",
                metadata: ["reason": "\(reason)"]
            )
        }
    }

    private func warn(_ message: Logger.Message, rung: String, reason: String, _ extra: Logger.Metadata = [:]) {
        logger.warning(message, metadata: extra.merging(["rung": "\(rung)", "reason": "\(reason)"]) { $1 })
    }

    private func report(_ rung: String, _ step: LadderShedEvent.Step, level: Int, note: String?, reason: String) {
        let event = LadderShedEvent(source: key, rung: rung, step: step, reason: reason)
        telemetry?.0.recordShedStep(stream: key, rung: rung, step: event.stepName, level: level, note: note)
        onShed?(event)
    }

    /// The cause in words, with the queue and real-time factor that show it.
    private func describe(_ cause: ShedCause, _ rungs: [RungWorker]) -> String {
        switch cause {
        case .behind(let name?, let d):
            guard let rung = rungs.first(where: { $0.rung.name == name }) else { return "rung \(name) behind" }
            let rtf = rung.meter.snapshot.realTimeFactor(frameRate: source.frameRate)
            return "rung \(name) behind for \(seconds(d)) s (queue \(rung.queue.count)/\(rung.queue.capacity), "
                + "\(rung.queue.refused) pictures refused so far; real-time factor \(RungLoadMonitor.format(rtf)))"
        case .behind(nil, let d):
            return "decoder behind for \(seconds(d)) s (queue \(queue.count)/\(queue.capacity), "
                + "\(queue.refused) access units refused so far)"
        case .calm(let d):
            return "every queue low for \(seconds(d)) s"
        }
    }

    private func seconds(_ d: Duration) -> String { KeyframeCadence.Evidence.format(d.secondsDouble) }
}
