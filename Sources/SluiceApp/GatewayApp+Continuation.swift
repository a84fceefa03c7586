import LLHLSPackager
import Logging
import MediaCore
import StreamRegistry

/// A stream that moves between nodes keeps its numbering: each node records where its streams stand at every registry
/// refresh, and a node an encoder reconnects to continues from there (first MSN past the other node's, one more
/// discontinuity) instead of starting at MSN 1, so viewers that keep their page never see the numbers go back.
extension GatewayApp.Cluster {
    /// Records the packager's position of every key this node holds at each registry refresh.
    func recordPositions(of packager: LLHLSPackager) async {
        let node = nodeURL
        await registry.recordPositions(from: { key in packager.position(of: key, node: node) })
    }

    /// Asked by the packager when a key with no stream here goes live: the continuation of the position the registry
    /// holds for it, nil (start fresh) when there is none, it is too old, or Redis cannot be read.
    func continuations(configuration c: SluiceConfiguration, logger: Logger) -> StreamContinuationSource {
        let registry = registry
        let segmentTarget = c.effectiveHLS.segmentTarget
        let maxAge = registry.configuration.positionTTL
        // The old node may run its slate until its next refresh finds this node holding the key: two refreshes.
        let slack = registry.configuration.refreshInterval * 2
        return { key in
            let position: StreamPosition?
            do {
                position = try await registry.position(of: key)
            } catch {
                logger.warning(
                    "cluster: could not read the stream's position (Redis down?); packaging it as a new stream",
                    metadata: ["stream": "\(key)", "error": "\(error)"]
                )
                return nil
            }
            guard let position else { return nil }
            let continuation = StreamContinuation(
                continuing: position,
                now: .now(),
                segmentTarget: segmentTarget,
                slack: slack,
                maxAge: maxAge
            )
            if continuation == nil {
                logger.info(
                    "cluster: the stream's recorded position is too old to continue; packaging it as a new stream",
                    metadata: ["stream": "\(key)", "position": "\(position.redisValue)"]
                )
            }
            return continuation
        }
    }
}
