import Foundation
import Logging
import MediaCore

/// What a viewer received, shared by both viewers: frames on a continuous timeline, errors, requests, and
/// (when asked) every received file plus a JSON-lines manifest written to disk for independent checking.
struct ViewerRecorder {
    /// A frame as received, before the player model runs.
    struct Received {
        var capture: WallTime
        var input: PlayerModel.Input
    }

    private(set) var received: [Received] = []
    private(set) var errors: [String] = []
    var requests = 0
    private let saveDirectory: String?
    private let logger: Logger
    private var runStart: MediaTime?
    private var runOffset = Duration.zero
    private var lastPosition: Duration?
    private var spacing = Duration.milliseconds(33)
    private var framesWithoutClock = 0

    /// A recorder; creates `saveDirectory` when given.
    init(saveDirectory: String?, logger: Logger) throws(BenchError) {
        self.saveDirectory = saveDirectory
        self.logger = logger
        if let saveDirectory {
            do {
                try FileManager.default.createDirectory(atPath: saveDirectory, withIntermediateDirectories: true)
            } catch {
                throw .writeFailed(path: saveDirectory, reason: "\(error)")
            }
        }
    }

    /// Notes an error (logged once here, reported at the end).
    mutating func error(_ message: String) {
        logger.warning("viewer error", metadata: ["error": "\(message)"])
        errors.append(message)
    }

    /// The next frames start a new timeline (EXT-X-DISCONTINUITY): they continue right after the last one.
    mutating func discontinuity() {
        runStart = nil
        runOffset = (lastPosition ?? .zero) + spacing
    }

    /// Records the frames of one received file (pts in decode order, capture when the SEI had one); returns their
    /// timeline positions.
    @discardableResult
    mutating func add(frames: [(pts: MediaTime, capture: WallTime?)], available: WallTime) -> [Duration] {
        var positions: [Duration] = []
        for frame in frames {
            let start = runStart ?? frame.pts
            runStart = start
            let position = runOffset + (frame.pts - start).duration
            if let last = lastPosition, position > last, position - last < .seconds(1) { spacing = position - last }
            lastPosition = max(lastPosition ?? position, position)
            positions.append(position)
            guard let capture = frame.capture else {
                framesWithoutClock += 1
                if framesWithoutClock == 1 { error("a video frame without a capture-time SEI (pts \(frame.pts))") }
                continue
            }
            received.append(
                Received(capture: capture, input: PlayerModel.Input(position: position, available: available))
            )
        }
        return positions
    }

    /// Writes `bytes` as `name` plus a manifest line, when saving.
    mutating func save(_ name: String, kind: String, bytes: [UInt8], arrival: WallTime, captures: [WallTime?]) {
        guard let saveDirectory else { return }
        let path = saveDirectory + "/" + name
        let clocks = captures.map { $0.map { String($0.nanosecondsSince1970) } ?? "null" }.joined(separator: ",")
        let line =
            "{\"file\":\"\(name)\",\"kind\":\"\(kind)\",\"arrival_ns\":\(arrival.nanosecondsSince1970),"
            + "\"captures_ns\":[\(clocks)]}\n"
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let manifest = URL(fileURLWithPath: saveDirectory + "/manifest.jsonl")
            if let handle = try? FileHandle(forWritingTo: manifest) {
                defer { try? handle.close() }
                try handle.seekToEnd()
                try handle.write(contentsOf: Data(line.utf8))
            } else {
                try Data(line.utf8).write(to: manifest)
            }
        } catch {
            self.error(BenchError.writeFailed(path: path, reason: "\(error)").description)
        }
    }

    /// The report: the player model run over every frame, starting at `startPosition`.
    func report(joinedAt: WallTime, startPosition: Duration?) -> ViewerReport {
        let schedule = PlayerModel.schedule(
            received.map(\.input),
            startPosition: startPosition ?? .seconds(Int64.max / 2)
        )
        let order = received.indices.sorted { received[$0].input.position < received[$1].input.position }
        let frames = order.map { i in
            ViewerFrame(
                capture: received[i].capture,
                available: received[i].input.available,
                displayed: schedule.displayed[i]
            )
        }
        return ViewerReport(
            frames: frames,
            joinedAt: joinedAt,
            firstFrameAt: frames.compactMap(\.displayed).min(),
            stalls: schedule.stalls,
            requests: requests,
            errors: errors
        )
    }
}
