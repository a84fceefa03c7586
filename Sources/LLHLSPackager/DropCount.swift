import MediaCore
import StreamHub
import Telemetry

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
