import MediaCore
import StreamHub
import Synchronization
import WebRTCWire

/// Which H.264 a stream can send to WebRTC receivers, best first: the passthrough when it has no B-frames, the
/// ladder's rungs (x264 without B-frames, highest first), then the dedicated WebRTC rung (constrained baseline).
extension WHEPEgressService {
    /// One candidate: where the video comes from and the profile its SPS declares.
    struct VideoChoice: Sendable {
        var source: WHEPVideoSource
        var profile: H264ProfileLevelID
    }

    /// The publication's description, waiting up to `describeWait` for a publisher that has not sent one yet.
    func described(_ publication: Publication) async throws(WHEPEgressError) -> StreamDescription {
        let deadline = ContinuousClock.now + configuration.describeWait
        while true {
            if publication.isEnded { throw .streamNotLive(publication.key.rawValue) }
            if let description = publication.description, description.video != nil || description.audio != nil {
                return description
            }
            guard ContinuousClock.now < deadline else { throw .streamNotDescribed(publication.key) }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The renditions a viewer may get, best first; empty when the stream has no video.
    func videoChoices(_ publication: Publication, description: StreamDescription) async -> [VideoChoice] {
        guard let video = description.video else { return [] }
        var choices: [VideoChoice] = []
        if let profile = H264ProfileLevelID(avcC: video.decoderConfiguration) {
            // Baseline profiles cannot carry B-frames; any other is watched until its frames show.
            let cannotReorder = profile.profile == .constrainedBaseline || profile.profile == .baseline
            if cannotReorder {
                choices.append(VideoChoice(source: .rendition(publication.key), profile: profile))
            } else if await reorders(publication) == false {
                choices.append(VideoChoice(source: .rendition(publication.key), profile: profile))
            }
        }
        let rungs = hub.liveKeys.filter { $0.sourceKey == publication.key && $0 != publication.key }
            .compactMap { key -> (StreamKey, VideoParameters)? in
                hub.publication(for: key)?.description?.video.map { (key, $0) }
            }
            .sorted { $0.1.height > $1.1.height }
        let passthrough = !choices.isEmpty
        for (key, rung) in rungs {
            // A rung at the source's size beside a passthrough that qualifies is no step down (the fast-start bridge
            // carries the source's own frames after its handover).
            if passthrough, rung.width == video.width, rung.height == video.height { continue }
            // LadderVideoEncoder: x264 with bframes=0, so every rung qualifies by its profile alone.
            guard let profile = H264ProfileLevelID(avcC: rung.decoderConfiguration) else { continue }
            choices.append(VideoChoice(source: .rendition(key), profile: profile))
        }
        choices.append(VideoChoice(source: .webRTCRung, profile: WebRTCRungEncoder.profile))
        return choices
    }

    /// True when the publication's video reorders (any composition offset in its first frames); nil when no video
    /// frame came within `reorderProbe`. Probed once per publish session, on the last GOP when the hub has one
    /// (no wait) and else on the next frames.
    func reorders(_ publication: Publication) async -> Bool? {
        if let known = state.withLock({ $0.reorders[publication.sessionID] }) { return known }
        guard let reader = hub.subscribeReplayingLastGOP(key: publication.key, name: "whep-probe", capacity: 64)?.reader
        else { return nil }
        let hub = self.hub
        let key = publication.key
        let timer = Task {
            try? await Task.sleep(for: configuration.reorderProbe)
            hub.unsubscribe(reader, from: key)
        }
        defer {
            timer.cancel()
            hub.unsubscribe(reader, from: key)
        }
        var seen = 0
        var answer: Bool?
        while let event = await reader.next() {
            guard case .frame(let frame) = event, frame.kind == .video else { continue }
            if frame.compositionOffset.value != 0 {
                answer = true
                break
            }
            seen += 1
            if seen >= 4 {
                answer = false
                break
            }
        }
        if let answer {
            state.withLock { s in
                if s.reorders.count > 1_000 { s.reorders.removeAll() }
                s.reorders[publication.sessionID] = answer
            }
        }
        return answer
    }
}
