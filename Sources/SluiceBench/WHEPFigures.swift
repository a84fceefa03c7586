import MediaCore

/// What a WHEP scenario's viewers measured beyond the shared columns: glass and join with p95 (the WebRTC targets),
/// loss, what the gateway chose to send, and the CPU each viewer costs.
public struct WHEPFigures: Sendable, Codable, Equatable {
    /// Viewers started (`--whep-viewers`), and those that received at least one complete frame.
    public var viewers = 0
    public var receivingViewers = 0
    /// The H.264 profile-level-ids each viewer offered.
    public var offeredProfiles: [String] = []
    /// What the gateway sent them (`/api/whep`: `passthrough`, `rung 480p`, `webrtc-rung`), first-seen order.
    public var video: [String] = []
    /// Of the viewers, as the publisher stopped (`/api/whep`): how many joined on the join rung, and how many were
    /// still on it then (a viewer its own rendition never took over from would flatter the join figures).
    public var joinedOnJoinRung: Int?
    public var stillOnJoinRung: Int?
    /// Capture → frame complete at the viewer (last packet of the access unit arrived), over every viewer's frames.
    public var glass: LatencyPercentiles?
    /// POST sent → first complete frame (always a keyframe), one sample per viewer.
    public var joinToFirstFrame: LatencyPercentiles?
    /// Each viewer's join → first frame in the order they joined (nil: never had a frame), to see which one waited.
    public var joinsMs: [Double?] = []
    /// POST sent → 201 answer read, and → DTLS connected.
    public var joinToAnswer: LatencyPercentiles?
    public var joinToConnected: LatencyPercentiles?
    /// Video packets received and lost, summed over viewers; loss as a percentage of those expected.
    public var videoPacketsReceived = 0
    public var videoPacketsLost = 0
    public var lossPercent = 0.0
    /// Opus packets received (audio flows), summed.
    public var audioPacketsReceived = 0
    /// Complete frames, keyframes among them, frames without a capture SEI; PLIs the viewers sent.
    public var framesReceived = 0
    public var keyframes = 0
    public var framesWithoutCapture = 0
    public var keyframeRequests = 0
    /// Complete frames of the viewer that got the fewest (every viewer must be receiving, not only most).
    public var fewestFramesPerViewer = 0
    /// CPU (percent of one core) of `cpuOf` while no viewer watched and while all watched; per viewer is the
    /// difference divided by `viewers`.
    public var idleCPUPercent: Double?
    public var watchingCPUPercent: Double?
    public var cpuPerViewerPercent: Double?
    /// Whose CPU: `gateway pid N`, or `bench process` (embedded gateway + publisher + these viewers).
    public var cpuOf: String?

    /// Figures from the viewers' results.
    init(_ results: [WHEPViewerResult], profiles: [String]) {
        viewers = results.count
        receivingViewers = results.filter { $0.firstFrameAt != nil }.count
        offeredProfiles = profiles
        glass = LatencyPercentiles(samples: results.flatMap(\.report.playerLatencies))
        func since(_ pick: (WHEPViewerResult) -> WallTime?) -> LatencyPercentiles? {
            LatencyPercentiles(samples: results.compactMap { r in pick(r).map { $0.duration(since: r.joinedAt) } })
        }
        joinToFirstFrame = since(\.firstFrameAt)
        joinsMs = results.sorted { $0.joinedAt < $1.joinedAt }.map { r in
            r.firstFrameAt.map { ($0.duration(since: r.joinedAt).milliseconds * 10).rounded() / 10 }
        }
        joinToAnswer = since(\.answeredAt)
        joinToConnected = since(\.connectedAt)
        videoPacketsReceived = results.map(\.videoPacketsReceived).reduce(0, +)
        videoPacketsLost = results.map(\.videoPacketsLost).reduce(0, +)
        let expected = videoPacketsReceived + videoPacketsLost
        lossPercent = expected > 0 ? Double(videoPacketsLost) / Double(expected) * 100 : 0
        audioPacketsReceived = results.map(\.audioPacketsReceived).reduce(0, +)
        framesReceived = results.map(\.framesReceived).reduce(0, +)
        keyframes = results.map(\.keyframes).reduce(0, +)
        framesWithoutCapture = results.map(\.framesWithoutCapture).reduce(0, +)
        keyframeRequests = results.map(\.keyframeRequests).reduce(0, +)
        fewestFramesPerViewer = results.map(\.framesReceived).min() ?? 0
    }

    /// The CPU cost per viewer from two readings of the same process.
    mutating func cpu(idle: Double?, watching: Double?, of who: String) {
        idleCPUPercent = idle
        watchingCPUPercent = watching
        cpuOf = who
        cpuPerViewerPercent = nil
        if let idle, let watching, viewers > 0 { cpuPerViewerPercent = (watching - idle) / Double(viewers) }
    }
}

extension ScenarioResult {
    /// Fills a WHEP scenario's figures: the shared columns from the viewers' reports, the rest in `whep`.
    mutating func apply(_ results: [WHEPViewerResult], figures: WHEPFigures) {
        apply(results.map(\.report))
        joinToFirstFrameMs = figures.joinToFirstFrame?.p50Ms
        whep = figures
    }
}
