import MediaCore

/// The decoder thread's bookkeeping: which pts were source keyframes, their stamps, and which rungs must resync.
struct LadderFanOut {
    private var keyframes: Set<Int64> = []
    private var stamps: [Int64: HopStamps] = [:]
    private var waitingForKeyframe: [Bool]
    private var first = true

    init(rungCount: Int) { waitingForKeyframe = Array(repeating: false, count: rungCount) }

    /// Remembers a source access unit's keyframe flag and stamps by its pts.
    mutating func note(_ unit: MediaFrame) {
        let pts = unit.pts.converted(to: 90_000).value
        if unit.isKeyframe { keyframes.insert(pts) }
        stamps[pts] = unit.stamps
    }

    /// Whether the picture at `pts` starts a new GOP in every rung, and the stamps of its access unit.
    mutating func take(_ pts: Int64) -> (forceIDR: Bool, stamps: HopStamps) {
        // A source keyframe, or the first picture of this ladder (each rung must start on an IDR).
        let forceIDR = keyframes.remove(pts) != nil || first
        first = false
        let s = stamps.removeValue(forKey: pts) ?? HopStamps()
        // Entries for pictures the decoder never produced (corrupt input) must not accumulate.
        if stamps.count > 512 {
            stamps = stamps.filter { $0.key > pts }
            keyframes = keyframes.filter { $0 > pts }
        }
        return (forceIDR, s)
    }

    /// True when rung `i` takes this picture: it is in sync, or the picture is an IDR it can resync on.
    mutating func accepts(rung i: Int, forceIDR: Bool) -> Bool {
        if forceIDR { waitingForKeyframe[i] = false }
        return !waitingForKeyframe[i]
    }

    /// Rung `i` lost a picture; it skips until the next source keyframe so IDRs stay aligned across rungs.
    mutating func dropped(rung i: Int) { waitingForKeyframe[i] = true }
}
