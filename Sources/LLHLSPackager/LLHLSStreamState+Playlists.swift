import FMP4
import HLSPlaylist
import MediaCore
import Synchronization

/// The playlists as models: SERVER-CONTROL, each rendition's media playlist with its reports, the multivariant.
extension LLHLSStreamState {
    /// SERVER-CONTROL, identical for every rendition (checklist M4); classic HLS has none.
    var serverControl: ServerControl? {
        guard config.lowLatency else { return nil }
        let pt = partTarget.secondsDouble
        let td = Double(targetDuration)
        // PART-HOLD-BACK ≥ 3 × PART-TARGET is Apple's MUST [A 14.3]; round up to the millisecond.
        let phb = Duration.milliseconds(Int64((3 * pt * 1000).rounded(.up)))
        return ServerControl(
            canBlockReload: true,
            partHoldBack: phb,
            holdBack: .milliseconds(Int64(3 * td * 1000)),
            canSkipUntil: .milliseconds(Int64(6 * td * 1000))
        )
    }

    /// The media playlist model of the source's video or audio rendition.
    func mediaPlaylist(_ kind: MediaKind) -> MediaPlaylist? { mediaPlaylist(named: kind.rawValue) }

    /// The media playlist model of a rendition by name; reports cover every other rendition (checklist R1).
    func mediaPlaylist(named name: String) -> MediaPlaylist? {
        guard let p = pipeline(named: name) else { return nil }
        // Rendition reports are an LL-HLS tag (§4.4.5.4): classic playlists carry none.
        let reports =
            !config.lowLatency
            ? []
            : listedRenditions.filter { $0 != name }.compactMap { other in
                pipeline(named: other)?.rendition.report(uri: "\(servedName(other)).m3u8")
            }
        let ctx = PlaylistContext(
            epoch: epoch,
            targetDuration: targetDuration,
            partTarget: config.lowLatency
                ? MediaTime(
                    value: Int64((partTarget.secondsDouble * Double(p.timescale)).rounded()),
                    timescale: p.timescale
                )
                : nil,
            serverControl: serverControl,
            window: config.listedSegments,
            reports: reports,
            ended: isEnded,
            servedName: servedName(name)
        )
        return p.rendition.playlist(ctx)
    }

    /// The multivariant playlist; nil until every rendition has its first part (`RenditionListing`).
    func multivariantPlaylist(now: ContinuousClock.Instant = .now) -> MultivariantPlaylist? {
        guard let d = description, d.video != nil || d.audio != nil, let served = servedRenditions(now: now) else {
            return nil
        }
        var audioRenditions: [AudioRendition] = []
        var codecs: [String] = []
        let audioPeak = audio?.rendition.peakBitRate ?? 0
        let audioAvg = audio?.rendition.averageBitRate ?? 0
        if let a = d.audio {
            audioRenditions.append(
                AudioRendition(groupID: "audio", name: "main", language: nil, channels: a.channels, uri: "audio.m3u8")
            )
        }
        if d.video != nil {
            var variants: [VariantStream] = []
            var independent = true
            for name in served where name != "audio" {
                guard let p = pipeline(named: name), case .video(let v) = p.parameters else { continue }
                codecs = [v.codecString] + (d.audio.map { [$0.codecString] } ?? [])
                // A bridged rung carries the source's frames after its first keyframe interval: rate it as the source
                // too (its short encoded start says little of what follows).
                let rated = [p.rendition] + (name == bridgedRung ? [video?.rendition].compactMap { $0 } : [])
                let videoPeak = rated.map(\.peakBitRate).max() ?? 0
                let videoAvg = rated.map(\.averageBitRate).max() ?? 0
                let peak = videoPeak + audioPeak
                let avg = videoAvg + audioAvg
                // Before a segment completes nothing is measured: assume ~3.3 bits per pixel-second of 720p30.
                let guess = max(300_000, v.width * v.height * 3)
                variants.append(
                    VariantStream(
                        // Peak is measured over segments of 0.5 s or more; an early first segment is shorter, so
                        // until one completes the average stands in (BANDWIDTH is never below AVERAGE-BANDWIDTH).
                        bandwidth: videoAvg > 0 || videoPeak > 0 ? max(peak, avg) : guess,
                        averageBandwidth: videoAvg > 0 ? avg : guess * 4 / 5,
                        codecs: codecs,
                        resolution: (v.width, v.height),
                        frameRate: v.frameRate ?? d.video?.frameRate ?? p.rendition.measuredFrameRate,
                        audioGroup: d.audio == nil ? nil : "audio",
                        uri: "\(servedName(name)).m3u8"
                    )
                )
                // A long-GOP passthrough, or one whose first segment was cut early, has (or will have) a segment that
                // starts without a keyframe: say so before it exists.
                let cutsBetweenKeyframes = name == "video" && (grid.longGOP != nil || grid.cutFirstSegmentEarly)
                independent = independent && p.rendition.everySegmentIndependent && !cutsBetweenKeyframes
            }
            // Largest picture first, so the source (the top rung) leads even when simple content encodes small.
            variants.sort { ($0.resolution?.height ?? 0, $0.bandwidth) > ($1.resolution?.height ?? 0, $1.bandwidth) }
            return MultivariantPlaylist(audio: audioRenditions, variants: variants, independentSegments: independent)
        }
        let a = d.audio!
        return MultivariantPlaylist(
            audio: [],
            variants: [
                VariantStream(
                    bandwidth: audioPeak > 0 ? audioPeak : 160_000,
                    averageBandwidth: audioAvg > 0 ? audioAvg : 128_000,
                    codecs: [a.codecString],
                    resolution: nil,
                    frameRate: nil,
                    audioGroup: nil,
                    uri: "audio.m3u8"
                )
            ]
        )
    }
}
