import Foundation

/// ffprobe readings for the media tests (real peers, not mocks); running tools is `ExternalTool`.
public enum ToolRunner {
    /// Packet counts per stream type from `ffprobe -count_packets`.
    public static func packetCounts(_ path: String) throws -> [String: Int] {
        let (_, out) = try ExternalTool.run(
            "ffprobe",
            [
                "-v", "error", "-count_packets", "-show_entries", "stream=codec_type,nb_read_packets", "-of", "csv=p=0",
                path,
            ]
        )
        var counts: [String: Int] = [:]
        for line in out.split(separator: "\n") {
            let parts = line.split(separator: ",")
            if parts.count == 2, let n = Int(parts[1]) { counts[String(parts[0]), default: 0] += n }
        }
        return counts
    }

    /// `codec_name,width,height` (video) and `codec_name` (audio) lines from ffprobe.
    public static func streams(_ path: String) throws -> [String] {
        let (_, out) = try ExternalTool.run(
            "ffprobe",
            ["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", path]
        )
        return out.split(separator: "\n").map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: ", ")) }
    }
}
