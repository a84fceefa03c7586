import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A throwaway `redis-server` (Debian's 7.0) on a free loopback port, no persistence, for the Redis client's and
/// the registry's tests. Installed by `make deps` (the Makefile's APT_PACKAGES).
///
/// A missing redis-server fails the tests that need it, loudly; `SLUICE_SKIP_REDIS_TESTS=1` skips them instead,
/// with the reason printed (`RedisServer.enabled`).
public final class RedisServer: Sendable {
    /// Why a server could not be started.
    public enum Failure: Error, CustomStringConvertible {
        case notInstalled
        case didNotStart(port: Int, log: String)

        public var description: String {
            switch self {
            case .notInstalled:
                "redis-server is not installed: run `make deps` (apt-get install redis-server), "
                    + "or set SLUICE_SKIP_REDIS_TESTS=1 to skip the tests that need it"
            case .didNotStart(let port, let log): "redis-server did not start on port \(port): \(log)"
            }
        }
    }

    /// The environment variable that turns a missing redis-server into skipped tests.
    public static let skipVariable = "SLUICE_SKIP_REDIS_TESTS"

    /// False only when redis-server is missing and `SLUICE_SKIP_REDIS_TESTS=1`: use as
    /// `.enabled(if: RedisServer.enabled, RedisServer.skipReason)`.
    public static let enabled: Bool =
        ExternalTool.find("redis-server") != nil || ProcessInfo.processInfo.environment[skipVariable] != "1"

    /// The reason printed for a skipped test.
    public static let skipReason = "redis-server is not installed and \(skipVariable)=1: skipped"

    /// The TCP port on 127.0.0.1.
    public let port: Int
    /// Extra `redis-server` arguments (`--requirepass x`).
    public let arguments: [String]
    private let directory: URL
    private let process = Mutex<Process?>(nil)

    /// `redis://127.0.0.1:<port>`.
    public var url: String { "redis://127.0.0.1:\(port)" }

    /// Starts a server on a free port (a few ports are tried if one is taken meanwhile).
    public static func start(arguments: [String] = []) throws -> RedisServer {
        guard ExternalTool.find("redis-server") != nil else { throw Failure.notInstalled }
        var lastError: (any Error)?
        for _ in 0..<3 {
            let server = try RedisServer(port: ExternalTool.freePort(), arguments: arguments)
            do {
                try server.restart()
                return server
            } catch {
                lastError = error
                server.stop()
            }
        }
        throw lastError ?? Failure.didNotStart(port: 0, log: "")
    }

    private init(port: Int, arguments: [String]) throws {
        self.port = port
        self.arguments = arguments
        self.directory = try ExternalTool.temporaryDirectory(prefix: "redis")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// (Re)starts the server on the same port, empty, and waits until it accepts connections.
    public func restart() throws {
        stop()
        let pidFile = directory.appendingPathComponent("redis.pid")
        let log = directory.appendingPathComponent("redis.log")
        try? FileManager.default.removeItem(at: pidFile)
        // `timeout` bounds the server's life should the test process crash before stopping it.
        let started = try ExternalTool.start(
            "timeout",
            [
                "-s", "KILL", "900", ExternalTool.path(of: "redis-server"), "--port", String(port), "--bind",
                "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", directory.path, "--pidfile", pidFile.path,
                "--logfile", log.path,
            ] + arguments
        )
        process.withLock { $0 = started }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if Self.accepts(port: port), redisPID != nil { return }
            guard started.isRunning else { break }
            usleep(20_000)
        }
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        throw Failure.didNotStart(port: port, log: String(text.suffix(600)))
    }

    /// Kills the server (SIGKILL: what a crash looks like to clients) and waits for it to exit.
    public func stop() {
        guard
            let running = process.withLock({ p -> Process? in
                defer { p = nil }
                return p
            })
        else { return }
        if let pid = redisPID { kill(pid, SIGKILL) }
        if running.isRunning { running.terminate() }
        running.waitUntilExit()
    }

    /// Freezes the server (SIGSTOP): connections stay open but nothing answers.
    public func pause() {
        if let pid = redisPID { kill(pid, SIGSTOP) }
    }

    /// Thaws a paused server (SIGCONT).
    public func resume() {
        if let pid = redisPID { kill(pid, SIGCONT) }
    }

    /// The redis-server process id, from its pid file.
    private var redisPID: pid_t? {
        let text = try? String(contentsOf: directory.appendingPathComponent("redis.pid"), encoding: .utf8)
        return text.flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Whether a TCP connect to 127.0.0.1:`port` succeeds.
    private static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
