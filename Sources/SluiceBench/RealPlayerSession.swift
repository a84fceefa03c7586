/// One real-player run: the bench's page server, headless Chromium on the player page, and the page's commands.
///
/// `open` returns once the page has loaded its player (hls.js or none) and waits for `go`; the bench then starts
/// the publisher and says `go` at the same moment, `join` after the warm-up, and `finish` at the end.
final class RealPlayerSession {
    private let server: BenchPageServer
    private let browser: HeadlessChromium

    private init(server: BenchPageServer, browser: HeadlessChromium) {
        self.server = server
        self.browser = browser
    }

    /// Starts the page server and the browser; fails when the page is not ready within `timeout`.
    static func open(
        player: PlayerKind,
        hlsjs: [UInt8]?,
        url: String,
        timeout: Duration = .seconds(30)
    ) async throws(BenchError) -> RealPlayerSession {
        let server = try await BenchPageServer.start(hlsjs: hlsjs)
        let browser: HeadlessChromium
        do {
            browser = try HeadlessChromium(url: server.pageURL(player: player, source: url))
        } catch {
            await server.stop()
            throw error
        }
        let deadline = ContinuousClock.now + timeout
        while !server.pageReady, browser.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        guard server.pageReady else {
            let why = browser.isRunning ? "the player page was not ready within \(timeout)" : "Chromium exited"
            let trace = server.trace
            browser.stop()
            await server.stop()
            let pageErrors = trace.events.filter { $0.type == "pageError" }.compactMap(\.detail)
            throw .browserFailed(([why] + pageErrors.prefix(2)).joined(separator: "; "))
        }
        return RealPlayerSession(server: server, browser: browser)
    }

    /// Viewer 1 starts playing (the publisher starts now).
    func go() { server.send("go") }

    /// Viewer 2 opens the running stream.
    func join() { server.send("join") }

    /// Stops the players, waits up to `grace` for the page's last report, closes the browser; returns the trace.
    func finish(grace: Duration = .seconds(3)) async -> PlayerTrace {
        server.send("stop")
        let deadline = ContinuousClock.now + grace
        while !server.trace.complete, browser.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        let trace = server.trace
        await close()
        return trace
    }

    /// Closes the browser and the page server.
    func close() async {
        browser.stop()
        await server.stop()
    }
}
