import Logging

/// Watches each rung's input queue from the decoder thread and says so, once, when a rung falls behind: its queue
/// above half its capacity for `patience` (it then drops pictures until the next IDR), and again when it has stayed
/// below a quarter of that bound as long.
struct RungLoadMonitor {
    /// How long a queue may stay above the bound before it counts as falling behind.
    static let patience: Duration = .seconds(3)

    private var overSince: [String: ContinuousClock.Instant] = [:]
    private var underSince: [String: ContinuousClock.Instant] = [:]
    private var behind: Set<String> = []

    /// Checks `rung` after a picture was offered to it; logs a transition (behind / caught up).
    mutating func check(_ rung: RungWorker, frameRate: Double?, now: ContinuousClock.Instant, logger: Logger) {
        let name = rung.rung.name
        let depth = rung.queue.count
        let bound = rung.queue.capacity / 2
        if depth > bound {
            underSince[name] = nil
            let since = overSince[name] ?? now
            overSince[name] = since
            guard now - since >= Self.patience, behind.insert(name).inserted else { return }
            let s = rung.meter.snapshot
            logger.warning(
                "ladder rung falls behind the source: its encoder needs more time than the video lasts",
                metadata: [
                    "rung": "\(name)", "real_time_factor": "\(Self.format(s.realTimeFactor(frameRate: frameRate)))",
                    "queue": "\(depth)/\(rung.queue.capacity)", "pictures_dropped": "\(s.picturesDropped)",
                ]
            )
        } else if depth <= bound / 4 {
            overSince[name] = nil
            // Recovered only after as long below a quarter of the bound: a rung skipping to its next IDR empties
            // its queue for a moment without keeping up.
            let since = underSince[name] ?? now
            underSince[name] = since
            if now - since >= Self.patience, behind.remove(name) != nil {
                logger.info("ladder rung keeps up again", metadata: ["rung": "\(name)"])
            }
        }
    }

    /// Two decimals, for log lines.
    static func format(_ v: Double) -> String {
        let hundredths = Int((v * 100).rounded())
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
    }
}
