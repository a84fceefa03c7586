import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the ffmpeg/ffprobe CLIs for tests (real peers, not mocks).
enum ToolRunner {
    /// Runs `tool` with `arguments` to completion; returns exit status and stdout.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Starts `tool` without waiting.
    static func start(_ tool: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Packet counts per stream type from `ffprobe -count_packets`.
    static func packetCounts(_ path: String) throws -> [String: Int] {
        let (_, out) = try run(
            "ffprobe",
            ["-v", "error", "-count_packets", "-show_entries", "stream=codec_type,nb_read_packets", "-of", "csv=p=0", path])
        var counts: [String: Int] = [:]
        for line in out.split(separator: "\n") {
            let parts = line.split(separator: ",")
            if parts.count == 2, let n = Int(parts[1]) { counts[String(parts[0]), default: 0] += n }
        }
        return counts
    }

    /// `codec_name,width,height` (video) and `codec_name` (audio) lines from ffprobe.
    static func streams(_ path: String) throws -> [String] {
        let (_, out) = try run(
            "ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", path])
        return out.split(separator: "\n").map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: ", ")) }
    }

    /// A fresh temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-ffb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A TCP port that was free a moment ago (bound to 0 and released).
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) }
        }
        _ = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}
