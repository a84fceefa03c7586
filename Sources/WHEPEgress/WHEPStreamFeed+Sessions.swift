import Logging
import MediaCore
import StreamHub
import Synchronization

/// A publisher that reconnects keeps its WHEP viewers: the feed waits `reconnectGrace` for the key to go live again,
/// then reads the new session on the same SSRCs with continuous sequence numbers and RTP timestamps (a receiver sees
/// a pause, then the new session's keyframe, never a new stream).
extension WHEPStreamFeed {
    /// One publishing session after another until the stream stays gone past the grace, or the feed is stopped.
    func runSessions(_ first: Readers) async {
        var readers = first
        while true {
            let encode = videoSource.isRung
            let current = readers
            // Whichever track ends first ends the session: the other is cancelled (which finishes its reader).
            await withTaskGroup(of: Void.self) { group in
                if let video = current.video {
                    group.addTask {
                        await self.runVideo(video.reader, encode: encode, replayed: current.videoReplayed)
                    }
                }
                group.addTask { await self.runAudio(current.audio.reader) }
                await group.next()
                group.cancelAll()
            }
            unsubscribe(readers)
            if Task.isCancelled || state.withLock({ $0.stopped }) { return }
            logger.info(
                "WHEP source ended; holding viewers for a reconnect",
                metadata: ["grace": "\(configuration.reconnectGrace)"]
            )
            guard let next = await republished() else {
                end()
                return
            }
            state.withLock { s in
                s.video.continueAfterGap()
                s.audio.continueAfterGap()
                // The new session's media time starts over: its first frame fixes a new mapping.
                s.clockBase = nil
            }
            logger.info("WHEP source is back; viewers continue", metadata: ["viewers": "\(viewers.count)"])
            readers = next
        }
    }

    /// Readers of the next publication of the key (described, and its rendition live), or nil after the grace.
    func republished() async -> Readers? {
        let deadline = ContinuousClock.now + configuration.reconnectGrace
        while ContinuousClock.now < deadline {
            if Task.isCancelled || state.withLock({ $0.stopped }) { return nil }
            if let publication = hub.publication(for: key), publication.description != nil, let readers = subscribe() {
                return readers
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }
}
