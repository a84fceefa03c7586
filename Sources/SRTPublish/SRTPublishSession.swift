import FFmpegBridge
import Logging
import MPEGTS
import MediaCore
import MediaSources

/// What an SRT publish run sent.
public struct SRTPublishReport: Sendable, Equatable {
    /// Video frames sent.
    public var videoFrames = 0
    /// Audio frames sent.
    public var audioFrames = 0
    /// Decode time of the last frame sent, from the first.
    public var mediaTime: Duration = .zero
}

/// Opens `input` and publishes it as MPEG-TS over SRT in real time, each video frame stamped with its capture clock
/// (the same SEI the RTMP and WHIP publishers write), until it ends, `duration` passes or the task is cancelled;
/// `loop` starts a file over (timestamps keep increasing).
public func publishSRT(
    input: PublishInput,
    to url: String,
    loop: Bool = false,
    duration: Duration? = nil,
    logger: Logger? = nil
) async throws(SRTPublishError) -> SRTPublishReport {
    let target = try SRTCaller.Target(url: url)
    let source: any MediaSource
    do { source = try input.open(duration: duration) } catch { throw .source(error) }
    var muxer: MPEGTSMuxer
    do { muxer = try MPEGTSMuxer(description: source.streamDescription) } catch { throw .mux(error) }
    let caller = try await SRTCaller.connect(target)
    logger?.info("publishing over SRT", metadata: ["url": "\(url)"])
    var report = SRTPublishReport()
    var paced = PacedSource(source: source, loop: loop, duration: duration)
    while !Task.isCancelled {
        let release: PacedSource.Release?
        do { release = try await paced.next() } catch { throw .source(error) }
        guard let release else { break }
        guard case .frame(let frame, let due) = release else { continue }
        report.mediaTime = due
        let stamped = (try? CaptureClock.stamp(frame, at: frame.stamps.capture ?? WallTime.now())) ?? frame
        let packets: [UInt8]
        do { packets = try muxer.mux(stamped) } catch { throw .mux(error) }
        try caller.send(packets)
        // A frame's tail must not wait for the next frame's packets: that would add a frame interval of latency.
        try caller.flush()
        if frame.kind == .video { report.videoFrames += 1 } else { report.audioFrames += 1 }
    }
    try caller.flush()
    return report
}
