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
        case segment(PackagedSegment, recording: String)
        case finish(key: String, id: String)
    }

    public let configuration: RecorderConfiguration
    private let logger: Logger
    private let stream: AsyncStream<Item>
    private let continuation: AsyncStream<Item>.Continuation
    /// Every recording by key and id: the listing's index (built once at start, kept current by the writes).
    private let index = Mutex(RecordingIndex())
    private let dropped = Atomic<Int>(0)
    /// Which stream is recorded into which recording (`record.enabled` and the API's start/stop).
    private let control: Mutex<RecordingControl>

    /// A recorder writing under `configuration.directory`.
    public init(configuration: RecorderConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        control = Mutex(RecordingControl(automatic: configuration.enabled))
        (stream, continuation) = AsyncStream.makeStream(
            of: Item.self,
            bufferingPolicy: .bufferingOldest(configuration.queueCapacity)
        )
    }

    /// Segments lost because the disk fell behind (each one logged).
    public var droppedSegments: Int { dropped.load(ordering: .relaxed) }

    /// Takes a completed segment from the packager (never blocks it); recorded when its stream is being recorded.
    public func accept(_ segment: PackagedSegment) {
        guard configuration.records(segment) else { return }
        control.withLock { c in
            let d = c.segment(
                key: "\(segment.key)",
                epoch: segment.epoch,
                rendition: segment.rendition,
                msn: segment.msn
            ) { RecordingWriter.id(started: segment.programDateTime, epoch: segment.epoch) }
            if d.afterEnd {
                logger.error(
                    "segment arrived after its stream ended: not recorded",
                    metadata: [
                        "stream": "\(segment.key)", "rendition": "\(segment.rendition)", "msn": "\(segment.msn)",
                    ]
                )
            }
            if let id = d.recording, case .dropped = continuation.yield(.segment(segment, recording: id)) {
                dropped.add(1, ordering: .relaxed)
                logger.error(
                    "recording queue full: segment not recorded",
                    metadata: [
                        "stream": "\(segment.key)", "rendition": "\(segment.rendition)", "msn": "\(segment.msn)",
                    ]
                )
            }
            for id in d.finish { continuation.yield(.finish(key: "\(segment.key)", id: id)) }
        }
    }

    /// Takes the end of a stream life (its recordings are finished as VOD).
    public func ended(key: StreamKey, epoch: String) {
        control.withLock { c in
            guard c.streams["\(key)"]?.epoch == epoch else { return }
            for id in c.ended(key: "\(key)") { continuation.yield(.finish(key: "\(key)", id: id)) }
        }
    }

    /// `POST /api/streams/{key}/recording` start: records `key` from its next segment; the recording's id.
    /// `publishing`: the hub has the stream live (it may not have completed a segment yet).
    public func start(key: String, publishing: Bool, now: WallTime = .now()) throws(RecorderError) -> String {
        _ = try RecordingName.checked(key)
        return try control.withLock { c throws(RecorderError) in
            let epoch = c.streams[key]?.epoch ?? "api"
            let base = RecordingWriter.id(started: now, epoch: epoch)
            var id = base
            var n = 1
            while index.withLock({ $0.summary(key: key, id: id) != nil })
                || c.streams[key]?.closing.contains(where: { $0.id == id }) == true
            {
                n += 1
                id = "\(base)-\(n)"
            }
            let started = try c.start(key: key, publishing: publishing, id: id)
            logger.info("recording started", metadata: ["stream": "\(key)", "recording": "\(started)", "by": "api"])
            return started
        }
    }

    /// `POST /api/streams/{key}/recording` stop: the stopped recording's id (it finishes once every rendition
    /// has written its last segment).
    public func stop(key: String, publishing: Bool) throws(RecorderError) -> String {
        _ = try RecordingName.checked(key)
        return try control.withLock { c throws(RecorderError) in
            let (id, finish) = try c.stop(key: key, publishing: publishing)
            for done in finish { continuation.yield(.finish(key: key, id: done)) }
            logger.info("recording stopped", metadata: ["stream": "\(key)", "recording": "\(id)", "by": "api"])
            return id
        }
    }

    /// The recording `key` is being written into now, if any.
    public func currentRecording(of key: String) -> String? { control.withLock { $0.current(key) } }

    /// Every stream being recorded now, with its recording's id.
    public var recordingNow: [String: String] {
        control.withLock { c in c.streams.compactMapValues { $0.current?.id } }
    }

    /// Writes until `stop()`; open recordings are finished on the way out (`recover()` ran before, at start).
    public func run() async {
        var writers: [String: RecordingWriter] = [:]
        for await item in stream {
            switch item {
            case .segment(let s, let id):
                let slot = "\(s.key)/\(id)"
                var w = writers[slot] ?? RecordingWriter(key: "\(s.key)", id: id, started: s.programDateTime)
                let writes = w.add(s) { text in
                    RecordingWriter.filter(multivariant: text) {
                        configuration.records($0, sourceRendition: s.sourceRendition)
                    }
                }
                perform(writes, key: "\(s.key)", id: w.id)
                writers[slot] = w
                publish(w.summary)
                enforceRetention(writing: Set(writers.values.map { "\($0.summary.key)/\($0.id)" }))
            case .finish(let key, let id):
                guard var w = writers.removeValue(forKey: "\(key)/\(id)") else { continue }
                perform(w.finish(), key: key, id: w.id)
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
        index.withLock { $0.all(key: key) }.filter { r in
            (from.map { r.started >= $0 } ?? true) && (to.map { r.started <= $0 } ?? true)
        }
    }

    /// `GET /api/recordings` as a JSON array, oldest first, from rows rendered when each recording changed: those of
    /// `key` (or every key) starting in `from...to`, after the recording `after` (`key/id`), at most `limit`; and the
    /// cursor of the next page (nil on the last).
    public func listing(
        key: String? = nil,
        from: WallTime? = nil,
        to: WallTime? = nil,
        after: String? = nil,
        limit: Int? = nil
    ) -> (json: [UInt8], next: String?) {
        let (rows, more) = index.withLock { ix in
            let cursor = after.flatMap { a -> RecordingIndex.Position? in
                let parts = a.split(separator: "/", maxSplits: 1).map(String.init)
                return parts.count == 2 ? ix.position(key: parts[0], id: parts[1]) : nil
            }
            return ix.page(key: key, from: from, to: to, after: cursor, limit: limit)
        }
        var out: [UInt8] = []
        out.reserveCapacity(rows.reduce(2) { $0 + $1.utf8.count + 1 })
        out.append(UInt8(ascii: "["))
        for (i, row) in rows.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: row.utf8)
        }
        out.append(UInt8(ascii: "]"))
        let next = more ? rows.last.flatMap(Self.cursor(ofRow:)) : nil
        return (out, next)
    }

    /// `key/id` of a listed row.
    static func cursor(ofRow row: String) -> String? {
        func field(_ name: String) -> Substring? {
            guard let r = row.range(of: "\"\(name)\":\"") else { return nil }
            return row[r.upperBound...].prefix { $0 != "\"" }
        }
        guard let key = field("key"), let id = field("id") else { return nil }
        return "\(key)/\(id)"
    }

    /// Number of recordings and their bytes on disk.
    public var usage: (recordings: Int, bytes: Int) { index.withLock { ($0.count, $0.totalBytes) } }

    /// A file of a recording (`index.m3u8`, `video.m3u8`, `video/12.m4s`, `video/init-1.mp4`) and whether the
    /// recording is finished (its files then never change).
    public func file(key: String, id: String, path: String) throws(RecorderError) -> (bytes: [UInt8], finished: Bool) {
        _ = try RecordingName.checked(key)
        _ = try RecordingName.checked(id)
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard (1...2).contains(parts.count) else { throw .invalidName(path) }
        for p in parts { _ = try RecordingName.checked(p) }
        guard let summary = index.withLock({ $0.summary(key: key, id: id) }) else { throw .notFound("\(key)/\(id)") }
        let url = directory(key: key, id: id).appendingPathComponent(path)
        guard let data = FileManager.default.contents(atPath: url.path) else { throw .notFound("\(key)/\(id)/\(path)") }
        return (Array(data), summary.finished)
    }

    private func directory(key: String, id: String) -> URL {
        URL(fileURLWithPath: configuration.directory).appendingPathComponent(key).appendingPathComponent(id)
    }

    private func publish(_ s: RecordingSummary) { index.withLock { $0.put(s) } }

    /// A recording removed by retention.
    func forget(_ s: RecordingSummary) { index.withLock { $0.remove(s) } }

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
