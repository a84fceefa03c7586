import CodecFormats
import HTTPClient
import LLHLSPackager
import Logging
import MPEGTS
import MediaCore
import NIOCore

/// The network side both viewers share: a playlist connection and a media connection (as a browser keeps
/// them apart), playlist loading, init-segment tracking, and downloads turned into recorded frames.
actor ViewerSession {
    private let playlistFetcher: HTTPConnection
    private let mediaFetcher: HTTPConnection
    /// When the run ends.
    nonisolated let deadline: ContinuousClock.Instant
    /// When the publisher stops, if known: a blocking reload answered 503 after it means the stream ended.
    nonisolated let publisherEnds: ContinuousClock.Instant?
    /// Set once a blocking reload was answered 503 after the publisher stopped.
    private(set) var streamEnded = false
    private let logger: Logger
    private var recorder: ViewerRecorder
    private var mapURL: HTTPLocation?
    private var reader: FMP4SampleReader?
    private var inits = 0
    private var receivedAny = false

    init(
        origin: HTTPLocation,
        group: any EventLoopGroup,
        deadline: ContinuousClock.Instant,
        publisherEnds: ContinuousClock.Instant? = nil,
        logger: Logger,
        recorder: ViewerRecorder
    ) {
        playlistFetcher = HTTPConnection(origin: origin, userAgent: "sluice-bench", group: group)
        mediaFetcher = HTTPConnection(origin: origin, userAgent: "sluice-bench", group: group)
        self.deadline = deadline
        self.publisherEnds = publisherEnds
        self.logger = logger
        self.recorder = recorder
    }

    /// Closes both connections.
    func close() async {
        await playlistFetcher.close()
        await mediaFetcher.close()
    }

    /// Records an error.
    func error(_ message: String) { recorder.error(message) }

    /// The report so far.
    func report(joinedAt: WallTime, startPosition: Duration?) -> ViewerReport {
        recorder.report(joinedAt: joinedAt, startPosition: startPosition)
    }

    /// GETs `url`; nil (error recorded unless the deadline passed) on failure or a status other than 200.
    /// While waiting for the stream to appear, failures are expected: noted here, reported only if it never does.
    private var waitingError: String?

    func get(
        _ url: HTTPLocation,
        media: Bool,
        timeout: Duration = .seconds(10),
        blockingReload: Bool = false
    ) async -> HTTPClientResponse? {
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { return nil }
        recorder.requests += 1
        do {
            let result = try await (media ? mediaFetcher : playlistFetcher).get(
                url.target,
                timeout: min(timeout, remaining)
            )
            guard result.status == 200 else {
                if blockingReload, result.status == 503, let ends = publisherEnds, ContinuousClock.now >= ends {
                    // The gateway times out a reload for a part that will never come: the end, not a failure.
                    streamEnded = true
                    logger.debug("stream ended", metadata: ["url": "\(url)"])
                    return nil
                }
                failed(BenchError.httpStatus(url: url.description, status: result.status).description)
                return nil
            }
            return result
        } catch {
            if ContinuousClock.now < deadline { failed(error.description) }
            return nil
        }
    }

    /// Records a failure, or keeps it aside while still waiting for the first playlist.
    private func failed(_ message: String) {
        if waiting {
            waitingError = message
        } else {
            recorder.error(message)
        }
    }

    /// True until the first media playlist was usable.
    private var waiting = true

    /// Loads `entry` until it (or, for a multivariant playlist, its first variant) satisfies `ready`; retries every
    /// 100 ms while the stream is not up yet (404/503) until the deadline.
    func mediaPlaylist(
        from entry: HTTPLocation,
        until ready: @Sendable (ReadPlaylist) -> Bool
    ) async -> (HTTPLocation, ReadPlaylist)? {
        var url = entry
        while ContinuousClock.now < deadline {
            if let playlist = await playlist(at: url) {
                if playlist.isMultivariant, let variant = playlist.variants.first {
                    do { url = try url.resolved(variant.uri) } catch { recorder.error(error.description) }
                    continue
                }
                if ready(playlist) {
                    waiting = false
                    return (url, playlist)
                }
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        waiting = false
        recorder.error("no usable playlist at \(entry) before the deadline (last: \(waitingError ?? "not ready"))")
        return nil
    }

    /// Loads and parses one playlist (`blockingReload`: one with `_HLS_msn`); nil on failure (after a short pause so
    /// retries do not spin) or once the stream ended.
    func playlist(
        at url: HTTPLocation,
        timeout: Duration = .seconds(10),
        blockingReload: Bool = false
    ) async -> ReadPlaylist? {
        guard let result = await get(url, media: false, timeout: timeout, blockingReload: blockingReload) else {
            if !streamEnded, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(100)) }
            return nil
        }
        do {
            return try ReadPlaylist(parsing: String(decoding: result.body, as: UTF8.self), url: url.description)
        } catch {
            failed(error.description)
            return nil
        }
    }

    /// Downloads the init segment named by EXT-X-MAP when it changed; false when it could not be had.
    private func ensureInit(_ map: String?, base: HTTPLocation) async -> Bool {
        guard let map else { return reader != nil }
        let url: HTTPLocation
        do { url = try base.resolved(map) } catch {
            recorder.error(error.description)
            return false
        }
        if url == mapURL, reader != nil { return true }
        guard let result = await get(url, media: true) else { return false }
        do {
            reader = try FMP4SampleReader(initSegment: result.body)
            mapURL = url
            inits += 1
            recorder.save(
                "\(MediaFileName.initSection(inits))",
                kind: "init",
                bytes: result.body,
                arrival: result.completedWall,
                captures: []
            )
            return true
        } catch {
            recorder.error("init \(url): \(error)")
            return false
        }
    }

    /// Downloads one fMP4 part or segment and records its frames; returns their timeline positions.
    func downloadFMP4(
        uri: String,
        name: String,
        kind: String,
        segment: ReadPlaylist.Segment,
        startsSegment: Bool,
        base: HTTPLocation
    ) async -> [Duration] {
        guard await ensureInit(segment.map, base: base), let reader else { return [] }
        let url: HTTPLocation
        do { url = try base.resolved(uri) } catch {
            recorder.error(error.description)
            return []
        }
        guard let result = await get(url, media: true) else { return [] }
        let samples: [FMP4ReadSample]
        do { samples = try reader.samples(in: result.body) } catch {
            recorder.error("\(url): \(error)")
            return []
        }
        let frames = samples.map { (pts: $0.pts, capture: CaptureTimeSEI.captureTime(inAVCC: $0.data)) }
        return record(
            frames,
            discontinuity: segment.discontinuity && startsSegment,
            name: name,
            kind: kind,
            result: result
        )
    }

    /// Downloads one MPEG-TS segment and records its frames; returns their timeline positions.
    func downloadTS(uri: String, name: String, segment: ReadPlaylist.Segment, base: HTTPLocation) async -> [Duration] {
        let url: HTTPLocation
        do { url = try base.resolved(uri) } catch {
            recorder.error(error.description)
            return []
        }
        guard let result = await get(url, media: true) else { return [] }
        let units = MPEGTSDemuxer.accessUnits(in: result.body).filter { $0.stream.streamType == .h264 }
        if units.isEmpty { recorder.error("\(url): no H.264 access unit in the transport stream") }
        let frames = units.map { (pts: $0.pts, capture: CaptureTimeSEI.captureTime(inAnnexB: $0.data)) }
        return record(frames, discontinuity: segment.discontinuity, name: name, kind: "segment", result: result)
    }

    /// Records frames received in `result`, saving the file when asked.
    private func record(
        _ frames: [(pts: MediaTime, capture: WallTime?)],
        discontinuity: Bool,
        name: String,
        kind: String,
        result: HTTPClientResponse
    ) -> [Duration] {
        if discontinuity && receivedAny { recorder.discontinuity() }
        receivedAny = true
        recorder.save(
            name,
            kind: kind,
            bytes: result.body,
            arrival: result.completedWall,
            captures: frames.map(\.capture)
        )
        return recorder.add(frames: frames, available: result.completedWall)
    }
}

extension ViewerSession {
    /// Downloads one LL-HLS part.
    func download(part: ReadPlaylist.Part, segment: ReadPlaylist.Segment, base: HTTPLocation) async -> [Duration] {
        await downloadFMP4(
            uri: part.uri,
            name: "\(MediaFileName.part(part.msn, part.index))",
            kind: "part",
            segment: segment,
            startsSegment: part.index == 0,
            base: base
        )
    }
}
