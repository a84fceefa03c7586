import CodecFormats
import MediaCore

/// The decoder thread's bookkeeping: which pts were source keyframes, their stamps, and which rungs must resync.
struct LadderFanOut {
    private var keyframes: Set<Int64> = []
    private var stamps: [Int64: HopStamps] = [:]
    private var waitingForKeyframe: [Bool]
    /// Rungs waiting for their first IDR (new, or fed again after being shed): joining, not behind.
    private var joining: Set<Int> = []
    /// Rungs shed under load: they get no pictures until enabled again.
    private var disabled: Set<Int> = []
    private var first = true
    /// The source's keyframe cadence: once its interval exceeds the segment target, IDRs go on the segment grid.
    private(set) var cadence: KeyframeCadence?

    /// A fan-out for `rungCount` rungs; with a `cadence`, a long-GOP source gets IDRs on the packager's grid.
    init(rungCount: Int, cadence: KeyframeCadence? = nil) {
        waitingForKeyframe = Array(repeating: false, count: rungCount)
        self.cadence = cadence
    }

    /// True once the source's keyframes are known to be further apart than the segment target.
    var onGrid: Bool { cadence?.longGOP != nil }

    /// Remembers a source access unit's keyframe flag and stamps by its pts (units in decode order).
    mutating func note(_ unit: MediaFrame) {
        let pts = unit.pts.converted(to: 90_000).value
        _ = cadence?.observe(time: unit.dts.converted(to: 90_000).value, isKeyframe: unit.isKeyframe, data: unit.data)
        if unit.isKeyframe { keyframes.insert(pts) }
        stamps[pts] = unit.stamps
    }

    /// Whether the picture at `pts` starts a new GOP in every rung, and the stamps of its access unit.
    mutating func take(_ pts: Int64) -> (forceIDR: Bool, stamps: HopStamps) {
        let sourceKeyframe = keyframes.remove(pts) != nil
        // Pictures are asked in presentation order, the packager's frames in decode order: on the same grid,
        // the pts series of a constant-rate source holds the same times as its dts series.
        let gridPoint = cadence?.opensSegment(at: pts) ?? false
        // A source keyframe (or the grid once the GOP is long), the early first cut, or the first picture (each rung
        // starts on an IDR).
        let forceIDR = gridPoint || (!onGrid && sourceKeyframe) || first
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
        if disabled.contains(i) { return false }
        if forceIDR {
            waitingForKeyframe[i] = false
            joining.remove(i)
        }
        return !waitingForKeyframe[i]
    }

    /// Rung `i` lost a picture; it skips until the next source keyframe so IDRs stay aligned across rungs.
    mutating func dropped(rung i: Int) {
        waitingForKeyframe[i] = true
        joining.remove(i)
    }

    /// True while rung `i` skips to its next IDR after losing a picture (it fell behind).
    func isSkipping(rung i: Int) -> Bool { waitingForKeyframe[i] && !joining.contains(i) }

    /// Stops feeding rung `i` (shed), or feeds it again from the next IDR, aligned with the others.
    mutating func setEnabled(_ enabled: Bool, rung i: Int) {
        if enabled {
            guard disabled.remove(i) != nil else { return }
            waitingForKeyframe[i] = true
            joining.insert(i)
        } else {
            disabled.insert(i)
        }
    }

    /// True while rung `i` is shed.
    func isDisabled(rung i: Int) -> Bool { disabled.contains(i) }

    /// A rung joined the running ladder: it starts at the next IDR, aligned with the others.
    mutating func addRung() {
        joining.insert(waitingForKeyframe.count)
        waitingForKeyframe.append(true)
    }
}
