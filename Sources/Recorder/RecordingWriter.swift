import Foundation
import LLHLSPackager
import MediaCore
import NIOCore

/// One recording's bookkeeping as a value: where each segment goes and what each playlist says. The `Recorder`
/// performs the file writes it returns, so the layout and playlist rules are testable without a disk.
struct RecordingWriter: Sendable {
    /// A file to write (relative to the recording's directory).
    struct FileWrite: Sendable, Equatable {
        var path: String
        var bytes: [UInt8]
        /// Write to a temporary name and rename: playlists, which readers must never see half-written.
        var atomic: Bool
    }

    let id: String
    private(set) var playlists: [String: VODPlaylist] = [:]
    private var initsWritten: Set<String> = []
    private var multivariant: String?
    /// Media recorded per rendition, kept as segments arrive (the summary reports the longest).
    private var recorded: [String: Duration] = [:]
    private(set) var summary: RecordingSummary

    init(key: String, id: String, started: WallTime) {
        self.id = id
        summary = RecordingSummary(key: key, id: id, started: started, duration: .zero, bytes: 0, finished: false)
    }

    /// The recording id for a stream life: its first sample's UTC time (sortable) and the live epoch (unique).
    static func id(started: WallTime, epoch: String) -> String {
        let iso = started.iso8601  // 2026-11-26T08:15:00.123Z
        let basic = iso.prefix(19).filter { $0 != "-" && $0 != ":" }
        return "\(basic)Z-\(epoch)"
    }

    /// The writes that record `segment`: its init section the first time, the segment, and the updated playlists.
    mutating func add(_ segment: PackagedSegment, multivariantFilter: (String) -> String?) -> [FileWrite] {
        let name = segment.rendition
        var out: [FileWrite] = []
        let initPath = "\(name)/\(MediaFileName.initSection(segment.initIndex))"
        if initsWritten.insert(initPath).inserted {
            out.append(FileWrite(path: initPath, bytes: segment.initSection, atomic: true))
        }
        let segPath = "\(name)/\(MediaFileName.segment(segment.msn))"
        out.append(FileWrite(path: segPath, bytes: Array(segment.data.readableBytesView), atomic: false))
        var p = playlists[name] ?? VODPlaylist()
        p.entries.append(
            VODPlaylist.Entry(
                uri: segPath,
                initURI: initPath,
                duration: segment.duration,
                programDateTime: segment.programDateTime,
                discontinuity: segment.discontinuity,
                independent: segment.independent
            )
        )
        playlists[name] = p
        out.append(FileWrite(path: "\(name).m3u8", bytes: Array(p.render().utf8), atomic: true))
        if let text = segment.multivariant.flatMap(multivariantFilter), text != multivariant {
            multivariant = text
            out.append(FileWrite(path: "index.m3u8", bytes: Array(text.utf8), atomic: true))
        }
        summary.bytes += segment.data.readableBytes + (out.first { $0.path == initPath }?.bytes.count ?? 0)
        recorded[name, default: .zero] += segment.duration.duration
        summary.duration = max(summary.duration, recorded[name] ?? .zero)
        return out
    }

    /// The writes that finish the recording: every playlist becomes VOD with EXT-X-ENDLIST.
    mutating func finish() -> [FileWrite] {
        summary.finished = true
        return playlists.keys.sorted().map { name in
            playlists[name]?.finished = true
            return FileWrite(path: "\(name).m3u8", bytes: Array((playlists[name]?.render() ?? "").utf8), atomic: true)
        }
    }

    /// The live multivariant with only the recorded renditions (variant URIs are rendition names + `.m3u8`).
    static func filter(multivariant text: String, keeping records: (String) -> Bool) -> String? {
        var out: [String] = []
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)[...]
        var variants = 0
        while let line = lines.popFirst() {
            if line.hasPrefix("#EXT-X-STREAM-INF") {
                guard let uri = lines.popFirst() else { break }
                if records(String(uri.dropLast(".m3u8".count))) {
                    out += [line, uri]
                    variants += 1
                }
            } else if line.hasPrefix("#EXT-X-MEDIA:"), let r = line.range(of: "URI=\"") {
                let uri = line[r.upperBound...].prefix { $0 != "\"" }
                if records(String(uri.dropLast(".m3u8".count))) { out.append(line) }
            } else {
                out.append(line)
            }
        }
        return variants > 0 ? out.joined(separator: "\n") : nil
    }
}
