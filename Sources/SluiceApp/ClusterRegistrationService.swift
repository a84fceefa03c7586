import LLHLSPackager
import Logging
import MediaCore
import ServiceLifecycle
import StreamHub
import StreamRegistry

/// Keeps the registry in step with the hub: each source stream that goes live here is registered (ladder rungs
/// `key~name` are this node's outputs, never registered), taken over from another node that still holds it (the
/// newer publish wins), and unregistered when its publication ends; runs the registry's refreshes and Redis probes
/// beside it, and retires the streams whose encoder moved to another node (+Moved).
struct ClusterRegistrationService: Service {
    let hub: StreamHub
    let registry: StreamRegistry
    let packager: LLHLSPackager
    let logger: Logger

    func run() async throws {
        let node = registry.configuration.nodeURL
        logger.notice(
            "cluster: this node is \(node); registering its streams in Redis (TTL \(registry.configuration.ttl))"
        )
        // Starts and ends go through one queue, in order: a publication ending while the next one on the same key
        // starts must not remove the new one's entry (register and unregister would interleave on the registry).
        let (changes, queue) = AsyncStream<(StreamKey, live: Bool)>.makeStream()
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { try await registry.run() }
            group.addTask { await apply(changes) }
            group.addTask { await cancelWhenGracefulShutdown { await retireMovedStreams() } }
            group.addTask {
                await cancelWhenGracefulShutdown {
                    await withDiscardingTaskGroup { streams in
                        // A small reader: only its end matters; frames it misses are dropped, never waited for.
                        for await note in hub.announcements(attaching: (name: "cluster", capacity: 4))
                        where note.key.renditionName == nil {
                            guard let reader = note.reader else { continue }
                            queue.yield((note.key, live: true))
                            streams.addTask {
                                while let event = await reader.next() {
                                    if case .ended = event { break }
                                }
                                // Cancelled at shutdown: the registry's own shutdown removes this node's entries.
                                if !Task.isCancelled { queue.yield((note.key, live: false)) }
                            }
                        }
                    }
                }
                queue.finish()
            }
        }
    }

    /// Registers a key while at least one of its publications is live here, in the order starts and ends happened.
    private func apply(_ changes: AsyncStream<(StreamKey, live: Bool)>) async {
        var live: [StreamKey: Int] = [:]
        for await (key, started) in changes {
            let count = live[key, default: 0] + (started ? 1 : -1)
            live[key] = count > 0 ? count : nil
            if started && count == 1 { await register(key) }
            if !started && count == 0 { await unregister(key) }
        }
    }

    private func unregister(_ key: StreamKey) async {
        do {
            let removed = try await registry.unregister(key)
            if removed {
                logger.info("cluster: the stream ended here; removed from the registry", metadata: ["stream": "\(key)"])
            }
        } catch {
            logger.warning(
                "cluster: the stream ended here but its entry could not be removed (it expires within the TTL)",
                metadata: ["stream": "\(key)", "error": "\(error)"]
            )
        }
    }

    private func register(_ key: StreamKey) async {
        do {
            // The newer publish wins: the encoder is here now (it moved, or the old node died and its entry has not
            // expired); the old holder sees this node at its next refresh and leaves the entry alone.
            if let previous = try await registry.takeOver(key) {
                logger.notice(
                    "cluster: \(key) went live here while \(previous) held it; taken over (the newer publish wins), other nodes relay it from here",
                    metadata: ["stream": "\(key)"]
                )
            } else {
                logger.notice(
                    "cluster: \(key) registered to this node; other nodes relay it from here",
                    metadata: ["stream": "\(key)"]
                )
            }
        } catch {
            logger.error(
                "cluster: \(key) is live here but not registered (Redis down?); served here only until Redis answers: \(error)",
                metadata: ["stream": "\(key)"]
            )
        }
    }
}
