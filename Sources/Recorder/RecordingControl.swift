import MediaCore

/// Which segments of which live stream go to which recording, as a value: `record.enabled` records every stream life
/// from its first segment; `POST /api/streams/{key}/recording` starts or stops one for the rest of the stream life.
///
/// Renditions stay aligned: a recording started through the API begins at the segment after the highest MSN any
/// rendition of the stream has completed, and a stopped one keeps what every rendition completes up to the highest
/// MSN seen at the stop (a lagging audio segment of the same MSN still lands), then finishes.
struct RecordingControl: Sendable {
    /// What to do with one segment.
    struct Decision: Sendable, Equatable {
        /// The recording it goes to (nil: not recorded).
        var recording: String?
        /// Recordings to finish (as VOD) after it.
        var finish: [String] = []
        /// Its stream life had ended already: it would reopen a finished life, so it is not recorded.
        var afterEnd = false
    }

    /// A recording taking segments of a stream.
    struct Open: Sendable, Equatable {
        var id: String
        /// First MSN it takes (nil: from the stream life's first segment).
        var fromMSN: Int?
        /// Set by a stop: it takes MSNs below this one, then finishes.
        var untilMSN: Int?
        /// Highest MSN taken per rendition.
        var taken: [String: Int] = [:]
    }

    /// One live stream as the recorder sees it.
    struct Live: Sendable, Equatable {
        /// The stream life (nil: started through the API before its first segment arrived).
        var epoch: String?
        /// Highest MSN completed by any rendition.
        var highestMSN: Int?
        /// The recording taking new segments.
        var current: Open?
        /// Stopped recordings still waiting for lagging renditions.
        var closing: [Open] = []
        /// The API said stop: `record.enabled` no longer records this stream life.
        var stoppedByAPI = false
    }

    /// `record.enabled`: every stream life is recorded unless the API stopped it.
    let automatic: Bool
    private(set) var streams: [String: Live] = [:]
    /// The last stream life that ended per key.
    private var endedEpochs: [String: String] = [:]

    init(automatic: Bool) { self.automatic = automatic }

    /// Whether the recorder has seen segments of `key` in a stream life that has not ended.
    func knows(_ key: String) -> Bool { streams[key] != nil }

    /// The recording `segment` belongs to; `id` names a recording `record.enabled` opens at a life's first segment.
    mutating func segment(key: String, epoch: String, rendition: String, msn: Int, id: () -> String) -> Decision {
        if endedEpochs[key] == epoch { return Decision(afterEnd: true) }
        var out = Decision()
        if let old = streams[key], let seen = old.epoch, seen != epoch {
            out.finish = ended(key: key)  // A new life without the old one's end notice: close the old one.
        }
        var live = streams[key] ?? Live(epoch: epoch)
        live.epoch = epoch
        defer { streams[key] = live }
        if live.current == nil && automatic && !live.stoppedByAPI && live.highestMSN == nil {
            live.current = Open(id: id())
        }
        live.highestMSN = max(live.highestMSN ?? msn, msn)
        if var open = live.current, msn >= open.fromMSN ?? .min {
            open.taken[rendition] = max(open.taken[rendition] ?? msn, msn)
            live.current = open
            out.recording = open.id
        }
        for i in live.closing.indices {
            let until = live.closing[i].untilMSN ?? 0
            if msn < until && msn >= live.closing[i].fromMSN ?? .min && out.recording == nil {
                live.closing[i].taken[rendition] = max(live.closing[i].taken[rendition] ?? msn, msn)
                out.recording = live.closing[i].id
            } else if msn >= until {
                live.closing[i].taken[rendition] = max(live.closing[i].taken[rendition] ?? msn, until - 1)
            }
        }
        let (done, waiting) = split(live.closing)
        live.closing = waiting
        out.finish += done
        return out
    }

    /// `POST …?action=start`: the recording id, or why not (not live, already recording).
    mutating func start(key: String, publishing: Bool, id: String) throws(RecorderError) -> String {
        guard var live = streams[key] ?? (publishing ? Live(epoch: nil) : nil) else { throw .notLive(key) }
        if let open = live.current { throw .alreadyRecording(key: key, id: open.id) }
        live.current = Open(id: id, fromMSN: live.highestMSN.map { $0 + 1 })
        live.stoppedByAPI = false
        streams[key] = live
        return id
    }

    /// `POST …?action=stop`: the recording stopped and the ids to finish now (others finish when their lagging
    /// renditions have caught up to the stop).
    mutating func stop(key: String, publishing: Bool) throws(RecorderError) -> (id: String, finish: [String]) {
        guard var live = streams[key] else {
            throw publishing ? .notRecording(key) : .notLive(key)
        }
        guard var open = live.current else { throw .notRecording(key) }
        open.untilMSN = (live.highestMSN ?? -1) + 1
        live.current = nil
        live.stoppedByAPI = true
        live.closing.append(open)
        let (done, waiting) = split(live.closing)
        live.closing = waiting
        streams[key] = live
        return (open.id, done)
    }

    /// The stream life ended (after the reconnect grace): every recording of it finishes; the next life starts
    /// afresh under `record.enabled`.
    mutating func ended(key: String) -> [String] {
        guard let live = streams.removeValue(forKey: key) else { return [] }
        endedEpochs[key] = live.epoch
        return (live.current.map { [$0.id] } ?? []) + live.closing.map(\.id)
    }

    /// The recording taking segments of `key` now, if any.
    func current(_ key: String) -> String? { streams[key]?.current?.id }

    /// Closing recordings whose every rendition reached the stop (or that took nothing), and the rest.
    private func split(_ closing: [Open]) -> (done: [String], waiting: [Open]) {
        var done: [String] = []
        var waiting: [Open] = []
        for open in closing {
            let until = open.untilMSN ?? 0
            if open.taken.values.allSatisfy({ $0 >= until - 1 }) { done.append(open.id) } else { waiting.append(open) }
        }
        return (done, waiting)
    }
}
