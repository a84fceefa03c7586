import Foundation
import MediaCore

/// `record.max_age_h` and `record.max_size_mb`: the oldest recordings go first, never one being written.
extension Recorder {
    /// Removes what the limits no longer allow; `writing` holds `key/id` of the recordings still growing.
    func enforceRetention(writing: Set<String>, now: WallTime = .now()) {
        guard configuration.maxAge != nil || configuration.maxBytes != nil else { return }
        let all = recordings()
        var total = all.reduce(0) { $0 + $1.bytes }
        for r in all where !writing.contains("\(r.key)/\(r.id)") {
            let tooOld = configuration.maxAge.map { now.duration(since: r.started) > $0 } ?? false
            let tooBig = configuration.maxBytes.map { total > $0 } ?? false
            guard tooOld || tooBig else { continue }
            remove(r, because: tooOld ? "older than record.max_age_h" : "over record.max_size_mb")
            total -= r.bytes
        }
    }

    private func remove(_ r: RecordingSummary, because reason: String) {
        let dir = URL(fileURLWithPath: configuration.directory).appendingPathComponent(r.key)
            .appendingPathComponent(r.id)
        do {
            try FileManager.default.removeItem(at: dir)
            forget(r)
            logRemoved(r, reason: reason)
        } catch {
            logRemoved(r, reason: "\(reason); removal failed: \(error)")
        }
    }
}
