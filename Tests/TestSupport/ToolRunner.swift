import Foundation

/// ffprobe readings for the media tests (real peers, not mocks); running tools is `ExternalTool`.
public enum ToolRunner {
    /// Packet counts per stream type from `ffprobe -count_packets`; each stream once (a transport stream lists its
    /// streams again under their program).
    public static func packetCounts(_ path: String) throws -> [String: Int] {
        let (_, out) = try ExternalTool.run(
            "ffprobe",
            [
                "-v", "error", "-count_packets", "-show_entries", "stream=index,codec_type,nb_read_packets", "-of",
                "csv=p=0", path,
            ]
        )
        var perStream: [Int: (type: String, packets: Int)] = [:]
        for line in out.split(separator: "\n") {
            let parts = line.split(separator: ",")
            if parts.count == 3, let index = Int(parts[0]), let n = Int(parts[2]) {
                perStream[index] = (String(parts[1]), n)
            }
        }
        return perStream.values.reduce(into: [:]) { $0[$1.type, default: 0] += $1.packets }
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
