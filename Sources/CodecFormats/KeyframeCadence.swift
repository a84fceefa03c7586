import MediaCore

/// Watches a source's keyframes and, once its keyframe interval is known to exceed the segment target, places
/// segment starts on a fixed grid: the packager cuts the source there and the ladder forces its rung IDRs there.
///
/// Both sides feed the same frames in decode order and ask about frames (packager, by dts) or pictures (ladder, by
/// pts) on the same rule, so the grid lands on the same media times without either telling the other.
///
/// With an `EarlyFirstSegment`, a source whose encoder states its keyframe interval (x264's settings SEI, at a known
/// frame rate) also gets an early cut that long after its first frame, where that interval is long (or always, when
/// asked): a short first segment is what lets players start well inside the first keyframe interval.
public struct KeyframeCadence: Sendable {
    /// How the long keyframe interval became known.
    public enum Evidence: Sendable, Equatable, CustomStringConvertible {
        /// x264's settings SEI in the first keyframe states `keyint` (frames); at the stated or assumed frame rate.
        case encoderSettings(keyint: Int, seconds: Double)
        /// No keyframe came within the segment target (plus `lateness`) of the last one.
        case observed(secondsWithoutKeyframe: Double)

        public var description: String {
            switch self {
            case .encoderSettings(let keyint, let seconds):
                keyint == Int.max
                    ? "the encoder's keyint=infinite" : "the encoder's keyint=\(keyint) (\(Self.format(seconds)) s)"
            case .observed(let seconds): "no keyframe for \(Self.format(seconds)) s"
            }
        }

        /// Seconds with one decimal, for log lines and notes.
        public static func format(_ s: Double) -> String {
            let tenths = Int((s * 10).rounded())
            return "\(tenths / 10).\(tenths % 10)"
        }
    }

    /// Segment target, 90 kHz ticks.
    public let target: Int64
    /// Half a frame, 90 kHz ticks: a grid point takes the frame nearest to it.
    public let halfFrame: Int64
    /// How far past the target a keyframe may come before the GOP counts as long: 150 ms (WHIP's keyframe requests
    /// every segment target come back a round trip and an encode later), at least half a frame.
    public let lateness: Int64
    private let frameRate: Double?
    /// Whether the encoder's stated `keyint` predicts the keyframes (false when the ingest requests them itself).
    private let trustsEncoderSettings: Bool
    /// Time of the first frame observed (the grid's zero).
    public private(set) var origin: Int64?
    private var lastKeyframe: Int64?
    /// Set once the keyframe interval is known to exceed the target; the grid applies from then on.
    public private(set) var longGOP: Evidence?
    /// The frame that revealed the long GOP opens a segment itself (the open one must not grow past the target).
    private var pendingCut: Int64?
    /// Index of the next grid point (`origin + k × target`).
    private var nextIndex = 1
    /// The early first segment asked for (nil: none).
    private let firstSegment: EarlyFirstSegment?
    /// The keyframe interval the encoder stated in its first keyframe, seconds (nil: not stated, or no frame rate).
    public private(set) var statedInterval: Double?
    /// The early cut, ticks after `origin`, once scheduled and until taken.
    private var earlyCut: Int64?
    /// True once this session's first segment is cut early (so the segment after it starts without a keyframe
    /// unless the ladder forces one there).
    public private(set) var cutsFirstSegmentEarly = false
    /// True when the early cut is there only because the ladder bridges the first keyframe interval (a short GOP
    /// without B-frames, `EarlyFirstSegment.bridgesShortGOPs`): the top rendition must be encoded until the source's
    /// second keyframe.
    public private(set) var bridgesFirstKeyframeInterval = false

    /// The grid spacing and long-GOP threshold for a segment target: never under 2 s, the TARGETDURATION a 2 s keyframe
    /// interval (OBS's usual setting) gets anyway, so such a source keeps its keyframe-aligned passthrough.
    public static func gridTarget(forSegmentTarget target: Duration) -> Duration { max(target, .seconds(2)) }

    /// A cadence for a segment target and the source's nominal frame rate (nil: 30 fps assumed for half a frame).
    /// `trustsEncoderSettings` false ignores the encoder's stated keyint (an ingest that requests keyframes, WHIP).
    /// `firstSegment` asks for an early first cut when the encoder states its keyframe interval.
    public init(
        target: Duration,
        frameRate: Double?,
        trustsEncoderSettings: Bool = true,
        firstSegment: EarlyFirstSegment? = nil
    ) {
        self.trustsEncoderSettings = trustsEncoderSettings
        self.firstSegment = firstSegment
        self.target = Int64((target.secondsDouble * 90_000).rounded())
        let fps = frameRate.flatMap { $0 > 1 && $0 < 241 ? $0 : nil }
        self.frameRate = fps
        halfFrame = Int64((90_000 / (2 * (fps ?? 30))).rounded())
        lateness = max(halfFrame, 13_500)
    }

    /// Notes one source frame in decode order (90 kHz); returns the evidence when this frame revealed a long GOP.
    public mutating func observe(time: Int64, isKeyframe: Bool, data: [UInt8]) -> Evidence? {
        if origin == nil { origin = time }
        guard longGOP == nil else { return nil }
        var found: Evidence?
        if trustsEncoderSettings, isKeyframe, lastKeyframe == nil,
            let keyint = X264SettingsSEI.keyframeInterval(inAVCC: data)
        {
            // Without a stated rate assume 60 fps: the shortest interval that keyint could mean.
            let seconds = keyint == Int.max ? Double.infinity : Double(keyint) / (frameRate ?? 60)
            if seconds * 90_000 > Double(target + lateness) {
                found = .encoderSettings(keyint: keyint, seconds: seconds)
            }
            // Only a known rate turns keyint into seconds that TARGETDURATION can be decided from.
            if frameRate != nil || keyint == Int.max { statedInterval = seconds }
            if let first = firstSegment, time == origin, statedInterval != nil {
                // Bridged: the ladder encodes the top rendition until the second keyframe (no reordering to cross).
                let bFrames = X264SettingsSEI.bFrames(inAVCC: data)
                let bridged = found == nil && first.bridgesShortGOPs && bFrames == 0
                // B-frames start the pictures that many frames after the first decode time: the cut moves with them,
                // so the first segment holds `length` of pictures (a shorter one left hls.js waiting on audio).
                let length = first.lengthTicks + Int64(max(0, bFrames ?? 0)) * 2 * halfFrame
                if found != nil || first.evenWithShortGOPs || bridged, seconds * 90_000 > Double(length + halfFrame) {
                    earlyCut = length
                    cutsFirstSegmentEarly = true
                    bridgesFirstKeyframeInterval = bridged && !first.evenWithShortGOPs
                }
            }
        }
        if !isKeyframe, found == nil, let last = lastKeyframe, time - last >= target + lateness {
            found = .observed(secondsWithoutKeyframe: Double(time - last) / 90_000)
        }
        if isKeyframe { lastKeyframe = time }
        if let found {
            longGOP = found
            pendingCut = time
        }
        return found
    }

    /// Whether the frame or picture at `time` (90 kHz, same timeline as `observe`) opens a segment on the grid.
    /// Ask in increasing time order; false until a long GOP is known.
    public mutating func opensSegment(at time: Int64) -> Bool {
        guard let origin else { return false }
        var cut = false
        if let e = earlyCut, time - origin >= e - halfFrame {
            cut = true
            earlyCut = nil
        }
        guard longGOP != nil else { return cut }
        if let p = pendingCut, time >= p {
            cut = true
            pendingCut = nil
        }
        if time - origin >= Int64(nextIndex) * target - halfFrame { cut = true }
        if cut {
            // The next grid point after this frame (a late detection cut skips the point it passed).
            nextIndex = max(nextIndex, Int((time - origin + halfFrame) / target) + 1)
        }
        return cut
    }
}
