import HTTPClient
import MediaCore
import Synchronization

/// One LL-HLS viewer as hls.js behaves in low-latency mode: a blocking reload for the next part, then that part.
struct LoadViewer: Sendable {
    private static let counter = Atomic<Int>(0)

    let id: Int
    let playlist: HTTPLocation
    let fetcher: HTTPConnection
    let clock: PublicationClock
    let stats: LoadStatistics
    /// False: a static anchor, fetched every `pace` without blocking.
    let live: Bool
    let pace: Duration

    init(
        playlist: HTTPLocation,
        fetcher: HTTPConnection,
        clock: PublicationClock,
        stats: LoadStatistics,
        live: Bool,
        pace: Duration,
        id: Int? = nil
    ) {
        // A player's audio follower shares its video follower's id: one viewer, two playlists.
        self.id = id ?? LoadViewer.counter.wrappingAdd(1, ordering: .relaxed).oldValue
        self.playlist = playlist
        self.fetcher = fetcher
        self.clock = clock
        self.stats = stats
        self.live = live
        self.pace = pace
    }

    /// Follows the stream until `deadline`; errors are counted, then the viewer starts over from a plain reload.
    func run(until deadline: ContinuousClock.Instant) async {
        while ContinuousClock.now < deadline {
            do {
                try await (live ? follow(until: deadline) : poll(until: deadline))
            } catch {
                // A request that failed or timed out: a miss in the percentiles, never dropped. A non-200 answer was
                // counted as a request when it came; a transport error or timeout is counted here.
                if case BenchError.httpStatus = error {} else { stats.request(ok: false) }
                stats.miss(at: .now)
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        await fetcher.close()
    }

    private func follow(until deadline: ContinuousClock.Instant) async throws {
        let first = try await get(playlist.target)
        guard first.status == 200 else { throw BenchError.httpStatus(url: "\(playlist)", status: first.status) }
        let start = LoadGeneratorPlaylist(first.body, from: .init(msn: Int.max, part: 0))
        guard var next = start.hint else { return }
        while ContinuousClock.now < deadline {
            let r = try await get(playlist.target + "?_HLS_msn=\(next.msn)&_HLS_part=\(next.part)")
            guard r.status == 200 else { throw BenchError.httpStatus(url: "\(playlist)", status: r.status) }
            let listed = LoadGeneratorPlaylist(r.body, from: next)
            for p in listed.parts { clock.announce(p.position, at: r.firstByte) }
            for p in listed.parts {
                let part = try await get(try playlist.resolved(p.uri).target, discardBody: true)
                guard part.status == 200 else { throw BenchError.httpStatus(url: p.uri, status: part.status) }
                let published = clock.stated(by: part) ?? clock.published(p.position)
                stats.part(viewer: id, receipt: part.completed, published: published)
            }
            if listed.ended { return }
            next =
                listed.hint ?? listed.parts.last.map { .init(msn: $0.position.msn, part: $0.position.part + 1) } ?? next
        }
    }

    /// The static anchor: the playlist and its newest part every `pace`, timed from the playlist request.
    private func poll(until deadline: ContinuousClock.Instant) async throws {
        var tick = ContinuousClock.now
        while ContinuousClock.now < deadline {
            let r = try await get(playlist.target)
            guard r.status == 200 else { throw BenchError.httpStatus(url: "\(playlist)", status: r.status) }
            let listed = LoadGeneratorPlaylist(r.body, from: .init(msn: 0, part: 0))
            guard let last = listed.parts.last else { return }
            let part = try await get(try playlist.resolved(last.uri).target, discardBody: true)
            stats.part(viewer: id, receipt: part.completed, published: r.sent)
            tick += pace
            try await Task.sleep(until: max(tick, ContinuousClock.now), clock: .continuous)
        }
    }

    private func get(_ target: String, discardBody: Bool = false) async throws -> HTTPClientResponse {
        let r = try await fetcher.get(target, timeout: .seconds(15), discardBody: discardBody)
        stats.request(ok: r.status == 200)
        return r
    }
}

/// When each part was published: the packager's instant in process, else the first playlist response listing it.
final class PublicationClock: Sendable {
    private let embedded: EmbeddedGateway?
    private let firstSeen = Mutex<[LoadGeneratorPlaylist.Position: ContinuousClock.Instant]>([:])
    private let sawStated = Atomic<Bool>(false)

    init(embedded: EmbeddedGateway?) { self.embedded = embedded }

    /// A playlist response that arrived (first byte) at `instant` lists `position`.
    func announce(_ position: LoadGeneratorPlaylist.Position, at instant: ContinuousClock.Instant) {
        guard embedded == nil else { return }
        firstSeen.withLock { seen in
            if let t = seen[position], t <= instant { return }
            seen[position] = instant
        }
    }

    /// The publication instant of `position` of the followed rendition.
    func published(_ position: LoadGeneratorPlaylist.Position) -> ContinuousClock.Instant? {
        if let e = embedded { return e.published(position) }
        return firstSeen.withLock { $0[position] }
    }

    /// The origin's own publication instant (`X-Sluice-Published`, wall clock) on this monotonic clock; nil when the
    /// response has none (an older origin, a static anchor).
    func stated(by part: HTTPClientResponse) -> ContinuousClock.Instant? {
        guard embedded == nil, let text = part.headers["x-sluice-published"], let seconds = Double(text) else {
            return nil
        }
        let stated = WallTime(nanosecondsSince1970: Int64((seconds * 1_000_000).rounded()) * 1000)
        let age = part.completedWall.duration(since: stated)
        sawStated.store(true, ordering: .relaxed)
        return part.completed - age
    }

    /// The definition this run uses, for the report.
    func definition(live: Bool) -> String {
        guard live else { return "playlist request sent (static anchor: playlist + newest part, no blocking)" }
        if embedded != nil { return "packager listed the part (in process, same monotonic clock)" }
        return sawStated.load(ordering: .relaxed)
            ? "the origin listed the part (its X-Sluice-Published header, same host's wall clock)"
            : "first byte of the first playlist response, at any viewer, that listed the part"
    }
}
