import CodecFormats
import FFmpegBridge
import MediaCore
import MediaSources
import Synchronization

/// What the pump hands the publisher, in release order.
enum WHIPPumpOutput: Sendable {
    /// A frame released now: video with its capture-time SEI, audio already Opus.
    case frame(MediaFrame, wall: WallTime)
    /// The source ended (nil), the duration was reached (nil), or it failed.
    case ended(WHIPPublishError?)
}

/// Reads the source in real time (`PublishPacer`, like `sluice publish` to RTMP), writes each video frame's capture
/// clock as SEI (when the test pattern made the picture, else its release; DESIGN.md "Latency model") and turns
/// audio into 20 ms Opus frames.
///
/// Owns the non-Sendable source: one task runs it, and keyframe requests reach it through an atomic flag.
final class WHIPMediaPump: @unchecked Sendable {
    private let source: any MediaSource
    private let opus: OpusTranscoder?
    private let loop: Bool
    private let duration: Duration?
    /// Set by the publisher on PLI/FIR; the pump asks the source before reading its next frame.
    let keyframeRequested = Atomic<Bool>(false)
    /// Times the source was rewound, and the last release's media time.
    private(set) var loops = 0
    private(set) var mediaTime: Duration = .zero

    init(source: any MediaSource, opus: OpusTranscoder?, loop: Bool, duration: Duration?) {
        self.source = source
        self.opus = opus
        self.loop = loop
        self.duration = duration
    }

    /// Releases frames through `emit` until the source ends, `duration` passes, or the task is cancelled.
    func run(emit: (WHIPPumpOutput) -> Void) async {
        var paced = PacedSource(source: source, loop: loop, duration: duration)
        while !Task.isCancelled {
            if keyframeRequested.exchange(false, ordering: .relaxed), let source = source as? any KeyframeRequestable {
                source.requestKeyframe()
            }
            let release: PacedSource.Release?
            do {
                release = try await paced.next()
            } catch {
                return emit(.ended(.source("\(error)")))
            }
            guard let release else { break }
            let frame: MediaFrame
            switch release {
            case .rewound(let count):
                loops = count
                continue
            case .frame(let released, let due):
                frame = released
                mediaTime = due
            }
            let wall = WallTime.now()
            switch frame.kind {
            case .video:
                do {
                    // The test pattern stamped its pictures as they were made (before encoding); a recording has no stamp.
                    emit(.frame(try CaptureClock.stamp(frame, at: frame.stamps.capture ?? wall), wall: wall))
                } catch {
                    return emit(.ended(.malformedVideo(dts: frame.dts, reason: "\(error)")))
                }
            case .audio:
                guard let opus else { continue }
                var input = frame
                input.stamps.capture = wall
                do {
                    for encoded in try opus.transcode(input) { emit(.frame(encoded, wall: wall)) }
                } catch {
                    return emit(.ended(.source("Opus encoding failed: \(error)")))
                }
            }
        }
        emit(.ended(nil))
    }
}
