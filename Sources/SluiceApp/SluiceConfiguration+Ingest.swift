import FFmpegBridge
import Foundation
import LLHLSPackager
import Logging
import MediaCore
import StreamHub
import Transcoder

extension SluiceConfiguration {
    /// The `ingest` section: the hot standby's failover and failback, and the slate while nobody is on air.
    static func readIngest(_ r: inout ConfigReader, into c: inout SluiceConfiguration) throws {
        if let ms = try r.int("failover_after_ms", in: 100...10_000) { c.onAir.failoverAfter = .milliseconds(ms) }
        if let mode = try r.string("failback") {
            guard let failback = OnAirConfiguration.Failback(rawValue: mode) else {
                throw ConfigurationError(key: "ingest.failback", allowed: "auto or manual", found: mode)
            }
            c.onAir.failback = failback
        }
        c.onAir.slate = try r.bool("slate") ?? c.onAir.slate
        if let path = try r.string("slate_image") { c.slateImage = path.isEmpty ? nil : path }
    }

    /// The printed `ingest` section (`sluice config print`).
    var ingestTree: ConfigNode {
        .map([
            .init(key: "failover_after_ms", value: .int(Int(onAir.failoverAfter.milliseconds))),
            .init(key: "failback", value: .string(onAir.failback.rawValue)),
            .init(key: "slate", value: .bool(onAir.slate)),
            .init(key: "slate_image", value: .string(slateImage ?? "")),
        ])
    }

    /// The slate's maker, with `ingest.slate_image` read and checked (a file that is not a PNG or JPEG image stops
    /// the start with the reason); nil with the slate off.
    func slateMaker(logger: Logger) throws -> SlateFactory? {
        guard onAir.slate else { return nil }
        var image: SlateImage?
        if let path = slateImage {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError(key: "ingest.slate_image", allowed: "a readable PNG or JPEG file", found: path)
            }
            do {
                image = try SlateImage(bytes: Array(data))
            } catch {
                throw ConfigurationError(
                    key: "ingest.slate_image",
                    allowed: "a PNG or JPEG image",
                    found: "\(path) (\(error))"
                )
            }
        }
        return SlateFactory(gop: hls.segmentTarget, image: image, logger: logger)
    }

    /// The hub's air as the gateway runs it: with the slate on, the air outlives its last publisher by
    /// `hls.reconnect_grace_s` (the slate runs that long); with it off, the air ends with the publisher and the
    /// packager holds the playlists open for the grace instead, as before the slate.
    public var effectiveOnAir: OnAirConfiguration {
        var o = onAir
        o.grace = onAir.slate ? hls.reconnectGrace : .zero
        return o
    }
}
