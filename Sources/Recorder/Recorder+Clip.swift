import FMP4
import Foundation
import LLHLSPackager
import MediaCore

/// `GET /vod/{key}/{recording}.mp4?start=&duration=`: a time range of a recording as one fragmented MP4, remuxed
/// from the recorded CMAF segments without decoding a sample.
extension Recorder {
    /// A cut: the file, and where it starts in the recording and how long it is (seconds).
    public struct Clip: Sendable {
        public var bytes: [UInt8]
        public var start: Double
        public var duration: Double
        /// The recording is finished (the same range always gives the same bytes).
        public var finished: Bool
    }

    /// The source video (and the audio when recorded) from the segment holding `start` (it begins with a keyframe,
    /// so the clip starts at the keyframe at or before `start`) to the one holding `start + duration` (clamped to the
    /// recording's end); a range that would cross a publisher reconnect (DISCONTINUITY) stops before it.
    public func clip(key: String, id: String, start: Double, duration: Double?) throws(RecorderError) -> Clip {
        _ = try RecordingName.checked(key)
        _ = try RecordingName.checked(id)
        guard let summary = recordings(key: key).first(where: { $0.id == id }) else { throw .notFound("\(key)/\(id)") }
        let dir = URL(fileURLWithPath: configuration.directory).appendingPathComponent(key).appendingPathComponent(id)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter {
            $0.hasSuffix(".m3u8") && $0 != "index.m3u8"
        }.sorted()
        guard let videoName = names.contains("video.m3u8") ? "video.m3u8" : names.first(where: { $0 != "audio.m3u8" })
        else { throw .notFound("\(key)/\(id): no video rendition recorded") }
        let video = try playlist(dir, videoName)
        let offsets = video.offsets
        let total = offsets.last.map { $0 + video.entries[video.entries.count - 1].duration.seconds } ?? 0
        guard start.isFinite, start >= 0 else { throw .rangeNotSatisfiable("start must be a number of seconds ≥ 0") }
        guard start < total else {
            throw .rangeNotSatisfiable("start \(start) s is at or past the recording's end (\(total) s)")
        }
        if let duration { guard duration.isFinite, duration > 0 else { throw .rangeNotSatisfiable("duration ≤ 0") } }
        let end = min(total, start + (duration ?? total))
        let first = offsets.lastIndex { $0 <= start } ?? 0
        var picked = [first]
        for i in (first + 1)..<video.entries.count where offsets[i] < end - 0.0005 {
            let e = video.entries[i]
            if e.discontinuity || e.initURI != video.entries[first].initURI { break }
            picked.append(i)
        }
        let msns = picked.compactMap { Self.msn(video.entries[$0].uri) }
        var tracks = [try track(dir, video.entries[first].initURI, picked.map { video.entries[$0].uri })]
        if videoName != "audio.m3u8", names.contains("audio.m3u8"), let lo = msns.first, let hi = msns.last {
            let audio = try playlist(dir, "audio.m3u8")
            let inRange = audio.entries.filter { e in Self.msn(e.uri).map { (lo...hi).contains($0) } ?? false }
            if let initURI = inRange.first?.initURI {
                tracks.append(try track(dir, initURI, inRange.prefix { $0.initURI == initURI }.map(\.uri)))
            }
        }
        do throws(FMP4Error) {
            let joined = try FragmentedClip.join(tracks)
            return Clip(
                bytes: joined.bytes,
                start: offsets[first],
                duration: joined.duration.secondsDouble,
                finished: summary.finished
            )
        } catch {
            throw .io(operation: "remux", path: "\(key)/\(id)", reason: "\(error)")
        }
    }

    private func playlist(_ dir: URL, _ name: String) throws(RecorderError) -> VODPlaylist {
        let url = dir.appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path),
            let p = VODPlaylist(parsing: String(decoding: data, as: UTF8.self)), !p.entries.isEmpty
        else { throw .notFound("\(url.path): no segments listed") }
        return p
    }

    private func track(_ dir: URL, _ initURI: String, _ uris: [String]) throws(RecorderError) -> FragmentedClip.Track {
        func read(_ uri: String) throws(RecorderError) -> [UInt8] {
            for part in uri.split(separator: "/") { _ = try RecordingName.checked(String(part)) }
            guard let data = FileManager.default.contents(atPath: dir.appendingPathComponent(uri).path) else {
                throw .notFound("\(dir.lastPathComponent)/\(uri)")
            }
            return Array(data)
        }
        var segments: [[UInt8]] = []
        for uri in uris { segments.append(try read(uri)) }
        return FragmentedClip.Track(initSection: try read(initURI), segments: segments)
    }

    /// The media sequence number in a recorded segment's name (`video/12.m4s` → 12).
    static func msn(_ uri: String) -> Int? {
        uri.split(separator: "/").last.flatMap { MediaFileName($0)?.msn }
    }
}
