import Logging
import MediaCore

/// The log lines a stream's packaging events call for, in one place: the events carry what each line says.
extension LLHLSPackager {
    /// Logs what the events of one state call tell an operator; `session` is the source publisher's, when known.
    func log(_ events: [PackagerEvent], stream key: StreamKey, session: String? = nil) {
        var meta: Logger.Metadata = ["stream": "\(key)"]
        if let session { meta["session"] = "\(session)" }
        for event in events {
            switch event {
            case .audioDroppedBeforeVideo(let frames, let span):
                var m = meta
                m["audio_frames"] = "\(frames)"
                m["seconds"] = "\((span.seconds * 1000).rounded() / 1000)"
                logger.notice(
                    Logger.Message(
                        stringLiteral: "audio started before video: every rendition starts at the first video "
                            + "frame; the audio before it was dropped"
                    ),
                    metadata: m
                )
            case .longGOPDetected(let finding):
                // Once per session: the streamer's setting, its cost, and what the viewers get instead.
                var m = meta
                m["evidence"] = "\(finding.evidence)"
                m["segment_target_s"] = "\(finding.gridSeconds)"
                logger.warning(
                    """
                    source keyframe interval exceeds the segment target: segments are cut on the target's grid; ladder \
                    rungs get IDRs there, the passthrough's segments start without a keyframe (set the encoder's \
                    keyframe interval to 1-2 s to avoid this)
                    """,
                    metadata: m
                )
            case .rungFellBehind(let rung):
                logger.warning(
                    "rung fell behind the source (its encoder cannot keep up): the source and the other rungs no longer wait for it",
                    metadata: ["stream": "\(key)", "rung": "\(rung)"]
                )
            case .rungCaughtUp(let rung):
                logger.info(
                    "rung caught up with the source: renditions listed in step again",
                    metadata: ["stream": "\(key)", "rung": "\(rung)"]
                )
            default:
                break
            }
        }
    }
}
