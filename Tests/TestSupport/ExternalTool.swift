import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The real command-line peers the tests run (ffmpeg, ffprobe), scratch folders and loopback ports: one copy for
/// every test target.
public enum ExternalTool {
    /// The tool's full path from PATH; nil when it is not installed.
    public static func find(_ tool: String) -> String? {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return dirs.map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The tool's full path from PATH, else `/usr/bin/<tool>`.
    public static func path(of tool: String) -> String {
        // An absolute path (FFmpeg 9 inside imageio-ffmpeg) is taken as given.
        tool.hasPrefix("/") ? tool : find(tool) ?? "/usr/bin/\(tool)"
    }

    /// Runs `tool` to completion; its exit status, stdout and stderr.
    public static func runCapturing(
        _ tool: String,
        _ arguments: [String]
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path(of: tool))
        process.arguments = arguments
        let dir = try temporaryDirectory(prefix: "tool")
        defer { try? FileManager.default.removeItem(at: dir) }
        // Files, not pipes: a chatty tool cannot block on a full pipe buffer.
        let outURL = dir.appendingPathComponent("stdout")
        let errURL = dir.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return (
            process.terminationStatus, String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
        )
    }

    /// Runs `tool` to completion; its exit status and stdout (stderr discarded).
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let result = try runCapturing(tool, arguments)
        return (result.status, result.stdout)
    }

    /// Starts `tool` without waiting; its output is discarded.
    public static func start(_ tool: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path(of: tool))
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// A fresh temporary directory named `sluice-<prefix>-<uuid>`, removed by the caller.
    public static func temporaryDirectory(prefix: String = "test") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago (bound to 0 and released).
    public static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
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
