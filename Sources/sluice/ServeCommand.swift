import ArgumentParser
import Foundation
import LLHLSPackager
import Logging
import Recorder
import SluiceApp

/// `sluice serve`: the gateway.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract:
            "Run the gateway: \(GatewayProtocols.list(GatewayProtocols.ingest)) ingest, ABR ladder, "
            + "\(GatewayProtocols.list(GatewayProtocols.egress)) packaging, HTTP origin."
    )

    @Option(help: "YAML config file (default: Config/sluice.yaml when present).")
    var config: String?

    @Option(help: "Address to bind (default 0.0.0.0).")
    var bind: String?

    @Option(help: "RTMP ingest port (default 1935).")
    var rtmpPort: Int?

    @Option(help: "HTTP origin port (default 8080).")
    var httpPort: Int?

    @Option(help: "WebRTC (WHIP) UDP port shared by every session (default 8189).")
    var webrtcPort: Int?

    @Option(help: "SRT ingest UDP port (default 8890; 0 turns SRT off).")
    var srtPort: Int?

    @Option(help: "LL-HLS part target in milliseconds (default 200).")
    var partTargetMs: Int?

    @Option(help: "Segment target in seconds (default 1).")
    var segmentTargetSeconds: Double?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String?

    @Option(help: "Transcode into an ABR ladder: on or off (default on).")
    var transcode: String?

    @Option(help: "Log format: text, logfmt or json (default text).")
    var logFormat: String?

    @Flag(help: "Also publish a built-in test pattern with tone as stream 'demo'.")
    var demo = false

    @Option(help: "Record every stream as HLS VOD under this directory (turns record.enabled on).")
    var record: String?

    @Option(help: "Cluster registry: the Redis URL (redis://host:port) the origins share; needs --node-url.")
    var clusterRedis: String?

    @Option(help: "Cluster: how the other origins reach this one (http://host:port); needs --cluster-redis.")
    var nodeURL: String?

    func run() async throws {
        var c = SluiceConfiguration()
        // Precedence: defaults < file < SLUICE_* environment < flags.
        let env = ProcessInfo.processInfo.environment
        let path = SluiceConfiguration.configPath(explicit: config, environment: env)
        do {
            c = try SluiceConfiguration.effective(file: path, environment: env)
            if let bind { c.bind = bind }
            if let rtmpPort { c.rtmpPort = rtmpPort }
            if let httpPort { c.httpPort = httpPort }
            if let webrtcPort { c.webrtcPort = webrtcPort }
            if let srtPort { c.srtPort = srtPort }
            if let partTargetMs { c.hls.partTarget = .milliseconds(partTargetMs) }
            if let segmentTargetSeconds { c.hls.segmentTarget = .milliseconds(Int64(segmentTargetSeconds * 1000)) }
            if let record {
                c.record.enabled = true
                c.record.directory = record
            }
            if let clusterRedis { c.cluster.redisURL = clusterRedis }
            if let nodeURL { c.cluster.nodeURL = nodeURL }
            if let transcode {
                guard transcode == "on" || transcode == "off" else {
                    throw ConfigurationError(key: "--transcode", allowed: "on or off", found: transcode)
                }
                c.transcode = transcode == "on"
            }
            if let logLevel {
                guard let l = Logger.Level(rawValue: logLevel) else {
                    throw ConfigurationError(
                        key: "--log-level",
                        allowed: "trace|debug|info|notice|warning|error|critical",
                        found: logLevel
                    )
                }
                c.logLevel = l
            }
            if let logFormat {
                guard let f = LogFormat(rawValue: logFormat) else {
                    throw ConfigurationError(key: "--log-format", allowed: "text|logfmt|json", found: logFormat)
                }
                c.logFormat = f
            }
            try c.validate()
        } catch let e as ConfigurationError {
            throw ValidationError(e.description)
        }
        let level = c.logLevel
        SluiceLogging.bootstrap(format: c.logFormat, level: level)
        var logger = Logger(label: "sluice")
        logger.logLevel = level
        if let path { logger.info("configuration loaded", metadata: ["file": "\(path)"]) }
        try await GatewayApp(configuration: c, demo: demo, logger: logger).run()
    }
}
