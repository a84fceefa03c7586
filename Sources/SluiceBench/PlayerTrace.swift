/// What the bench player page (Pages/bench-player.html) posted: every presented frame with the capture clock read
/// from its pixels, and every player event. Times are wall-clock milliseconds since the Unix epoch.
struct PlayerTrace: Sendable, Equatable, Codable {
    /// One `requestVideoFrameCallback`: a frame the browser presented.
    struct Frame: Sendable, Equatable, Codable {
        /// 1 started with the publisher, 2 joined the running stream.
        var viewer: Int
        /// The capture clock painted into the picture; nil when it could not be read.
        var capture: Double?
        /// When the browser expected to show it (`performance.timeOrigin + expectedDisplayTime`).
        var shown: Double
        /// When the page's callback ran for it (kept in the trace file to check `shown` against).
        var callback: Double?
        /// Picture height, i.e. the rendition presented.
        var height: Int
        /// The browser's count of presented frames so far (gaps are frames shown without a callback).
        var presented: Int
    }

    /// A player event: `start`, `stop`, `waiting`, `playing`, `levelSwitched`, `error`, `fatal`, `pageError`, ...
    struct Event: Sendable, Equatable, Codable {
        /// 0 for the page itself.
        var viewer: Int
        var at: Double
        var type: String
        var detail: String?
    }

    /// One POST to `/report`.
    struct Batch: Sendable, Codable {
        var frames: [Frame]
        var events: [Event]
        /// The page's last batch, after `stop`.
        var final: Bool
    }

    var frames: [Frame] = []
    var events: [Event] = []
    /// Set once the final batch arrived.
    var complete = false

    /// When the publisher started (ms since the epoch), set by the bench for the trace file.
    var publishStart: Double?

    /// Adds one batch.
    mutating func add(_ batch: Batch) {
        frames += batch.frames
        events += batch.events
        complete = complete || batch.final
    }
}

/// The figures of one real-player run, from its trace: glass per presented frame, first frames, stalls,
/// rendition switches and every error counted.
struct PlayerFigures: Sendable, Equatable {
    /// Picture made (clock in the pixels) → frame presented, for viewer 1's frames whose clock was read.
    var glass: LatencyPercentiles?
    /// Frames viewer 1 presented, and how many of them carried no readable clock.
    var presented = 0
    var unreadable = 0
    /// Frames the browser presented without calling back (not read at all).
    var missed = 0
    /// Publisher start → viewer 1's first presented frame.
    var publishToFirstFrameMs: Double?
    /// Viewer 2 start (a running stream) → its first presented frame.
    var joinToFirstFrameMs: Double?
    /// Picture made → presented for viewer 2's frames after its first whose clock was read: the joining viewer's glass.
    var joinGlass: LatencyPercentiles?
    /// `waiting` events of viewer 1 after its first frame, and their summed length (until `playing` or the next frame).
    var stalls = 0
    var stalledMs = 0.0
    /// Changes of the presented picture height (viewer 1).
    var renditionSwitches = 0
    /// Heights presented by viewer 1, in first-seen order.
    var heights: [Int] = []
    /// hls.js level (media playlist) load errors and timeouts, fatal errors (the page restarts the player), and all
    /// errors of any kind, over both viewers and the page.
    var levelLoadErrors = 0
    var fatalErrors = 0
    var errors = 0
    /// Errors of viewer 1 before its first frame (a stream not up yet answers 404; the page retries).
    var startupErrors = 0
    /// The first error messages, for reading.
    var errorSamples: [String] = []

    /// Errors at or after the publisher stopped (the stream is gone: playlists answer 503 or 404); counted here
    /// and in `errors`, not in the other counts. Stalls after the publisher stopped are not stalls.
    var afterEndErrors = 0

    /// The figures of `trace` for a publisher that ran from `publishStart` to `publishEnd` (ms since the epoch).
    init(_ trace: PlayerTrace, publishStart: Double, publishEnd: Double = .infinity) {
        let main = trace.frames.filter { $0.viewer == 1 }
        presented = main.count
        unreadable = main.filter { $0.capture == nil }.count
        glass = LatencyPercentiles(
            samples: main.compactMap { f in f.capture.map { Duration.milliseconds(f.shown - $0) } }
        )
        missed = zip(main, main.dropFirst()).reduce(0) { $0 + max(0, $1.1.presented - $1.0.presented - 1) }
        let firstShown = main.map(\.shown).min()
        publishToFirstFrameMs = firstShown.map { $0 - publishStart }
        let joiner = trace.frames.filter { $0.viewer == 2 }
        if let first = joiner.map(\.shown).min() {
            if let joined = trace.events.first(where: { $0.viewer == 2 && $0.type == "start" }) {
                joinToFirstFrameMs = first - joined.at
            }
            // The first frame is the join figure's (shown as playback starts); glass is what it shows while playing.
            joinGlass = LatencyPercentiles(
                samples: joiner.filter { $0.shown > first }.compactMap { f in
                    f.capture.map { Duration.milliseconds(f.shown - $0) }
                }
            )
        }
        for (a, b) in zip(main, main.dropFirst()) where a.height != b.height { renditionSwitches += 1 }
        for f in main where !heights.contains(f.height) { heights.append(f.height) }
        if let firstShown {
            let waits = trace.events.filter {
                $0.viewer == 1 && $0.type == "waiting" && $0.at > firstShown && $0.at < publishEnd
            }
            stalls = waits.count
            for w in waits {
                let resumed = trace.events.first { $0.viewer == 1 && $0.type == "playing" && $0.at >= w.at }?.at
                let nextFrame = main.first { $0.shown > w.at }?.shown
                if let end = [resumed, nextFrame].compactMap({ $0 }).min() { stalledMs += end - w.at }
            }
        }
        let allErrors = trace.events.filter { ["error", "fatal", "pageError"].contains($0.type) }
        errors = allErrors.count
        afterEndErrors = allErrors.filter { $0.at >= publishEnd }.count
        let errorEvents = allErrors.filter { $0.at < publishEnd }
        fatalErrors = errorEvents.filter { $0.type == "fatal" }.count
        levelLoadErrors =
            errorEvents.filter { e in
                e.detail.map { $0.contains("levelLoadError") || $0.contains("levelLoadTimeOut") } ?? false
            }.count
        startupErrors = errorEvents.filter { $0.viewer == 1 && $0.at < (firstShown ?? .infinity) }.count
        errorSamples = allErrors.prefix(10).map { "viewer \($0.viewer) \($0.type): \($0.detail ?? "")" }
    }
}
