import MediaCore

/// The top rendition's first keyframe interval encoded at the source size, then the source's own frames
/// (`transcode.fast_start`): the early first segment needs an IDR at its cut in every listed rendition, and a
/// passthrough has none until its second keyframe, where the bridge hands over.
///
/// Pictures come out of the decoder in presentation order (the source has no B-frames, so also in decode order):
/// once one at or after the handover has come out, every picture before it has been handed to the bridge rung's
/// encoder, so the held source frames may follow without overtaking its encodes.
struct FirstKeyframeIntervalBridge: Sendable {
    /// How long after the first frame the early cut lies (90 kHz): a keyframe before it (an x264 scene cut) cannot
    /// take over, or the cut would fall inside the source's frames, between keyframes.
    let earlyCut: Int64
    /// Where the source's first keyframe after the early cut sits (90 kHz pts); nil until it comes.
    private(set) var handover: Int64?
    /// The first unit's pts: the early cut is measured from it.
    private var origin: Int64?
    /// A picture at or after the handover came out of the decoder: source frames go to the rung as they come.
    private(set) var handedOver = false
    /// A bridge whose handover is the source's first keyframe at least `earlyCut` (90 kHz) after its first frame.
    init(earlyCut: Int64) { self.earlyCut = earlyCut }

    /// Source frames at or after the handover, held until the decoder passes it.
    private(set) var held: [MediaFrame] = []
    /// The rung's queue refused a frame: the next source keyframe resumes it (a partial GOP cannot be decoded).
    private var awaitingKeyframe = false

    /// Notes one source access unit in decode order; returns the frames to send the rung now, as they are.
    mutating func note(_ unit: MediaFrame) -> [MediaFrame] {
        let pts = unit.pts.converted(to: 90_000).value
        guard let origin else {
            origin = pts
            return []
        }
        if handover == nil, unit.isKeyframe, pts - origin >= earlyCut { handover = pts }
        guard let handover, pts >= handover else { return [] }
        if awaitingKeyframe {
            guard unit.isKeyframe else { return [] }
            awaitingKeyframe = false
        }
        guard handedOver else {
            held.append(unit)
            return []
        }
        return [unit]
    }

    /// Whether the rung encodes the decoded picture at `pts` (before the handover), and the held source frames to send
    /// it now (the first picture at or after the handover releases them).
    mutating func picture(at pts: Int64) -> (encode: Bool, release: [MediaFrame]) {
        guard let handover, pts >= handover else { return (!handedOver, []) }
        guard !handedOver else { return (false, []) }
        handedOver = true
        defer { held = [] }
        return (false, held)
    }

    /// The rung refused a source frame: it skips to the next source keyframe.
    mutating func refused() {
        awaitingKeyframe = true
        held = []
    }

    /// The stream ends: whatever is held goes out.
    mutating func drain() -> [MediaFrame] {
        defer { held = [] }
        return handover == nil ? [] : held
    }
}
