import Logging
import MediaCore
import Synchronization
import Telemetry
import WebRTCWire

/// Adaptive bit rate over WebRTC from one ingest: a viewer whose receiver estimate (REMB) cannot carry its rendition
/// steps down onto a lower ladder rung at that rung's next keyframe, and back up when the estimate allows
/// (`WHEPBandwidthAdaptation` decides, `WHEPJoinSwitch` keeps one SSRC, sequence space and RTP clock across it).
extension WHEPEgressService {
    /// Ladder rungs below choice `chosen` a receiver of its profile decodes (Annex A.2), highest first.
    static func lowerRenditions(_ choices: [VideoChoice], below chosen: Int) -> [WHEPVideoSource] {
        guard chosen < choices.count else { return [] }
        let own = choices[chosen].profile
        return choices[(chosen + 1)...].compactMap { choice in
            guard case .rendition(let key) = choice.source, key.renditionName != nil, own.receives(choice.profile)
            else { return nil }
            return choice.source
        }
    }

    /// One REMB from `viewer` of `feed`, in bits per second.
    func adapt(_ viewer: WHEPViewer, feed: WHEPStreamFeed, estimate: Double, now: ContinuousClock.Instant = .now) {
        guard !viewer.lowerRenditions.isEmpty, viewer.phase == .playing else { return }
        let phase = viewer.timelinePhase
        // A join or a switch under way finishes first.
        guard phase == nil || phase == .switched || phase == .onRung else { return }
        let lower = phase == .onRung ? viewer.lowerRendition : nil
        let sent = (lower ?? feed).videoBitRate(now: now)
        let own = feed.videoBitRate(now: now)
        let action = viewer.adaptation { a in
            a.estimate(estimate, now: now, sent: sent, own: own, onLower: lower != nil, canStepDown: lower == nil)
        }
        // Built only for a move: REMBs come about once a second per viewer and most change nothing.
        func log(_ message: Logger.Message, _ extra: Logger.Metadata) {
            let base: Logger.Metadata = [
                "stream": "\(viewer.key)", "session": "\(viewer.id)", "estimate_kbps": "\(Int(estimate / 1000))",
                "sent_kbps": "\(sent.map { Int($0 / 1000) } ?? 0)",
            ]
            logger.info(message, metadata: base.merging(extra) { $1 })
        }
        switch action {
        case .stay:
            return
        case .stepUp:
            guard viewer.stepUp() else { return }
            log(
                "WHEP viewer steps back up at its rendition's next keyframe",
                ["to": "\(feed.videoSource)", "own_kbps": "\(own.map { Int($0 / 1000) } ?? 0)"]
            )
            feed.requestKeyframe(now: now)
        case .stepDown(let estimate):
            let rates = viewer.lowerRenditions.map { (rung: $0, bitRate: bitRate(of: $0, key: viewer.key, now: now)) }
            guard let target = viewer.adaptation({ $0.target(among: rates, estimate: estimate) }),
                let rung = try? self.feed(key: viewer.key, source: target)
            else { return }
            let stepping = viewer.stepDown(
                onto: rung,
                timestampShift: feed.videoTimestampOffset &- rung.videoTimestampOffset,
                ssrc: feed.videoSSRC,
                ownPosition: feed.videoPosition,
                historyCapacity: configuration.videoHistoryPackets
            ) { [weak self] viewer, rung in
                if rung.removeBridged(viewer) { self?.release(rung) }
            }
            guard stepping else {
                release(rung)
                return
            }
            rung.addBridged(viewer)
            let targetRate = rates.first { $0.rung == target }?.bitRate
            log(
                "WHEP viewer steps down at the lower rendition's next keyframe",
                [
                    "from": "\(feed.videoSource)", "to": "\(target)",
                    "to_kbps": "\(targetRate.map { Int($0 / 1000) } ?? 0)",
                ]
            )
        }
    }

    /// A rung's video bit rate: its WHEP feed's when one runs, else what the packager published of it.
    private func bitRate(of source: WHEPVideoSource, key: StreamKey, now: ContinuousClock.Instant) -> Double? {
        let running = state.withLock { $0.feeds[Self.feedName(key: key, source: source)] }
        if let rate = running?.videoBitRate(now: now) { return rate }
        guard case .rendition(let rendition) = source else { return nil }
        return telemetry?.bitRate(stream: rendition, rendition: rendition.renditionName ?? "video", now: now)
    }
}
