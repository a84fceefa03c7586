import MediaCore

/// Loops a slate clip in real time from an anchor instant: the frames due by now, video and audio in time order.
/// Frames between the anchor and the first call come at once, so the air catches up on the gap before the slate.
struct SlatePlayer: Sendable {
    let clip: SlateClip
    /// The instant the slate's time zero stands for.
    let anchor: ContinuousClock.Instant
    private var videoCount = 0
    private var audioCount = 0

    /// At most this much is sent at once to catch up; a longer gap stays a gap.
    static let catchUpLimit: Duration = .seconds(2)

    init(clip: SlateClip, anchor: ContinuousClock.Instant, now: ContinuousClock.Instant) {
        self.clip = clip
        self.anchor = max(anchor, now - Self.catchUpLimit)
    }

    /// The slate's frames due by `now`, on the slate's own timeline (starting at zero).
    mutating func due(now: ContinuousClock.Instant) -> [MediaFrame] {
        let elapsed = now - anchor
        var out: [MediaFrame] = []
        while true {
            let video = nextVideoTime.flatMap { $0.duration <= elapsed ? $0 : nil }
            let audio = nextAudioTime.flatMap { $0.duration <= elapsed ? $0 : nil }
            if let v = video, audio.map({ v.seconds <= $0.seconds }) ?? true {
                var frame = clip.video[videoCount % clip.video.count]
                frame.dts = v
                frame.compositionOffset = .zero(timescale: v.timescale)
                frame.stamps = HopStamps(capture: .now(), ingested: now, ingestWall: .now())
                out.append(frame)
                videoCount += 1
            } else if let a = audio, var frame = clip.audio {
                frame.dts = a
                frame.stamps = HopStamps(capture: .now(), ingested: now, ingestWall: .now())
                out.append(frame)
                audioCount += 1
            } else {
                return out
            }
        }
    }

    private var nextVideoTime: MediaTime? {
        guard !clip.video.isEmpty else { return nil }
        let d = clip.videoFrameDuration
        return MediaTime(value: d.value * Int64(videoCount), timescale: d.timescale)
    }

    private var nextAudioTime: MediaTime? {
        guard clip.audio != nil, let d = clip.audioFrameDuration else { return nil }
        return MediaTime(value: d.value * Int64(audioCount), timescale: d.timescale)
    }
}
