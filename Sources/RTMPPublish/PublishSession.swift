import CodecFormats
import FFmpegBridge
import Logging
import MediaCore
import MediaSources

/// What a publish run sent.
public struct PublishReport: Sendable, Equatable {
    /// Video frames written.
    public var videoFrames = 0
    /// Audio frames written.
    public var audioFrames = 0
    /// Times the source was rewound.
    public var loops = 0
    /// Decode time of the last frame sent, from the first.
    public var mediaTime: Duration = .zero

    /// All frames written.
    public var frames: Int { videoFrames + audioFrames }
}

/// Opens `input`, tells `announce` its tracks, and publishes it to `url` in real time.
public func publish(
    input: PublishInput,
    to url: String,
    loop: Bool = false,
    duration: Duration? = nil,
    logger: Logger? = nil,
    announce: (StreamDescription) -> Void = { _ in }
) async throws(RTMPPublishError) -> PublishReport {
    let source: any MediaSource
    do { source = try input.open(duration: duration) } catch { throw .source(error) }
    announce(source.streamDescription)
    return try await publish(source: source, to: url, loop: loop, duration: duration, logger: logger)
}

/// Publishes a source to an RTMP URL in real time (like `ffmpeg -re`); returns when the source ends,
/// `duration` of media has been sent, or the task is cancelled.
public func publish(
    source: any MediaSource,
    to url: String,
    loop: Bool = false,
    duration: Duration? = nil,
    logger: Logger? = nil
) async throws(RTMPPublishError) -> PublishReport {
    let publisher = try RTMPPublisher(url: url)
    defer { publisher.close() }
    logger?.info("publishing", metadata: ["url": "\(url)"])
    return try await publish(source: source, with: publisher, loop: loop, duration: duration, logger: logger)
}

/// Publishes a source through an already connected publisher, pacing frames against a monotonic clock.
public func publish(
    source: any MediaSource,
    with publisher: RTMPPublisher,
    loop: Bool = false,
    duration: Duration? = nil,
    logger: Logger? = nil
) async throws(RTMPPublishError) -> PublishReport {
    var report = PublishReport()
    try publisher.send(description: source.streamDescription)
    let codec = source.streamDescription.video?.codec ?? .h264
    var paced = PacedSource(source: source, loop: loop, duration: duration)
    while !Task.isCancelled {
        let release: PacedSource.Release?
        do {
            release = try await paced.next()
        } catch {
            throw .source(error)
        }
        guard let release else { break }
        switch release {
        case .rewound(let loops):
            report.loops = loops
            logger?.debug("looping source", metadata: ["loop": "\(loops)"])
        case .frame(let frame, let due):
            try publisher.send(frame: try stampCaptureClock(on: frame, codec: codec))
            switch frame.kind {
            case .video: report.videoFrames += 1
            case .audio: report.audioFrames += 1
            }
            report.mediaTime = due
        }
    }
    logger?.info(
        "published",
        metadata: ["video": "\(report.videoFrames)", "audio": "\(report.audioFrames)", "loops": "\(report.loops)"]
    )
    return report
}

/// A frame stamped with its capture clock (DESIGN.md "Latency model"): a source that makes its pictures (the test
/// pattern) stamped each one as it was made, before encoding; for a recording the pacer's release is the capture instant.
private func stampCaptureClock(on frame: MediaFrame, codec: Codec) throws(RTMPPublishError) -> MediaFrame {
    do {
        return try CaptureClock.stamp(frame, at: frame.stamps.capture ?? WallTime.now(), codec: codec)
    } catch {
        throw .malformedVideo(dts: frame.dts, error)
    }
}
