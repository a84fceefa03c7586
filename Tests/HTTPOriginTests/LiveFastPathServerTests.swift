import Foundation
import HTTPOrigin
import Logging
import MediaCore
import StreamHub
import Synchronization
import Testing

@testable import HTTPOrigin
@testable import LLHLSPackager

/// The fast path on a real socket with curl (nghttp2) as the client: HTTP/1.1 and h2c both answered by it, the
/// same bytes and fields as the router, and blocking reloads parked and woken by the part they wait for.
@Suite("Origin fast path over sockets", .serialized)
struct LiveFastPathServerTests {
    /// What curl got.
    struct Fetched: Sendable {
        var version: String
        var status: Int
        var headers: [String: String]
        var body: Data
    }

    /// Serves the fixture's stream on a free port, with or without the fast path.
    static func withServer(
        fastPath: Bool = true,
        access: OriginAccess = .init(),
        _ body: @Sendable (OriginFixture, Int, LiveFastPath?) async throws -> Void
    ) async throws {
        let fixture = try await OriginFixture()
        var options = HTTPOriginOptions()
        options.fastPath = fastPath
        options.access = access
        let bound = Mutex<Int?>(nil)
        let service = HTTPOriginService(
            packager: fixture.packager,
            host: "127.0.0.1",
            port: 0,
            logger: Logger(label: "fast-path-test"),
            options: options,
            onBound: { port in bound.withLock { $0 = port } }
        )
        let run = Task { try await service.run() }
        do {
            try await OriginFixture.eventually { bound.withLock { $0 } != nil }
            try await body(fixture, bound.withLock { $0 } ?? 0, service.fastPath)
        } catch {
            run.cancel()
            _ = await run.result
            await fixture.stop()
            throw error
        }
        run.cancel()
        _ = await run.result
        await fixture.stop()
    }

    /// `curl` with `protocolFlag` (`--http1.1` or `--http2-prior-knowledge`).
    static func curl(_ url: String, _ protocolFlag: String) async throws -> Fetched {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fastpath-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let headerFile = dir.appendingPathComponent("h")
        let bodyFile = dir.appendingPathComponent("b")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = [
            "-s", protocolFlag, "--max-time", "10", "-D", headerFile.path, "-o", bodyFile.path, "-w",
            "%{http_version}", url,
        ]
        let out = Pipe()
        process.standardOutput = out
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in c.resume() }
            do { try process.run() } catch { c.resume(throwing: error) }
        }
        let version = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let lines = String(decoding: (try? Data(contentsOf: headerFile)) ?? Data(), as: UTF8.self)
            .split(separator: "\r\n")
        let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces
            )
        }
        return Fetched(
            version: version,
            status: status,
            headers: headers,
            body: (try? Data(contentsOf: bodyFile)) ?? Data()
        )
    }

    static let protocols = [("--http1.1", "1.1"), ("--http2-prior-knowledge", "2")]

    @Test func http11AndHTTP2AreBothAnsweredByTheFastPath() async throws {
        try await Self.withServer { fixture, port, fastPath in
            let fastPath = try #require(fastPath)
            let epoch = try await fixture.epoch()
            let base = "http://127.0.0.1:\(port)/live/demo"
            let part = "\(base)/\(epoch)/video/\(PublishedRendition.firstMSN).0.m4s"
            for (flag, version) in Self.protocols {
                let before = fastPath.answered.total
                let playlist = try await Self.curl("\(base)/video.m3u8", flag)
                let media = try await Self.curl(part, flag)
                #expect(playlist.version == version && media.version == version)
                #expect(playlist.status == 200 && media.status == 200)
                #expect(String(decoding: playlist.body, as: UTF8.self).hasPrefix("#EXTM3U\n"))
                #expect(media.headers["x-sluice-published"] != nil)
                #expect(fastPath.answered.total == before + 2, "\(flag)")
            }
        }
    }

    /// What curl saw for each URL, served with the fast path on and then off: status, the router's fields, body.
    static func answersOnAndOff(
        access: OriginAccess = .init(),
        _ urls: @escaping @Sendable (Int, String) -> [String]
    ) async throws -> [[String]] {
        let answers = Mutex<[[String]]>([])
        for fast in [true, false] {
            try await Self.withServer(fastPath: fast, access: access) { fixture, port, _ in
                let epoch = try await fixture.epoch()
                var seen: [String] = []
                for url in urls(port, epoch) {
                    let r = try await Self.curl(url, "--http1.1")
                    let fields = [
                        "content-type", "cache-control", "access-control-allow-origin",
                        "access-control-expose-headers", "content-length", "server",
                    ]
                    .map { "\($0)=\(r.headers[$0] ?? "-")" }
                    // Each server has its own epoch, and an expired token's refusal states the clock's second: both
                    // named alike here (the two runs may straddle a second).
                    let body =
                        r.body.count > 2_000
                        ? "\(r.body.count) bytes"
                        : String(decoding: r.body, as: UTF8.self).replacingOccurrences(of: epoch, with: "{epoch}")
                            .replacing(/\(now \d+\)/, with: "(now {now})")
                    seen.append("\(r.status) \(fields) published:\(r.headers["x-sluice-published"] != nil) \(body)")
                }
                answers.withLock { $0.append(seen) }
            }
        }
        return answers.withLock { $0 }
    }

    @Test func theFastPathAnswersWhatTheRouterAnswers() async throws {
        let both = try await Self.answersOnAndOff { port, epoch in
            let base = "http://127.0.0.1:\(port)/live/demo"
            return [
                "\(base)/video.m3u8", "\(base)/audio.m3u8?_HLS_skip=YES",
                "\(base)/video.m3u8?_HLS_msn=\(PublishedRendition.firstMSN)",
                "\(base)/\(epoch)/video/init-0.mp4", "\(base)/\(epoch)/audio/\(PublishedRendition.firstMSN).1.m4s",
                "\(base)/\(epoch)/video/\(PublishedRendition.firstMSN).m4s", "\(base)/\(epoch)/video/99.0.m4s",
                "\(base)/other/video/\(PublishedRendition.firstMSN).0.m4s", "\(base)/video.m3u8?_HLS_msn=999",
            ]
        }
        #expect(both.count == 2 && both[0] == both[1], "\(both)")
    }

    @Test func viewerTokenPathsAreAnsweredAsTheRouterAnswersThem() async throws {
        var access = OriginAccess()
        access.viewerSecret = "v1"
        let now = WallTime.now().nanosecondsSince1970 / 1_000_000_000
        let token = SignedToken.viewerToken(key: "demo", expiry: now + 600, secret: "v1")
        let late = SignedToken.viewerToken(key: "demo", expiry: now - 5, secret: "v1")
        let both = try await Self.answersOnAndOff(access: access) { port, epoch in
            let origin = "http://127.0.0.1:\(port)"
            let part = "\(epoch)/video/\(PublishedRendition.firstMSN).0.m4s"
            return [
                "\(origin)/t/\(token)/live/demo/video.m3u8", "\(origin)/t/\(token)/live/demo/\(part)",
                "\(origin)/t/\(token)/live/demo/audio.m3u8?_HLS_msn=\(PublishedRendition.firstMSN)",
                "\(origin)/live/demo/video.m3u8", "\(origin)/t/\(late)/live/demo/\(part)",
                "\(origin)/t/\(token)/live/other/video.m3u8",
            ]
        }
        #expect(both.count == 2 && both[0] == both[1], "\(both)")
        #expect(both.first?.map { $0.prefix(3) } == ["200", "200", "200", "403", "403", "403"])
    }

    @Test func oneKeepAliveConnectionCarriesFastAndRouterAnswersInTurn() async throws {
        try await Self.withServer { fixture, port, fastPath in
            let fastPath = try #require(fastPath)
            let epoch = try await fixture.epoch()
            let base = "http://127.0.0.1:\(port)/live/demo"
            // Router answers (the multivariant, a 404) between fast-path ones, all on one HTTP/1.1 connection.
            let urls = [
                "\(base)/\(epoch)/video/\(PublishedRendition.firstMSN).0.m4s", "\(base)/index.m3u8",
                "\(base)/video.m3u8", "http://127.0.0.1:\(port)/nosuch", "\(base)/audio.m3u8",
            ]
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            process.arguments =
                ["-s", "--http1.1", "--max-time", "10", "-w", "%{http_code} %{num_connects} %{size_download}\\n"]
                + urls.flatMap { ["-o", "/dev/null", $0] }
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            process.waitUntilExit()
            let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
            #expect(lines.map { $0.first } == ["200", "200", "200", "404", "200"])
            // One connection for all five: every answer ended where its length said.
            #expect(lines.map { $0.dropFirst().first } == ["1", "0", "0", "0", "0"])
            #expect(lines.count == 5 && [0, 2, 4].allSatisfy { Int(lines[$0].last ?? "") ?? 0 > 0 })
            #expect(fastPath.answered.total == 3)
        }
    }

    @Test func blockingReloadsParkAndOnePartWakesThemOnBothProtocols() async throws {
        try await Self.withServer { fixture, port, fastPath in
            let fastPath = try #require(fastPath)
            let stream = try requireStream(fixture.packager.stream(for: OriginFixture.key))
            let next = try #require(stream.state.withLock { $0.pipeline(named: "video")?.rendition.nextPartPosition })
            let url = "http://127.0.0.1:\(port)/live/demo/video.m3u8?_HLS_msn=\(next.msn)&_HLS_part=\(next.part)"
            async let h1 = Self.curl(url, "--http1.1")
            async let h2 = Self.curl(url, "--http2-prior-knowledge")
            try await OriginFixture.eventually { stream.parkedRequests == 2 }
            // The next seconds of media: the hinted part gets listed and wakes both.
            for f in OriginFixture.frames(seconds: 9) where f.dts.seconds >= 7 { fixture.publication.send(f) }
            let (a, b) = try await (h1, h2)
            #expect(a.status == 200 && b.status == 200 && a.body == b.body)
            #expect(a.version == "1.1" && b.version == "2")
            #expect(String(decoding: a.body, as: UTF8.self).contains("\(next.msn).\(next.part).m4s"))
            #expect(fastPath.answered.parked == 2 && stream.parkedRequests == 0)
        }
    }
}
