import HTTPClient
import HTTPOrigin
import LLHLSPackager
import Logging
import MediaCore
import SluiceApp
import StreamHub

/// A gateway inside the bench process: hub, packager, HTTP origin on 127.0.0.1 and the test pattern as `demo`.
///
/// In process, a part's publication is the packager's own instant, on the same clock the viewers read.
final class EmbeddedGateway: Sendable {
    let packager: LLHLSPackager
    let key: StreamKey
    /// The followed media playlist.
    let playlist: HTTPLocation
    private let tasks: [Task<Void, Never>]

    private init(packager: LLHLSPackager, key: StreamKey, playlist: HTTPLocation, tasks: [Task<Void, Never>]) {
        self.packager = packager
        self.key = key
        self.playlist = playlist
        self.tasks = tasks
    }

    /// Starts everything and returns once the origin accepts connections.
    static func start(partTarget: Duration, logger: Logger) async throws -> EmbeddedGateway {
        guard let port = LoopbackPort.free(), let key = StreamKey("demo") else {
            throw BenchError.gatewayFailed("no free loopback port for the embedded origin")
        }
        let hub = StreamHub()
        var config = LLHLSConfiguration()
        config.partTarget = partTarget
        let packager = LLHLSPackager(hub: hub, configuration: config, logger: logger)
        let origin = HTTPOriginService(packager: packager, host: "127.0.0.1", port: port, logger: logger)
        let tasks = [
            Task { await packager.run() },
            Task {
                do { try await origin.run() } catch {
                    logger.error("embedded origin stopped", metadata: ["error": "\(error)"])
                }
            },
            Task {
                do { try await runDemoStream(hub: hub, key: key, logger: logger) } catch {
                    logger.error("embedded test pattern stopped", metadata: ["error": "\(error)"])
                }
            },
        ]
        for _ in 0..<100 where !LoopbackPort.isListening(port) { try await Task.sleep(for: .milliseconds(50)) }
        let playlist = try HTTPLocation(parsing: "http://127.0.0.1:\(port)/live/\(key)/video.m3u8")
        return EmbeddedGateway(packager: packager, key: key, playlist: playlist, tasks: tasks)
    }

    /// When the packager listed a part of the source video.
    func published(_ p: LoadGeneratorPlaylist.Position) -> ContinuousClock.Instant? {
        packager.stream(for: key)?.published(rendition: "video", file: .part(p.msn, p.part))
    }

    /// Cancels the demo, packager and origin (the process exits after the report anyway).
    func stop() { for t in tasks { t.cancel() } }
}
