import Logging
import SluiceApp
import Synchronization

/// A whole Sluice gateway (GatewayApp) run in this process on free loopback ports, for one scenario.
final class ScenarioGateway: Sendable {
    let rtmpPort: Int
    /// The SRT ingest port.
    let srtPort: Int
    let httpPort: Int
    private let task: Task<Void, any Error>

    /// Starts the gateway with `configuration`, overriding bind and ports; waits until both listeners are up.
    static func start(_ base: SluiceConfiguration, logger: Logger) async throws(BenchError) -> ScenarioGateway {
        guard let rtmp = LoopbackPort.free(), let http = LoopbackPort.free(), let udp = LoopbackPort.free(),
            let srt = LoopbackPort.free()
        else {
            throw .gatewayFailed("no free loopback port")
        }
        var c = base
        c.bind = "127.0.0.1"
        c.rtmpPort = rtmp
        c.httpPort = http
        // The WebRTC UDP port is exclusive: an embedded gateway never takes a running gateway's 8189.
        c.webrtcPort = udp
        c.srtPort = srt
        let app = GatewayApp(configuration: c, demo: false, logger: logger)
        let gateway = ScenarioGateway(rtmpPort: rtmp, srtPort: srt, httpPort: http, task: Task { try await app.run() })
        let up = await LoopbackPort.waitUntilListening(rtmp, timeout: .seconds(10))
        let httpUp = await LoopbackPort.waitUntilListening(http, timeout: .seconds(10))
        guard up, httpUp else {
            await gateway.stop()
            throw .gatewayFailed("listeners on 127.0.0.1:\(rtmp)/\(http) did not come up within 10 s")
        }
        return gateway
    }

    private init(rtmpPort: Int, srtPort: Int, httpPort: Int, task: Task<Void, any Error>) {
        self.rtmpPort = rtmpPort
        self.srtPort = srtPort
        self.httpPort = httpPort
        self.task = task
    }

    /// The origin's base URL.
    var httpBase: String { "http://127.0.0.1:\(httpPort)" }

    /// The RTMP application URL (append `/key`).
    var rtmpBase: String { "rtmp://127.0.0.1:\(rtmpPort)/live" }

    /// Where the bench's SRT caller connects.
    var srtBase: String { "srt://127.0.0.1:\(srtPort)" }

    /// Cancels the service group and waits up to `grace` for it: a service that ignores cancellation must not
    /// hang the bench (its ports are private to this scenario and its publisher is gone).
    func stop(grace: Duration = .seconds(5)) async {
        task.cancel()
        let task = self.task
        // Unstructured racers: a task group would wait for the non-cancellable `task.result` anyway.
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let once = ResumeOnce(c)
            let resume = { @Sendable in once.resume() }
            Task {
                _ = await task.result
                resume()
            }
            Task {
                try? await Task.sleep(for: grace)
                resume()
            }
        }
    }
}

/// Resumes a continuation the first time `resume()` is called; later calls do nothing.
private final class ResumeOnce: Sendable {
    private let pending: Mutex<CheckedContinuation<Void, Never>?>

    init(_ c: CheckedContinuation<Void, Never>) { pending = Mutex(c) }

    func resume() { pending.withLock { $0.take() }?.resume() }
}
