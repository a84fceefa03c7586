import FMP4
import MediaCore
import Synchronization
import Telemetry

/// One stream as `GET /api/streams` reports it (an array of these, sorted by key).
///
/// ```
/// { "key": "demo", "state": "live|reconnecting|ended", "video": "avc1.64001f 1280x720", "audio": "mp4a.40.2 48000 Hz 2 ch",
///   "source": { "videoFormat": "h264", "video": "avc1.64001f", "audioFormat": "aac", "audio": "mp4a.40.2" },
///   "partTarget": 0.201, "lastMSN": 12, "packageP50Ms": 3.1, "packageP99Ms": 9.8, "packageSamples": 900,
///   "viewers": 2, "blockingRequestsWaiting": 1, "framesDropped": 0, "httpRequests": { "part": 40, "playlist-blocking": 41 },
///   "otherTracks": [ { "kind": "video", "track": 1, "codec": "hvc1" } ], "notes": [ "…" ],
///   "renditions": [ { "name": "video", "kind": "video", "codec": "avc1.64001f", "width": 1280, "height": 720,
///       "fps": 30.0, "bitRate": 2480000, "framesIn": 900, "framesOut": 890, "partsPublished": 150, "framesDropped": 0,
///       "framesDroppedBy": { "hls": 0 }, "bytesIn": 0, "bytesOut": 0, "lastMSN": 12,
///       "hops": { "ingest": { "count": 900, "p50Ms": 0.1, "p90Ms": 0.2, "p99Ms": 0.4, "maxMs": 1.2 }, "package": { … } } } ] }
/// ```
/// Renditions list the source `video`, the ladder rungs by name, then `audio`. Hops are those of `Telemetry.Hop`
/// recorded for that rendition (the source `video` carries ingest and decode; rungs carry encode); percentiles cover
/// every sample since the stream began. `fps` and `bitRate` are measured over the parts published in the last 5 s.
public struct StreamSummary: Sendable, Codable {
    /// Stream key.
    public var key: String
    /// `live`, `reconnecting` or `ended`.
    public var state: String
    /// Who is on air: `primary`, `backup` or `slate`; nil when nobody is (before the first frame, or after the end).
    public var onAir: String?
    /// Changes of who is on air since the stream began.
    public var switches = 0
    /// True while a backup publisher stands by (or is on air).
    public var backup = false
    /// Video resolution and codec, if any.
    public var video: String?
    /// Audio codec and rate, if any.
    public var audio: String?
    /// The publisher's codecs as ingest received them (HEVC and AV1 from E-RTMP, H.264 otherwise); nil before any.
    public var source: SourceCodecs?
    /// Advertised PART-TARGET, seconds.
    public var partTarget: Double
    /// Newest MSN.
    public var lastMSN: Int?
    /// Package hop (frame in → part published) of the source video (or audio-only source), milliseconds.
    public var packageP50Ms: Double?
    /// Same, 99th percentile.
    public var packageP99Ms: Double?
    /// Samples behind the percentiles.
    public var packageSamples: Int
    /// Viewers (see `GatewayTelemetry.viewers(stream:)`).
    public var viewers = 0
    /// Blocking playlist requests waiting now.
    public var blockingRequestsWaiting = 0
    /// Frames dropped over every rendition and reader.
    public var framesDropped = 0
    /// HTTP requests for this stream by kind (`playlist-blocking`, `playlist`, `multivariant`, `part`, `segment`, `init`).
    public var httpRequests: [String: Int] = [:]
    /// Every rendition, source video first.
    public var renditions: [RenditionSummary] = []
    /// RTP receive, loss and repair counts per kind when the publisher came over WebRTC (WHIP); nil otherwise.
    public var webrtc: WebRTCStreamTelemetry?
    /// libsrt's link figures (RTT, latency window, loss, retransmissions) when the publisher came over SRT; nil otherwise.
    public var srt: SRTStreamTelemetry?
    /// Tracks the publisher sends beside the served ones (E-RTMP multitrack), by kind and ID.
    public var otherTracks: [UnservedTrack] = []
    /// Why the stream is not packaged as asked, one sentence each (e.g. a keyframe interval above the segment target).
    public var notes: [String] = []
}

/// The codecs a publisher sends, by format name and RFC 6381 string (`hevc`, `hvc1.1.6.L93.90`).
public struct SourceCodecs: Sendable, Codable, Equatable {
    /// Video format: `h264`, `hevc` or `av1`.
    public var videoFormat: String?
    /// The source video's CODECS string, e.g. `hvc1.1.6.L93.90`, `av01.0.05M.08` or `avc1.64001f`.
    public var video: String?
    /// Audio format: `aac` or `opus`.
    public var audioFormat: String?
    /// The source audio's CODECS string, e.g. `mp4a.40.2`.
    public var audio: String?

    /// Codecs by name.
    public init(videoFormat: String?, video: String?, audioFormat: String?, audio: String?) {
        self.videoFormat = videoFormat
        self.video = video
        self.audioFormat = audioFormat
        self.audio = audio
    }

    /// The codecs of `description`; nil when it has no track.
    public init?(_ description: StreamDescription?) {
        guard let description, description.video != nil || description.audio != nil else { return nil }
        videoFormat = description.video?.codec.rawValue
        video = description.video?.codecString
        audioFormat = description.audio?.codec.rawValue
        audio = description.audio?.codecString
    }
}

/// One rendition of a stream in `/api/streams`.
public struct RenditionSummary: Sendable, Codable {
    /// `video`, `audio`, or a rung name such as `480p`.
    public var name: String
    /// `video` or `audio`.
    public var kind: String
    /// RFC 6381 codec string.
    public var codec: String
    /// Picture size (video).
    public var width: Int?
    /// Picture size (video).
    public var height: Int?
    /// Sample rate in Hz (audio).
    public var sampleRate: Int?
    /// Frames per second published over the last 5 s.
    public var fps: Double
    /// Bits per second published over the last 5 s.
    public var bitRate: Int
    /// Frames received by ingest (source renditions).
    public var framesIn: Int
    /// Frames inside published parts.
    public var framesOut: Int
    /// Parts published.
    public var partsPublished: Int
    /// Frames dropped, all readers.
    public var framesDropped: Int
    /// Frames dropped by reader or stage (`hls`, `transcoder`, `encoder`).
    public var framesDroppedBy: [String: Int]
    /// Bytes received by ingest.
    public var bytesIn: Int
    /// Response bytes the origin wrote for this rendition.
    public var bytesOut: Int
    /// Newest MSN of this rendition.
    public var lastMSN: Int?
    /// Per-hop percentiles keyed by hop name (`ingest`, `decode`, `encode`, `package`, `deliver`, `available`).
    public var hops: [String: HopPercentiles]
}

extension LLHLSStream {
    /// A summary of the stream now.
    public func summary() -> StreamSummary {
        state.withLock { s in
            let phase: String =
                switch s.phase {
                case .live: "live"
                case .awaitingReconnect: "reconnecting"
                case .ended: "ended"
                }
            let v = s.description?.video.map { "\($0.codecString) \($0.width)x\($0.height)" }
            let a = s.description?.audio.map { "\($0.codecString) \($0.sampleRate) Hz \($0.channels) ch" }
            let t = telemetry?.snapshot(stream: key)
            let main = s.video != nil ? "video" : "audio"
            let package = t?.renditions[main]?.percentiles(.package)
            var summary = StreamSummary(
                key: key.rawValue,
                state: phase,
                video: v,
                audio: a,
                partTarget: s.partTarget.secondsDouble,
                lastMSN: (s.video ?? s.audio)?.rendition.lastPart?.msn,
                packageP50Ms: package?.p50Ms,
                packageP99Ms: package?.p99Ms,
                packageSamples: package?.count ?? 0
            )
            summary.source = SourceCodecs(s.description)
            summary.viewers = t?.viewers ?? 0
            summary.blockingRequestsWaiting = t?.blockingRequestsWaiting ?? 0
            summary.httpRequests = t?.httpRequests ?? [:]
            summary.webrtc = t?.webrtc
            summary.srt = t?.srt
            summary.renditions = s.pipelineNames.compactMap { name in
                s.pipeline(named: name).map { Self.rendition(name, $0, t?.renditions[name]) }
            }
            summary.otherTracks = telemetry?.unservedTracks(stream: key) ?? []
            summary.notes =
                [s.longGOPNote].compactMap { $0 } + (telemetry?.shedNotes(stream: key) ?? [])
                + summary.otherTracks.map(\.note)
            // As the log says it: a rung still starting its encoder is not behind.
            for rung in s.aligner.reportedBehind.sorted() where s.rungs[rung]?.active == true {
                summary.notes.append(
                    "rung \(rung) trails the source by more than 1 s (encoder behind): the others no longer wait for it"
                )
            }
            summary.framesDropped = t?.renditions.values.reduce(0) { $0 + $1.totalFramesDropped } ?? 0
            return summary
        }
    }

    private static func rendition(_ name: String, _ p: TrackPipeline, _ t: RenditionTelemetry?) -> RenditionSummary {
        let t = t ?? RenditionTelemetry(name: name)
        var r = RenditionSummary(
            name: name,
            kind: p.kind.rawValue,
            codec: "",
            fps: t.fps,
            bitRate: t.bitRate,
            framesIn: t.framesIn,
            framesOut: t.framesOut,
            partsPublished: t.partsPublished,
            framesDropped: t.totalFramesDropped,
            framesDroppedBy: t.framesDropped,
            bytesIn: t.bytesIn,
            bytesOut: t.bytesOut,
            lastMSN: p.rendition.lastPart?.msn,
            hops: t.hops
        )
        switch p.parameters {
        case .video(let v):
            r.codec = v.codecString
            r.width = v.width
            r.height = v.height
        case .audio(let a):
            r.codec = a.codecString
            r.sampleRate = a.sampleRate
        }
        return r
    }
}
