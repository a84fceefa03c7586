import MediaCore
import StreamHub
import Telemetry

/// The package and available hops, measured where a part is listed (the moment players can fetch it).
extension LLHLSStreamState {
    /// Records, for every frame of a part just listed: package (frame in → now) and available (capture → now).
    mutating func recordPublished(_ part: MuxedPart, name: String, now: ContinuousClock.Instant) {
        guard let telemetry else { return }
        for i in part.ingested { telemetry.record(.package, now - i, stream: key, rendition: name) }
        if !part.captured.isEmpty {
            let wall = WallTime.now()
            for c in part.captured {
                telemetry.record(.available, wall.duration(since: c), stream: key, rendition: name)
            }
        }
        telemetry.countPublished(
            stream: key,
            rendition: name,
            frames: part.sampleCount,
            bytes: part.bytes.count,
            at: now
        )
    }
}

/// Turns a hub reader's cumulative drop count into increments of `sluice_frames_dropped_total{reader="hls"}`.
struct DropCount {
    private var reported = 0

    /// Reports the drops since the last call (the source reader counts under `video`: it drops the oldest frames).
    mutating func report(_ reader: StreamReader, stream: StreamKey, rendition: String, to telemetry: GatewayTelemetry) {
        let total = reader.droppedFrames
        telemetry.countDropped(stream: stream, rendition: rendition, reader: reader.name, frames: total - reported)
        reported = total
    }
}
