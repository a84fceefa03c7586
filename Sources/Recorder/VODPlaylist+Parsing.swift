import Foundation
import HLSPlaylist
import MediaCore

/// RFC 8216bis §4.4.4.1 (EXTINF), §4.4.4.3 (EXT-X-DISCONTINUITY), §4.4.4.5 (EXT-X-MAP), §4.4.4.6
/// (EXT-X-PROGRAM-DATE-TIME): a recorded playlist read back (what `render()` writes), so a time range of a
/// recording can be cut from its segment list on disk.
extension VODPlaylist {
    /// The playlist in `text`; nil when it is not one (no `#EXTM3U`, a segment before its EXTINF or EXT-X-MAP, an
    /// EXTINF that is not a non-negative decimal). Unknown tags are skipped.
    init?(parsing text: String) {
        let lines = text.split(omittingEmptySubsequences: true) { $0.isNewline }
        guard lines.first == "#EXTM3U" else { return nil }
        var entries: [Entry] = []
        var independentAll = false
        var finished = false
        var map: String?
        var pending: (duration: MediaTime?, date: WallTime?, discontinuity: Bool) = (nil, nil, false)
        for line in lines.dropFirst() {
            if line.hasPrefix("#EXTINF:") {
                let value = line.dropFirst("#EXTINF:".count).prefix { $0 != "," }
                guard let seconds = Double(value), seconds.isFinite, seconds >= 0, seconds < 1e6 else { return nil }
                pending.duration = MediaTime(value: Int64((seconds * 100_000).rounded()), timescale: 100_000)
            } else if line.hasPrefix("#EXT-X-MAP:") {
                guard let r = line.range(of: "URI=\"") else { return nil }
                map = String(line[r.upperBound...].prefix { $0 != "\"" })
            } else if line.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") {
                pending.date = WallTime(iso8601: line.dropFirst("#EXT-X-PROGRAM-DATE-TIME:".count))
            } else if line == "#EXT-X-DISCONTINUITY" {
                pending.discontinuity = true
            } else if line == "#EXT-X-INDEPENDENT-SEGMENTS" {
                independentAll = true
            } else if line == "#EXT-X-ENDLIST" {
                finished = true
            } else if !line.hasPrefix("#") {
                guard let duration = pending.duration, let map else { return nil }
                entries.append(
                    Entry(
                        uri: String(line),
                        initURI: map,
                        duration: duration,
                        programDateTime: pending.date ?? WallTime(millisecondsSince1970: 0),
                        discontinuity: pending.discontinuity,
                        independent: independentAll
                    )
                )
                pending = (nil, nil, false)
            }
        }
        for i in entries.indices { entries[i].independent = independentAll }
        self.init(entries: entries, finished: finished)
    }

    /// Where each entry starts, in seconds from the first.
    var offsets: [Double] {
        var t = 0.0
        return entries.map { e in
            defer { t += e.duration.seconds }
            return t
        }
    }
}
