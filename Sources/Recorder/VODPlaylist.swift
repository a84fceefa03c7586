import HLSPlaylist
import MediaCore

/// A recorded rendition's media playlist (RFC 8216bis §4.4.3.5: EXT-X-PLAYLIST-TYPE). While the recording grows it
/// is an EVENT playlist (segments are only appended); finished, it is VOD with EXT-X-ENDLIST, so a recording is a
/// valid HLS presentation as it lies on disk even after a crash (recovery finishes what a crash left as EVENT).
struct VODPlaylist: Sendable, Equatable {
    /// One segment as listed.
    struct Entry: Sendable, Equatable {
        /// File name relative to the playlist (`video/12.m4s`), and its init section's (`video/init-1.mp4`).
        var uri: String
        var initURI: String
        /// Its length, and the wall clock of its first sample.
        var duration: MediaTime
        var programDateTime: WallTime
        var discontinuity: Bool
        /// Starts with a sync sample.
        var independent: Bool
    }

    var entries: [Entry] = []
    var finished = false

    /// The playlist text (version 7: EXT-X-MAP with fMP4 [S §4.4.4.5]).
    func render() -> String {
        // RFC 8216bis §4.4.3.1: every EXTINF, rounded to the nearest integer, is at most TARGETDURATION.
        let target = max(1, entries.map { Int($0.duration.seconds.rounded()) }.max() ?? 1)
        var out = [
            "#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(target)", "#EXT-X-MEDIA-SEQUENCE:0",
            "#EXT-X-PLAYLIST-TYPE:\(finished ? "VOD" : "EVENT")",
        ]
        if entries.allSatisfy(\.independent) { out.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        var lastInit: String?
        for e in entries {
            if e.discontinuity && lastInit != nil { out.append("#EXT-X-DISCONTINUITY") }
            if e.initURI != lastInit {
                out.append("#EXT-X-MAP:URI=\"\(e.initURI)\"")
                lastInit = e.initURI
            }
            out.append("#EXT-X-PROGRAM-DATE-TIME:\(e.programDateTime.iso8601)")
            out.append("#EXTINF:\(PlaylistDecimal.duration(e.duration)),")
            out.append(e.uri)
        }
        if finished { out.append("#EXT-X-ENDLIST") }
        return out.joined(separator: "\n") + "\n"
    }
}
