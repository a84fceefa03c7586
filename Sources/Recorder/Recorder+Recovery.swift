import Foundation
import MediaCore

/// Start-up: the listing's index from one walk of the directory, and recordings a crash left growing finished.
extension Recorder {
    /// Walks `{directory}/{key}/{id}/` once: every recording goes into the index; an EVENT playlist without ENDLIST
    /// (the gateway died while writing it) becomes VOD with ENDLIST, so it plays as what was written. Called before
    /// the origin serves, so the first `/api/recordings` already lists what is on disk.
    public func recover() {
        let fm = FileManager.default
        let root = URL(fileURLWithPath: configuration.directory)
        let keys = (try? fm.contentsOfDirectory(atPath: root.path)) ?? []
        var finished = 0
        for key in keys where RecordingName.isValid(key) {
            let ids = (try? fm.contentsOfDirectory(atPath: root.appendingPathComponent(key).path)) ?? []
            for id in ids where RecordingName.isValid(id) {
                let dir = root.appendingPathComponent(key).appendingPathComponent(id)
                var longest: Duration = .zero
                var bytes = 0
                var started: WallTime?
                for name in (try? fm.contentsOfDirectory(atPath: dir.path)) ?? [] where name.hasSuffix(".m3u8") {
                    let url = dir.appendingPathComponent(name)
                    guard var text = try? String(contentsOf: url, encoding: .utf8) else { continue }
                    if name != "index.m3u8" {
                        longest = max(longest, Self.listedDuration(text))
                        started = started ?? Self.firstProgramDateTime(text)
                        if !text.contains("#EXT-X-ENDLIST") {
                            text = text.replacingOccurrences(
                                of: "#EXT-X-PLAYLIST-TYPE:EVENT",
                                with: "#EXT-X-PLAYLIST-TYPE:VOD"
                            )
                            text += "#EXT-X-ENDLIST\n"
                            try? Data(text.utf8).write(to: url, options: .atomic)
                            finished += 1
                        }
                    }
                }
                if let walker = fm.enumerator(atPath: dir.path) {
                    for case let file as String in walker {
                        let size = (try? fm.attributesOfItem(atPath: dir.appendingPathComponent(file).path))?[.size]
                        bytes += (size as? NSNumber)?.intValue ?? 0
                    }
                }
                let summary = RecordingSummary(
                    key: key,
                    id: id,
                    started: started ?? WallTime(millisecondsSince1970: 0),
                    duration: longest,
                    bytes: bytes,
                    finished: true
                )
                indexRecovered(summary)
            }
        }
        if finished > 0 { logFinishedAfterCrash(finished) }
    }

    /// Sum of a media playlist's EXTINF values.
    static func listedDuration(_ text: String) -> Duration {
        var ms: Int64 = 0
        for line in text.split(separator: "\n") where line.hasPrefix("#EXTINF:") {
            let value = line.dropFirst("#EXTINF:".count).prefix { $0 != "," }
            ms += Int64(((Double(value) ?? 0) * 1000).rounded())
        }
        return .milliseconds(ms)
    }

    /// The first EXT-X-PROGRAM-DATE-TIME of a playlist written by `VODPlaylist`.
    static func firstProgramDateTime(_ text: String) -> WallTime? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") })
        else { return nil }
        return WallTime(iso8601: line.dropFirst("#EXT-X-PROGRAM-DATE-TIME:".count))
    }
}
