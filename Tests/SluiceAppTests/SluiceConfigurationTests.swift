import CodecFormats
import Foundation
import LLHLSPackager
import Logging
import MediaCore
import RTMPIngest
import SluiceApp
import Testing
import Transcoder

/// The shipped Config/sluice.yaml and the rules every key follows.
@Suite("Configuration")
struct SluiceConfigurationTests {
    static let shippedConfig = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Config/sluice.yaml").path

    @Test func shippedConfigParsesToTheDocumentedDefaults() throws {
        let c = try SluiceConfiguration.load(path: Self.shippedConfig)
        let d = SluiceConfiguration()
        #expect(c.bind == d.bind && c.rtmpPort == 1935 && c.httpPort == 8080)
        #expect(c.rtmp.chunkSize == d.rtmp.chunkSize && c.rtmp.maxMessageSize == d.rtmp.maxMessageSize)
        #expect(c.rtmp.idleTimeout == d.rtmp.idleTimeout)
        #expect(c.hls == d.hls)
        #expect(c.logLevel == .info && c.demoKey == "demo")
        #expect(c.transcode && c.ladder == d.ladder)
    }

    @Test func everyKeyIsRead() throws {
        let c = try SluiceConfiguration.parse(
            yaml: """
                bind: 127.0.0.1
                rtmp: { port: 1936, chunk_size: 8192, max_message_size: 1048576, idle_timeout_s: 5 }
                http: { port: 8081 }
                hls: { low_latency: false, part_target_ms: 300, segment_target_s: 4, window_segments: 12, reconnect_grace_s: 3, ended_retention_s: 9 }
                transcode: { enabled: false, preset: faster, max_rungs: 1, rungs: [ { height: 540, video_kbps: 2000 } ] }
                log: { level: debug }
                demo: { key: pattern }
                """
        )
        #expect(c.bind == "127.0.0.1" && c.rtmpPort == 1936 && c.httpPort == 8081)
        #expect(c.rtmp.chunkSize == 8192 && c.rtmp.maxMessageSize == 1_048_576 && c.rtmp.idleTimeout == .seconds(5))
        #expect(!c.hls.lowLatency && c.hls.partTarget == .milliseconds(300) && c.hls.segmentTarget == .seconds(4))
        #expect(
            c.hls.windowSegments == 12 && c.hls.reconnectGrace == .seconds(3) && c.hls.endedRetention == .seconds(9)
        )
        #expect(!c.transcode && c.ladder.preset == "faster" && c.ladder.maxRungs == 1)
        #expect(
            c.ladder.rungs == [LadderConfiguration.Rung(name: "540p", height: 540, videoBitRate: BitRate(kbps: 2000))]
        )
        #expect(c.logLevel == .debug && c.demoKey == "pattern")
    }

    /// The early first segment covers a passthrough (short GOPs) only when asked, or when no passthrough is listed.
    @Test(arguments: [
        ("{}", false),
        ("hls: { first_segment_cuts_passthrough: true }", true),
        ("transcode: { source_rendition: transcode }", true),
        ("hls: { first_segment_cuts_passthrough: true }\ntranscode: { enabled: false }", true),
        ("transcode: { enabled: false, source_rendition: transcode }", false),
    ])
    func theEarlyFirstSegmentCutsShortGOPsWhereAsked(yaml: String, cuts: Bool) throws {
        let c = try SluiceConfiguration.parse(yaml: yaml)
        #expect(c.effectiveHLS.firstSegment?.evenWithShortGOPs == cuts)
        #expect(c.effectiveHLS.firstSegment?.length == .milliseconds(400))
    }

    /// The ladder bridges a passthrough's first keyframe interval by default (fast start); never without a ladder,
    /// nor when the top rendition's policy is fixed, nor when turned off.
    @Test(arguments: [
        ("transcode: { enabled: true }", true),
        ("transcode: { enabled: true, fast_start: false }", false),
        ("transcode: { fast_start: true }", true),
        ("transcode: { fast_start: true, enabled: false }", false),
        ("transcode: { fast_start: true, source_rendition: passthrough }", false),
        ("transcode: { fast_start: true, source_rendition: transcode }", false),
    ])
    func theLadderBridgesTheFirstKeyframeIntervalWhenAsked(yaml: String, bridges: Bool) throws {
        let c = try SluiceConfiguration.parse(yaml: yaml)
        #expect(c.effectiveHLS.firstSegment?.bridgesShortGOPs == bridges)
    }

    /// Bad values fail with the key's dotted path in the error.
    @Test(arguments: [
        ("rtmp: { port: 70000 }", "rtmp.port"),
        ("hls: { part_target_ms: 50 }", "hls.part_target_ms"),
        ("hls: { part_target_ms: 900, segment_target_s: 2 }", "hls.part_target_ms"),
        ("hls: { low_latency: sometimes }", "hls.low_latency"),
        ("hls: { first_segment_cuts_passthrough: 1 }", "hls.first_segment_cuts_passthrough"),
        ("transcode: { fast_start: soon }", "transcode.fast_start"),
        ("log: { level: loud }", "log.level"),
        ("transcode: { preset: placebo }", "transcode.preset"),
        ("transcode: { enabled: maybe }", "transcode.enabled"),
        ("transcode: { rungs: [ { height: 480 } ] }", "transcode.rungs[0]"),
        ("hls: { part_target: 200 }", "hls.part_target"),
        ("colour: blue", "colour"),
        ("auth: { publish: { webhook_url: \"ftp://h/hook\" } }", "auth.publish.webhook_url"),
        ("auth: { publish: { webhook_url: \"http://h:99999/hook\" } }", "auth.publish.webhook_url"),
    ])
    func badValueNamesItsKey(yaml: String, key: String) {
        #expect {
            _ = try SluiceConfiguration.parse(yaml: yaml)
        } throws: { error in
            (error as? ConfigurationError)?.key == key
        }
    }
}
