import HTTPClient
import Logging
import MediaCore
import NIOCore
import Synchronization

/// Serves `/live/{key}/…` for streams another node holds: the registry names the owner, the request goes to it with
/// the same path and query (blocking reloads with their `_HLS_msn`/`_HLS_part`/`_HLS_skip`), and its answer goes to
/// every viewer with the owner's status, `Content-Type` and `Cache-Control`.
///
/// One fetch per path at a time, shared by every viewer asking meanwhile, and what the owner lets a shared cache
/// keep is kept that long: each part is fetched once per relaying node, whatever the number of viewers.
public final class ClusterRelay: Sendable {
    /// Fetches `target` from an owner.
    public typealias Fetch = @Sendable (_ owner: HTTPLocation, _ target: String) async throws -> RelayedResponse

    /// Owners, timeouts, cache bounds.
    public let configuration: Configuration
    private let lookup: @Sendable (StreamKey) async -> String?
    private let fetch: Fetch
    private let cache: Mutex<RelayCache>
    private let owners = Mutex<[StreamKey: (owner: String?, until: ContinuousClock.Instant)]>([:])
    private let counters = Mutex(RelayStats())
    /// The owner last logged for each key (a line per change, not per lookup).
    private let announced = Mutex<[StreamKey: String?]>([:])
    /// Keys whose owner failed to answer since its last answer: warned about once, not per request.
    private let failing = Mutex<Set<StreamKey>>([])
    /// Parts fetched lately and until when their kept copy is fresh (a ring), to count repeated fetches.
    private let fetchedParts = Mutex<(fresh: [String: ContinuousClock.Instant], order: [String])>(([:], []))
    private let logger: Logger

    /// A relay asking `lookup` for a key's owner node URL (nil: nobody holds it, or the registry cannot say).
    public init(
        configuration: Configuration,
        lookup: @escaping @Sendable (StreamKey) async -> String?,
        fetch: Fetch? = nil,
        logger: Logger = Logger(label: "sluice.relay")
    ) {
        self.configuration = configuration
        self.lookup = lookup
        self.cache = Mutex(RelayCache(capacity: configuration.cacheCapacity))
        self.logger = logger
        if let fetch {
            self.fetch = fetch
        } else {
            let pool = RelayConnectionPool()
            let (timeout, node) = (configuration.fetchTimeout, configuration.nodeURL)
            self.fetch = { owner, target in
                try await Self.fetch(target, from: owner, pool: pool, timeout: timeout, node: node)
            }
        }
    }

    /// What the relay did so far.
    public var stats: RelayStats { counters.withLock { $0 } }

    /// The owner's answer for `target` (`/live/{key}/…[?query]`) of `key`; nil when no other node holds the key or
    /// its owner cannot be reached (the caller answers as for a stream that is not live).
    public func answer(key: StreamKey, target: String) async -> RelayedResponse? {
        guard let owner = await owner(of: key) else { return nil }
        guard let location = HTTPLocation(owner) else {
            logger.warning(
                "relay: the registry names an owner URL that cannot be used",
                metadata: ["stream": "\(key)", "error": "\(ClusterRelayError.badOwnerURL(owner))"]
            )
            return nil
        }
        let path = owner + target
        let now = ContinuousClock.now
        let (found, started) = cache.withLock { c -> (RelayCache.Lookup, Bool) in
            let lookup = c.lookup(path, now: now)
            guard case .miss = lookup else { return (lookup, false) }
            // Started under the lock: a second viewer asking now joins this fetch instead of sending its own.
            let task = Task { await self.fetchAndKeep(path, target: target, key: key, from: location) }
            c.started(path, task)
            return (.join(task), true)
        }
        counters.withLock {
            $0.requests += 1
            if case .hit = found { $0.cacheHits += 1 }
            if case .join = found, !started { $0.joined += 1 }
        }
        switch found {
        case .hit(var response, let age):
            response.headers.append(("Age", "\(age.components.seconds)"))
            return response
        case .join(let task):
            return await task.value
        case .miss:
            return nil
        }
    }

    /// One fetch from the owner; its answer is kept as long as its `Cache-Control` allows.
    private func fetchAndKeep(
        _ path: String,
        target: String,
        key: StreamKey,
        from owner: HTTPLocation
    ) async -> RelayedResponse? {
        counters.withLock { $0.fetches += 1 }
        var response: RelayedResponse?
        do {
            response = try await fetch(owner, target)
        } catch {
            counters.withLock { $0.failures += 1 }
            // The owner is gone or stuck: ask the registry again next time (its entry expires within the TTL).
            _ = owners.withLock { $0.removeValue(forKey: key) }
            if failing.withLock({ $0.insert(key).inserted }) {
                logger.warning(
                    "relay: no answer from the owner, answering as not live until it answers or the registry names another node",
                    metadata: ["stream": "\(key)", "owner": "\(owner)", "error": "\(error)"]
                )
            }
        }
        if response != nil, failing.withLock({ $0.remove(key) != nil }) {
            logger.notice("relay: the node holding the stream answers again", metadata: ["stream": "\(key)"])
        }
        let lifetime = CacheLifetime.of(response?.header("Cache-Control"), cap: configuration.maxCacheAge)
        if let response, response.status == 200, Self.isPart(target) { notePartFetch(path, keptFor: lifetime) }
        cache.withLock { $0.finished(path, response, lifetime: lifetime, now: .now) }
        return response
    }

    /// The node holding `key` when it is not this one (lookups reused for `lookupLifetime`).
    public func owner(of key: StreamKey) async -> String? {
        let now = ContinuousClock.now
        if let known = owners.withLock({ $0[key] }), known.until > now { return known.owner }
        var owner = await lookup(key)
        if owner == configuration.nodeURL { owner = nil }
        let until = ContinuousClock.now + configuration.lookupLifetime
        owners.withLock { o in
            // Lookups of keys nobody holds (typos, scans) must not pile up: expired ones go once there are many.
            if o.count >= 4_096 { o = o.filter { $0.value.until > now } }
            o[key] = (owner, until)
        }
        let changed = owner != nil && announced.withLock { a in a.updateValue(owner, forKey: key) != owner }
        if let owner, changed {
            // Once per change of owner: which node a stream's viewers here are served from.
            logger.info(
                "relay: held by another node; relaying it from there",
                metadata: ["stream": "\(key)", "owner": "\(owner)"]
            )
        }
        return owner
    }

    /// A part (`{msn}.{part}.m4s`): what every viewer asks for once, within a few part durations of its hint.
    static func isPart(_ target: String) -> Bool {
        let file = target.prefix { $0 != "?" }.split(separator: "/").last ?? ""
        return file.hasSuffix(".m4s") && file.dropLast(4).split(separator: ".").count == 2
    }

    /// Counts a part fetch, and a repeat when the path was fetched before and its kept copy should still be fresh
    /// (the last 8192 parts are remembered); a fetch after the owner's lifetime ran out is not a repeat.
    private func notePartFetch(_ path: String, keptFor lifetime: Duration) {
        let now = ContinuousClock.now
        let repeated = fetchedParts.withLock { f -> Bool in
            if let fresh = f.fresh[path] {
                f.fresh[path] = now + lifetime
                return fresh > now
            }
            f.fresh[path] = now + lifetime
            f.order.append(path)
            if f.order.count > 8_192 {
                for old in f.order.prefix(1_024) { f.fresh[old] = nil }
                f.order.removeFirst(1_024)
            }
            return false
        }
        counters.withLock {
            $0.partFetches += 1
            if repeated { $0.repeatedPartFetches += 1 }
        }
    }
}
