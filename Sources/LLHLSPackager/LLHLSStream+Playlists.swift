import Synchronization
import HLSPlaylist
import MediaCore

extension LLHLSStreamState {
    /// TARGETDURATION.
    var targetDuration: Int { config.targetDurationSeconds }

    /// SERVER-CONTROL, identical for every rendition (checklist M4).
    var serverControl: ServerControl {
        let pt = partTargetSeconds
        let td = Double(targetDuration)
        // PART-HOLD-BACK ≥ 3 × PART-TARGET is Apple's MUST [A 14.3]; round up to the millisecond.
        let phb = Duration.milliseconds(Int64((3 * pt * 1000).rounded(.up)))
        return ServerControl(
            canBlockReload: true, partHoldBack: phb, holdBack: .milliseconds(Int64(3 * td * 1000)),
            canSkipUntil: .milliseconds(Int64(6 * td * 1000)))
    }

    /// The media playlist model of a rendition.
    func mediaPlaylist(_ kind: MediaKind) -> MediaPlaylist? {
        guard let p = pipeline(kind) else { return nil }
        let other: MediaKind = kind == .video ? .audio : .video
        let reports = pipeline(other).flatMap { $0.rendition.report(uri: "\($0.rendition.name).m3u8") }.map { [$0] } ?? []
        let ctx = PlaylistContext(
            epoch: epoch, targetDuration: targetDuration,
            partTarget: MediaTime(value: Int64((partTargetSeconds * Double(p.timescale)).rounded()), timescale: p.timescale),
            serverControl: serverControl, window: config.windowSegments, reports: reports, ended: isEnded)
        return p.rendition.playlist(ctx)
    }

    /// The multivariant playlist; nil until the tracks are known.
    func multivariantPlaylist() -> MultivariantPlaylist? {
        guard let d = description, d.video != nil || d.audio != nil else { return nil }
        var audioRenditions: [AudioRendition] = []
        var codecs: [String] = []
        let audioPeak = audio?.rendition.peakBitRate ?? 0
        let audioAvg = audio?.rendition.averageBitRate ?? 0
        if let a = d.audio {
            audioRenditions.append(AudioRendition(groupID: "audio", name: "main", language: nil, channels: a.channels, uri: "audio.m3u8"))
        }
        if let v = d.video {
            codecs.append(v.codecString)
            if let a = d.audio { codecs.append(a.codecString) }
            let peak = (video?.rendition.peakBitRate ?? 0) + audioPeak
            let avg = (video?.rendition.averageBitRate ?? 0) + audioAvg
            // Before the first segment completes there is nothing measured yet: assume a typical 720p stream.
            let variant = VariantStream(
                bandwidth: peak > 0 ? peak : 3_000_000, averageBandwidth: avg > 0 ? avg : (peak > 0 ? peak : 2_500_000),
                codecs: codecs, resolution: (v.width, v.height), frameRate: v.frameRate,
                audioGroup: d.audio == nil ? nil : "audio", uri: "video.m3u8")
            return MultivariantPlaylist(
                audio: audioRenditions, variants: [variant],
                independentSegments: video?.rendition.everySegmentIndependent ?? true)
        }
        let a = d.audio!
        return MultivariantPlaylist(
            audio: [],
            variants: [
                VariantStream(
                    bandwidth: audioPeak > 0 ? audioPeak : 160_000, averageBandwidth: audioAvg > 0 ? audioAvg : 128_000,
                    codecs: [a.codecString], resolution: nil, frameRate: nil, audioGroup: nil, uri: "audio.m3u8")
            ])
    }
}
