import Foundation
import LLHLSPackager
import Logging
import MediaCore
import Synchronization

/// Keeps what the packager completes as HLS VOD on disk (`{directory}/{key}/{id}/`): the same CMAF bytes the live
/// playlists serve, an EVENT playlist per rendition while the stream runs (finished as VOD with ENDLIST when it
/// ends), and the live multivariant. The packager only hands segments over (`accept`); `run()` writes them.
///
/// A `kill -9` loses at most the segment in flight: segments are written before the playlists that list them, and
/// playlists are replaced atomically; at start, recordings a crash left as EVENT are finished (`recover`).
public final class Recorder: Sendable {
    /// What the packager handed over.
    enum Item: Sendable {
        case segment(PackagedSegment)
        case end(key: StreamKey, epoch: String)
    }

    public let configuration: RecorderConfiguration
    private let logger: Logger
    private let stream: AsyncStream<Item>
    private let continuation: AsyncStream<Item>.Continuation
    /// Every recording by key and id: the listing's index (built once at start, kept current by the writes).
    private let index = Mutex<[String: [String: RecordingSummary]]>([:])
    private let dropped = Atomic<Int>(0)

    /// A recorder writing under `configuration.directory`.
    public init(configuration: RecorderConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        (stream, continuation) = AsyncStream.makeStream(
            of: Item.self,
            bufferingPolicy: .bufferingOldest(configuration.queueCapacity)
        )
    }

    /// Segments lost because the disk fell behind (each one logged).
    public var droppedSegments: Int { dropped.load(ordering: .relaxed) }

    /// Takes a completed segment from the packager (never blocks it).
    public func accept(_ segment: PackagedSegment) {
        guard configuration.records(segment.rendition) else { return }
        if case .dropped = continuation.yield(.segment(segment)) {
            dropped.add(1, ordering: .relaxed)
            logger.error(
                "recording queue full: segment not recorded",
                metadata: ["stream": "\(segment.key)", "rendition": "\(segment.rendition)", "msn": "\(segment.msn)"]
            )
        }
    }

    /// Takes the end of a stream life (its recording is finished as VOD).
    public func ended(key: StreamKey, epoch: String) { continuation.yield(.end(key: key, epoch: epoch)) }

    /// Finishes what a crash left open, then writes until `stop()`; open recordings are finished on the way out.
    public func run() async {
        recover()
        var writers: [String: RecordingWriter] = [:]
        for await item in stream {
            switch item {
            case .segment(let s):
                let slot = "\(s.key)/\(s.epoch)"
                var w =
                    writers[slot]
                    ?? RecordingWriter(
                        key: "\(s.key)",
                        id: RecordingWriter.id(started: s.programDateTime, epoch: s.epoch),
                        started: s.programDateTime
                    )
                let writes = w.add(s) { RecordingWriter.filter(multivariant: $0, keeping: configuration.records) }
                perform(writes, key: "\(s.key)", id: w.id)
                writers[slot] = w
                publish(w.summary)
                enforceRetention(writing: Set(writers.values.map { "\($0.summary.key)/\($0.id)" }))
            case .end(let key, let epoch):
                guard var w = writers.removeValue(forKey: "\(key)/\(epoch)") else { continue }
                perform(w.finish(), key: "\(key)", id: w.id)
                publish(w.summary)
                logger.info(
                    "recording finished",
                    metadata: [
                        "stream": "\(key)", "recording": "\(w.id)", "seconds": "\(w.summary.duration.secondsDouble)",
                    ]
                )
            }
        }
        for var w in writers.values {
            perform(w.finish(), key: w.summary.key, id: w.id)
            publish(w.summary)
        }
    }

    /// Ends `run()` after the queued segments are written.
    public func stop() { continuation.finish() }

    /// Recordings, oldest first, of `key` (or every key) whose first sample lies in `from...to`.
    public func recordings(key: String? = nil, from: WallTime? = nil, to: WallTime? = nil) -> [RecordingSummary] {
        index.withLock { all in
            let picked = key.map { all[$0].map { Array($0.values) } ?? [] } ?? all.values.flatMap(\.values)
            return picked.filter { r in
                (from.map { r.started >= $0 } ?? true) && (to.map { r.started <= $0 } ?? true)
            }.sorted { ($0.started, $0.key, $0.id) < ($1.started, $1.key, $1.id) }
        }
    }

    /// A file of a recording (`index.m3u8`, `video.m3u8`, `video/12.m4s`, `video/init-1.mp4`) and whether the
    /// recording is finished (its files then never change).
    public func file(key: String, id: String, path: String) throws(RecorderError) -> (bytes: [UInt8], finished: Bool) {
        _ = try RecordingName.checked(key)
        _ = try RecordingName.checked(id)
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard (1...2).contains(parts.count) else { throw .invalidName(path) }
        for p in parts { _ = try RecordingName.checked(p) }
        guard let summary = index.withLock({ $0[key]?[id] }) else { throw .notFound("\(key)/\(id)") }
        let url = directory(key: key, id: id).appendingPathComponent(path)
        guard let data = FileManager.default.contents(atPath: url.path) else { throw .notFound("\(key)/\(id)/\(path)") }
        return (Array(data), summary.finished)
    }

    private func directory(key: String, id: String) -> URL {
        URL(fileURLWithPath: configuration.directory).appendingPathComponent(key).appendingPathComponent(id)
    }

    private func publish(_ s: RecordingSummary) { index.withLock { $0[s.key, default: [:]][s.id] = s } }

    /// A recording removed by retention.
    func forget(_ s: RecordingSummary) { _ = index.withLock { $0[s.key]?.removeValue(forKey: s.id) } }

    func logRemoved(_ r: RecordingSummary, reason: String) {
        logger.notice(
            "recording removed",
            metadata: ["stream": "\(r.key)", "recording": "\(r.id)", "bytes": "\(r.bytes)", "reason": "\(reason)"]
        )
    }

    /// A recording found on disk at start.
    func indexRecovered(_ s: RecordingSummary) { publish(s) }

    func logFinishedAfterCrash(_ count: Int) {
        logger.warning(
            "recordings left unfinished by a crash were finished as VOD",
            metadata: ["playlists": "\(count)", "dir": "\(configuration.directory)"]
        )
    }

    /// Writes files of a recording; a failure is logged and the recording goes on (the next write may succeed).
    private func perform(_ writes: [RecordingWriter.FileWrite], key: String, id: String) {
        let dir = directory(key: key, id: id)
        for w in writes {
            let url = dir.appendingPathComponent(w.path)
            do {
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(),
                    withIntermediateDirectories: true
                )
                try Data(w.bytes).write(to: url, options: w.atomic ? .atomic : [])
            } catch {
                logger.error(
                    "recording write failed",
                    metadata: ["stream": "\(key)", "recording": "\(id)", "file": "\(w.path)", "error": "\(error)"]
                )
            }
        }
    }
}
