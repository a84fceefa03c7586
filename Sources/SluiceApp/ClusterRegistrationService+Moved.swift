import LLHLSPackager
import Logging
import MediaCore
import StreamHub
import StreamRegistry

/// An encoder that drops from this node (which stays up) and reconnects to another: the other node takes the key and
/// continues the stream's numbering, so this node's own copy (its slate, or playlists held open for the reconnect
/// grace) must not outlive the move for the viewers the edge routes here.
extension ClusterRegistrationService {
    /// Every refresh interval, each stream served here with no publisher on it whose key the registry gives to another
    /// node: its air ends now (not after the grace) and the packager stops serving it, so requests here are relayed
    /// from the new owner.
    func retireMovedStreams() async {
        let node = registry.configuration.nodeURL
        while !Task.isCancelled {
            try? await Task.sleep(for: registry.configuration.refreshInterval)
            for stream in packager.streams where !stream.isEnded && !isAttended(stream.key) {
                // Redis down: nobody can say the stream moved; it keeps its grace here.
                guard let holder = try? await registry.lookup(stream.key), holder != node else { continue }
                guard hub.endUnattendedAir(for: stream.key) else { continue }
                packager.retire(stream.key)
                logger.notice(
                    "cluster: stream moved to another node while only its slate or held-open playlists were left here; ended them early, relaying it from the new owner",
                    metadata: ["stream": "\(stream.key)", "owner": "\(holder)"]
                )
            }
        }
    }

    /// True while a publisher is on `key` here: a primary or backup seated on its air, or the gateway's own (the demo
    /// owns its key with no air).
    private func isAttended(_ key: StreamKey) -> Bool {
        guard let status = hub.onAirStatus(for: key) else { return hub.publication(for: key) != nil }
        return status.primary || status.backup
    }
}
