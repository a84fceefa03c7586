import Foundation
import FoundationXML
import MediaCore
import MediaSources
import Testing

@testable import SluiceBench

/// The latency report's arithmetic and its three renderings (table, JSON, SVG), and the nginx anchor's config.
@Suite("Bench output")
struct BenchOutputTests {
    /// Nearest-rank percentiles: {samples in ms, p50, p90, p99}.
    static let percentileCases: [([Double], Double, Double, Double)] = [
        ([5], 5, 5, 5),
        ([1, 2, 3, 4], 2, 4, 4),
        (Array(stride(from: 1.0, through: 100, by: 1)), 50, 90, 99),
        ([900, 100, 500, 300, 700], 500, 900, 900),
    ]

    @Test(arguments: percentileCases)
    func percentilesAreNearestRank(_ c: ([Double], Double, Double, Double)) throws {
        let p = try #require(LatencyPercentiles(samples: c.0.map { .microseconds(Int64($0 * 1000)) }))
        #expect(p.count == c.0.count && p.p50Ms == c.1 && p.p90Ms == c.2 && p.p99Ms == c.3)
    }

    @Test func missesRankAfterEverySampleAsInfinite() throws {
        let delays: [Duration] = (1...98).map { .milliseconds($0) }
        let two = try #require(LatencyPercentiles(samples: delays, misses: 2))
        #expect(two.count == 100 && two.p50Ms == 50 && two.p90Ms == 90 && two.p99Ms == .infinity)
        let one = try #require(LatencyPercentiles(samples: delays + [.milliseconds(99)], misses: 1))
        #expect(one.p99Ms == 99)
        #expect(LatencyPercentiles(samples: [], misses: 1)?.p50Ms == .infinity)
    }

    @Test func noSamplesMeansNoPercentiles() {
        #expect(LatencyPercentiles(samples: []) == nil)
    }

    @Test func percentilesStayOrderedForRandomSamples() throws {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let samples = (0..<Int.random(in: 1...300, using: &rng)).map { _ in
                Duration.milliseconds(Int.random(in: -50...5000, using: &rng))
            }
            let p = try #require(LatencyPercentiles(samples: samples))
            #expect(p.p50Ms <= p.p90Ms && p.p90Ms <= p.p99Ms)
        }
    }

    static let apiStreams = """
        [{"key":"other","renditions":[{"name":"video","hops":{"ingest":{"count":1,"p50Ms":99,"p90Ms":99,"p99Ms":99,"maxMs":99}}}]},
         {"key":"b","state":"live","renditions":[
           {"name":"video","hops":{"ingest":{"count":300,"p50Ms":0.2,"p90Ms":0.4,"p99Ms":1.5,"maxMs":2},
                                   "decode":{"count":300,"p50Ms":4,"p90Ms":6,"p99Ms":9,"maxMs":12},
                                   "package":{"count":300,"p50Ms":150,"p90Ms":190,"p99Ms":200,"maxMs":201}}},
           {"name":"480p","hops":{"encode":{"count":290,"p50Ms":20,"p90Ms":30,"p99Ms":45,"maxMs":50},
                                  "package":{"count":290,"p50Ms":160,"p90Ms":195,"p99Ms":205,"maxMs":210},
                                  "deliver":{"count":40,"p50Ms":1,"p90Ms":2,"p99Ms":3,"maxMs":3}}}]}]
        """

    @Test func rungHopsComeFromTheRungAndSourceHopsFromVideo() {
        let hops = GatewayHops.parse(json: Array(Self.apiStreams.utf8), stream: "b", rendition: "480p")
        #expect(hops["ingest"]?.p50Ms == 0.2 && hops["decode"]?.p99Ms == 9)
        #expect(hops["encode"]?.p90Ms == 30 && hops["deliver"]?.count == 40)
        // The rung's own package hop, not the source's.
        #expect(hops["package"]?.p50Ms == 160)
    }

    @Test func unknownStreamOrBadJSONGivesNoHops() {
        #expect(GatewayHops.parse(json: Array(Self.apiStreams.utf8), stream: "nope", rendition: "video").isEmpty)
        #expect(GatewayHops.parse(json: Array("{oops".utf8), stream: "b", rendition: "video").isEmpty)
    }

    static func report() -> BenchReport {
        var ll = ScenarioResult(scenario: BenchScenario.named("rtmp-llhls")!)
        ll.hops = [
            "ingest": LatencyPercentiles(count: 9, p50Ms: 0.5, p90Ms: 1, p99Ms: 2),
            "package": LatencyPercentiles(count: 9, p50Ms: 150, p90Ms: 190, p99Ms: 200),
        ]
        ll.downloaded = LatencyPercentiles(count: 9, p50Ms: 300, p90Ms: 350, p99Ms: 400)
        ll.glass = LatencyPercentiles(count: 9, p50Ms: 820, p90Ms: 900, p99Ms: 990)
        ll.publishToPlayableMs = 6_100
        ll.joinToFirstFrameMs = 420
        var hlsjs = ScenarioResult(scenario: BenchScenario.named("rtmp-llhls")!, player: .hlsjs)
        hlsjs.glass = LatencyPercentiles(count: 800, p50Ms: 960, p90Ms: 1_100, p99Ms: 1_300)
        hlsjs.publishToFirstFrameMs = 980
        hlsjs.joinToFirstFrameMs = 640
        hlsjs.joinGlass = LatencyPercentiles(count: 120, p50Ms: 712, p90Ms: 760, p99Ms: 900, p95Ms: 781)
        hlsjs.stalls = 2
        hlsjs.stalledMs = 350
        hlsjs.renditionSwitches = 1
        hlsjs.errorCount = 5
        hlsjs.levelLoadErrors = 1
        hlsjs.fatalErrors = 3
        hlsjs.startupErrors = 3
        var whip = ScenarioResult(scenario: BenchScenario.named("whip-llhls")!)
        whip.skipped = "WHIP <not yet> & later"
        return BenchReport(
            date: "2026-11-22T04:00:00.000Z",
            machine: "test",
            durationSeconds: 30,
            command: "sluice bench",
            scenarios: [ll, hlsjs, whip]
        )
    }

    @Test func tableRowsCarryP50P90P99AndSkipReasons() {
        let text = BenchTable.text(Self.report())
        let rows = text.split(separator: "\n")
        #expect(rows[0].hasPrefix("scenario") && rows[0].contains("glass capture->shown"))
        #expect(rows[0].contains("capture->downloaded") && !rows[0].contains("available"))
        #expect(rows[1].hasPrefix("rtmp-llhls") && rows[1].contains("0.5/1.0/2.0") && rows[1].contains("820/900/990"))
        #expect(rows[1].contains("6100") && rows[1].contains("420"))
        #expect(rows[2].hasPrefix("rtmp-llhls") && rows[2].contains(" hlsjs ") && rows[2].contains("960/1100/1300"))
        #expect(
            rows[2].contains("980") && rows[2].contains("640") && rows[2].contains("2 (350)")
                && rows[2].contains("5 (1, 3, 3, 0)")
        )
        // The joining viewer's glass sits next to its join figure, p50/p95; the model has none.
        #expect(rows[0].contains("join->1st frame  join glass p50/p95"))
        #expect(rows[2].contains("640") && rows[2].contains(" 712/781 "))
        #expect(text.contains("join glass p50/p95: that joining viewer's glass"))
        #expect(rows[3].contains("skipped: WHIP <not yet> & later"))
        #expect(
            BenchTable.markdown(Self.report()).contains(
                "| `rtmp-llhls` | model | 0.5/1.0/2.0 | - | - | 150/190/200 | - | 300/350/400 | 820/900/990 | 6100 | - | 420 | - | 0 |"
            )
        )
        // The legend says what each column measures, and no longer that the download figure holds encode time.
        #expect(text.contains("before encoding") && text.contains("publisher encode + network + gateway + fetch"))
    }

    @Test func jsonRoundTrips() throws {
        let r = Self.report()
        #expect(try JSONDecoder().decode(BenchReport.self, from: Data(r.json())) == r)
    }

    @Test func svgIsWellFormedXMLWithStackedPiecesEndingAtPlayerGlass() throws {
        let svg = BenchSVG.render(Self.report())
        let parser = XMLParser(data: Data(svg.utf8))
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(svg.contains("not run: WHIP &lt;not yet&gt; &amp; later"))
        // ingest, package, the rest of capture->downloaded (300 - 150.5), then the player (820 - 300).
        let pieces = BenchSVG.segments(Self.report().scenarios[0])
        #expect(pieces.map(\.key) == ["ingest", "package", "upstream", "player"])
        #expect(abs(pieces.reduce(0) { $0 + $1.ms } - 820) < 0.001)
        // A real player has no download figure: its bar is its glass p50 alone.
        #expect(BenchSVG.segments(Self.report().scenarios[1]).map(\.key) == ["player"])
    }

    @Test func nginxConfigurationLoadsTheModuleAndWritesTwoSecondFragments() {
        let conf = NginxRTMPAnchor.configuration(
            module: "/m/ngx_rtmp_module.so",
            prefix: "/tmp/x",
            rtmpPort: 1,
            httpPort: 2,
            fragment: .seconds(2)
        )
        #expect(conf.hasPrefix("load_module /m/ngx_rtmp_module.so;\n"))
        for line in [
            "listen 127.0.0.1:1;", "listen 127.0.0.1:2;", "hls on;", "hls_path /tmp/x/hls;", "hls_fragment 2s;",
            "alias /tmp/x/hls/;",
        ] {
            #expect(conf.contains(line), "\(line)")
        }
        // The real-player page is another origin.
        #expect(conf.contains("add_header Access-Control-Allow-Origin * always;"))
    }

    @Test func everyScenarioHasAUniqueNameAndWhipRunsWithLowLatencyViewers() {
        #expect(Set(BenchScenario.all.map(\.id)).count == BenchScenario.all.count)
        #expect(BenchScenario.named("whip-llhls")?.unavailableReason == nil)
        #expect(BenchScenario.named("whip-llhls-ladder")?.path == .whip(transcode: true, rendition: "480p"))
        #expect(BenchScenario.named("whip-llhls")?.lowLatencyViewer == true)
        #expect(BenchScenario.named("rtmp-llhls")?.unavailableReason == nil)
        #expect(BenchScenario.named("rtmp-hls")?.lowLatencyViewer == false)
    }

    @Test func eRTMPScenariosPublishHEVCAndAV1IntoTheLadder() {
        for (id, codec) in [("rtmp-hevc-llhls-ladder", Codec.hevc), ("rtmp-av1-llhls-ladder", .av1)] {
            let s = BenchScenario.named(id)
            #expect(s?.sourceCodec == codec && s?.lowLatencyViewer == true, "\(id)")
            #expect(s?.path == .sluice(lowLatency: true, transcode: true, rendition: "480p"), "\(id)")
        }
        #expect(BenchScenario.named("rtmp-llhls-ladder")?.sourceCodec == .h264)
        #expect(BenchSourceFile.encoderArguments(.hevc).contains("libx265"))
        #expect(BenchSourceFile.encoderArguments(.av1).contains("libsvtav1"))
    }

    @Test func eRTMPScenariosPublishTheLivePatternHEVCWithBFrames() throws {
        let options = BenchOptions(scenarios: [], command: "test")
        func source(_ id: String) throws -> PublishInput {
            BenchRunner.source(for: try #require(BenchScenario.named(id)), options: options)
        }
        #expect(
            try source("rtmp-hevc-llhls-ladder")
                == .testPattern(width: 1280, height: 720, fps: 30, gopFrames: 30, bFrames: 2, codec: .hevc)
        )
        #expect(
            try source("rtmp-hevc-nob-llhls-ladder")
                == .testPattern(width: 1280, height: 720, fps: 30, gopFrames: 30, bFrames: 0, codec: .hevc)
        )
        #expect(
            try source("rtmp-av1-llhls-ladder")
                == .testPattern(width: 1280, height: 720, fps: 30, gopFrames: 30, bFrames: 0, codec: .av1)
        )
        #expect(
            try source("rtmp-llhls-ladder")
                == .testPattern(width: 1280, height: 720, fps: 30, gopFrames: 30, bFrames: 0)
        )
    }
}
