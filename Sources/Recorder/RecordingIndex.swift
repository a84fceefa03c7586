import MediaCore

/// The listing's index as a value: every recording by key and id, kept in listing order (first sample's time, key,
/// id) with its JSON row rendered when it changes, so `GET /api/recordings` copies rows instead of sorting and
/// encoding every recording per request.
struct RecordingIndex: Sendable {
    /// Listing order.
    struct Position: Sendable, Comparable, Hashable {
        var started: WallTime
        var key: String
        var id: String

        static func < (a: Position, b: Position) -> Bool { (a.started, a.key, a.id) < (b.started, b.key, b.id) }
    }

    private(set) var byKey: [String: [String: RecordingSummary]] = [:]
    /// Every recording's position, sorted; a key's, sorted, for per-key queries.
    private var ordered: [Position] = []
    private var orderedByKey: [String: [Position]] = [:]
    private var rows: [Position: String] = [:]
    /// Bytes over every recording.
    private(set) var totalBytes = 0

    /// Number of recordings.
    var count: Int { ordered.count }

    /// The recording `key/id`.
    func summary(key: String, id: String) -> RecordingSummary? { byKey[key]?[id] }

    /// Adds or updates a recording (its start never moves once written, but a recovered one may carry another).
    mutating func put(_ s: RecordingSummary) {
        if let old = byKey[s.key]?[s.id] { remove(old) }
        let p = Position(started: s.started, key: s.key, id: s.id)
        byKey[s.key, default: [:]][s.id] = s
        ordered.insert(p, at: Self.insertionPoint(of: p, in: ordered))
        orderedByKey[s.key, default: []].insert(p, at: Self.insertionPoint(of: p, in: orderedByKey[s.key] ?? []))
        rows[p] = s.jsonRow
        totalBytes += s.bytes
    }

    /// Removes a recording.
    mutating func remove(_ s: RecordingSummary) {
        guard let old = byKey[s.key]?.removeValue(forKey: s.id) else { return }
        if byKey[s.key]?.isEmpty == true { byKey[s.key] = nil }
        let p = Position(started: old.started, key: old.key, id: old.id)
        let i = Self.insertionPoint(of: p, in: ordered)
        if i < ordered.count && ordered[i] == p { ordered.remove(at: i) }
        if var mine = orderedByKey[s.key] {
            let j = Self.insertionPoint(of: p, in: mine)
            if j < mine.count && mine[j] == p { mine.remove(at: j) }
            orderedByKey[s.key] = mine.isEmpty ? nil : mine
        }
        rows[p] = nil
        totalBytes -= old.bytes
    }

    /// A page of the listing: recordings of `key` (or all) whose start lies in `from...to`, after the recording
    /// `after` (`key/id`, the previous page's last), at most `limit`; and whether more follow.
    func page(
        key: String?,
        from: WallTime?,
        to: WallTime?,
        after: Position?,
        limit: Int?
    ) -> (rows: [String], more: Bool) {
        let source = key.map { orderedByKey[$0] ?? [] } ?? ordered
        var i = 0
        if let from { i = Self.insertionPoint(of: Position(started: from, key: "", id: ""), in: source) }
        if let after { i = max(i, Self.insertionPoint(of: after, in: source, strictlyAfter: true)) }
        var out: [String] = []
        let cap = limit ?? .max
        while i < source.count {
            let p = source[i]
            if let to, p.started > to { break }
            if out.count == cap { return (out, true) }
            if let row = rows[p] { out.append(row) }
            i += 1
        }
        return (out, false)
    }

    /// Summaries in listing order (retention walks them oldest first).
    func all(key: String? = nil) -> [RecordingSummary] {
        (key.map { orderedByKey[$0] ?? [] } ?? ordered).compactMap { byKey[$0.key]?[$0.id] }
    }

    /// The position of `key/id` (a page cursor), if listed.
    func position(key: String, id: String) -> Position? {
        byKey[key]?[id].map { Position(started: $0.started, key: key, id: id) }
    }

    /// First index whose element is not below `p` (or, `strictlyAfter`, above it).
    static func insertionPoint(of p: Position, in a: [Position], strictlyAfter: Bool = false) -> Int {
        var lo = 0
        var hi = a.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if a[mid] < p || (strictlyAfter && a[mid] == p) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}

extension RecordingSummary {
    /// Its row in `GET /api/recordings` (keys and ids are plain names: nothing to escape).
    public var jsonRow: String {
        """
        {"key":"\(key)","id":"\(id)","started":"\(started.iso8601)","seconds":\(duration.secondsDouble),\
        "bytes":\(bytes),"finished":\(finished),"url":"/vod/\(key)/\(id)/index.m3u8","mp4":"/vod/\(key)/\(id).mp4"}
        """
    }
}
