import MediaCore

/// Merges per-track frame queues into one decode-ordered stream whose timestamps start at zero or later.
///
/// Encoders and demuxers emit negative decode times (B-frame delay, AAC priming); the interleaver
/// shifts every track by the same amount so the earliest decode time is zero and A/V sync holds.
struct FrameInterleaver {
    private var queues: [MediaKind: [MediaFrame]] = [:]
    private var heads: [MediaKind: Int] = [:]
    private var finished: Set<MediaKind> = []
    private let kinds: Set<MediaKind>
    private var shift: MediaTime?

    /// Interleaves the given tracks.
    init(kinds: Set<MediaKind>) {
        self.kinds = kinds
        for k in kinds {
            queues[k] = []
            heads[k] = 0
        }
    }

    /// Queues a frame of its kind (each kind must arrive in decode order).
    mutating func push(_ frame: MediaFrame) { queues[frame.kind, default: []].append(frame) }

    /// Marks a track as ended.
    mutating func finish(_ kind: MediaKind) { finished.insert(kind) }

    /// Forgets everything (for a rewind).
    mutating func reset() {
        self = FrameInterleaver(kinds: kinds)
    }

    private func count(_ k: MediaKind) -> Int { (queues[k]?.count ?? 0) - (heads[k] ?? 0) }
    private func head(_ k: MediaKind) -> MediaFrame? { count(k) > 0 ? queues[k]![heads[k]!] : nil }

    /// A track that must get more input before the next frame can be decided, or nil.
    var starving: MediaKind? {
        kinds.sorted { $0.rawValue > $1.rawValue }.first { count($0) == 0 && !finished.contains($0) }
    }

    /// True when every track ended and every queue is empty.
    var isDone: Bool { kinds.allSatisfy { finished.contains($0) && count($0) == 0 } }

    /// The earliest queued frame, once every live track has one queued.
    mutating func pop() -> MediaFrame? {
        guard starving == nil else { return nil }
        if shift == nil { shift = computeShift() }
        let ready = kinds.compactMap { k in head(k).map { (k, $0) } }
        guard let (kind, frame) = ready.min(by: { $0.1.dts < $1.1.dts }) else { return nil }
        heads[kind]! += 1
        if heads[kind]! > 256 {
            queues[kind]!.removeFirst(heads[kind]!)
            heads[kind] = 0
        }
        var out = frame
        if let shift, shift.value > 0 { out.dts = out.dts + shift }
        return out
    }

    /// The amount that brings the most negative first decode time to zero.
    private func computeShift() -> MediaTime {
        var best = MediaTime.zero(timescale: 90_000)
        for k in kinds {
            guard let first = head(k) else { continue }
            let lead = MediaTime(value: -first.dts.value, timescale: first.dts.timescale)
            if lead > best { best = lead }
        }
        return best
    }
}
