import MediaCore
import TestSupport
import Testing

@testable import Telemetry

/// Recording, Prometheus rendering and snapshots of one gateway's telemetry.
struct GatewayTelemetryTests {
    let demo = StreamKey("demo")!

    @Test func prometheusTextLabelsHopsByHopStreamAndRendition() {
        let t = GatewayTelemetry()
        t.record(.package, .milliseconds(3), stream: demo, rendition: "video")
        t.record(.package, .milliseconds(30), stream: demo, rendition: "video")
        t.record(.encode, .milliseconds(12), stream: demo.rendition("480p"), rendition: "480p")
        let text = t.prometheusText()
        #expect(text.contains("# TYPE sluice_hop_latency_seconds histogram"))
        #expect(text.contains(#"sluice_hop_latency_seconds_count{hop="package",stream="demo",rendition="video"} 2"#))
        #expect(
            text.contains(
                #"sluice_hop_latency_seconds_bucket{hop="package",stream="demo",rendition="video",le="0.005"} 1"#
            )
        )
        #expect(
            text.contains(
                #"sluice_hop_latency_seconds_bucket{hop="package",stream="demo",rendition="video",le="+Inf"} 2"#
            )
        )
        // A rung's derived key counts under its source stream.
        #expect(text.contains(#"sluice_hop_latency_seconds_count{hop="encode",stream="demo",rendition="480p"} 1"#))
        #expect(!text.contains("demo~480p"))
    }

    @Test func countersRenderWithTheirLabelSets() {
        let t = GatewayTelemetry()
        t.countIngested(stream: demo, rendition: "video", bytes: 1_000)
        t.countIngested(stream: demo, rendition: "video", bytes: 500)
        t.countPublished(stream: demo, rendition: "480p", frames: 6, bytes: 9_000)
        t.countSent(stream: demo, rendition: "480p", bytes: 9_000)
        t.countDropped(stream: demo, rendition: "video", reader: "hls", frames: 4)
        t.countRequest(stream: demo, kind: .part)
        t.countRequest(stream: demo, kind: .part)
        t.countRequest(stream: demo, kind: .playlistBlocking)
        t.countRequest(stream: nil, kind: .other)
        t.blockingRequestStarted(stream: demo, video: true)
        let text = t.prometheusText()
        for line in [
            #"sluice_bytes_in_total{stream="demo",rendition="video"} 1500"#,
            #"sluice_frames_in_total{stream="demo",rendition="video"} 2"#,
            #"sluice_frames_out_total{stream="demo",rendition="480p"} 6"#,
            #"sluice_parts_published_total{stream="demo",rendition="480p"} 1"#,
            #"sluice_bytes_out_total{stream="demo",rendition="480p"} 9000"#,
            #"sluice_frames_dropped_total{stream="demo",rendition="video",reader="hls"} 4"#,
            #"sluice_http_requests_total{stream="demo",kind="part"} 2"#,
            #"sluice_http_requests_total{stream="demo",kind="playlist-blocking"} 1"#,
            #"sluice_http_requests_total{stream="",kind="other"} 1"#,
            #"sluice_blocking_requests_waiting{stream="demo"} 1.0"#,
            #"sluice_viewers{stream="demo"} 1.0"#,
        ] {
            #expect(text.contains(line), "missing \(line)")
        }
    }

    @Test func snapshotReportsPercentilesCountersAndAudience() throws {
        let t = GatewayTelemetry()
        // 10 µs … 1 ms: inside HDR's exact range, so percentiles are the nearest-rank samples themselves.
        for i in 1...100 { t.record(.deliver, .microseconds(Int64(i) * 10), stream: demo, rendition: "video") }
        t.countDropped(stream: demo, rendition: "video", reader: "transcoder", frames: 2)
        t.notePlaylistFetch(stream: demo, client: "127.0.0.1:5000")
        t.notePlaylistFetch(stream: demo, client: "127.0.0.1:5001")
        t.notePlaylistFetch(stream: demo, client: "127.0.0.1:5000")
        let s = try #require(t.snapshot(stream: demo))
        let deliver = try #require(s.renditions["video"]?.percentiles(.deliver))
        #expect(deliver == HopPercentiles(count: 100, p50Ms: 0.5, p90Ms: 0.9, p99Ms: 0.99, maxMs: 1))
        #expect(s.renditions["video"]?.totalFramesDropped == 2)
        #expect(s.viewers == 2)
        #expect(t.snapshot(stream: StreamKey("other")!) == nil)
    }

    @Test func viewersExpireAfterTheWindow() {
        let t = GatewayTelemetry(viewerWindow: .seconds(10))
        let start = ContinuousClock.now
        t.notePlaylistFetch(stream: demo, client: "a", now: start)
        #expect(t.viewers(stream: demo, now: start + .seconds(9)) == 1)
        #expect(t.viewers(stream: demo, now: start + .seconds(11)) == 0)
    }

    @Test func manyRecentViewersArePrunedRarelyAndStaleOnesStillGo() {
        let t = GatewayTelemetry(viewerWindow: .seconds(10))
        let start = ContinuousClock.now
        // 10,000 viewers fetching 5 playlists each: more than 4,096 recent clients must not walk the map every time.
        for round in 0..<5 {
            for c in 0..<10_000 {
                t.notePlaylistFetch(stream: demo, client: "c\(c)", now: start + .milliseconds(round))
            }
        }
        #expect(t.viewers(stream: demo, now: start + .seconds(1)) == 10_000)
        #expect(t.clientPrunings(stream: demo) <= 2)
        // Later, 9,000 others: the first ones leave the map at the next pruning.
        for c in 0..<9_000 { t.notePlaylistFetch(stream: demo, client: "d\(c)", now: start + .seconds(20)) }
        #expect(t.viewers(stream: demo, now: start + .seconds(20)) == 9_000)
        #expect(t.clientPrunings(stream: demo) <= 3)
    }

    @Test func viewersWithoutPeerIdentityCountWaitingVideoRequests() {
        let t = GatewayTelemetry()
        let now = ContinuousClock.now
        for _ in 0..<3 { t.blockingRequestStarted(stream: demo, video: true, now: now) }
        t.blockingRequestStarted(stream: demo, video: false, now: now)
        for _ in 0..<3 { t.blockingRequestEnded(stream: demo, video: true) }
        t.blockingRequestEnded(stream: demo, video: false)
        // The three players waited together a moment ago: they still count, audio playlists do not add any.
        #expect(t.viewers(stream: demo, now: now + .seconds(1)) == 3)
        #expect(t.viewers(stream: demo, now: now + .seconds(12)) == 0)
        #expect(t.snapshot(stream: demo)?.blockingRequestsWaiting == 0)
    }

    @Test(arguments: [1, 4, 8])
    func concurrentRecordingLosesNoSample(tasks: Int) async throws {
        let t = GatewayTelemetry()
        let perTask = 2_000
        let demo = demo
        // Each task records its own seeded samples; the merged histogram must equal the serial one.
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<tasks {
                group.addTask {
                    var rng = SeededRandom(seed: UInt64(i))
                    for _ in 0..<perTask {
                        t.record(
                            .package,
                            .microseconds(Int64.random(in: 0..<2_048, using: &rng)),
                            stream: demo,
                            rendition: "video"
                        )
                        t.countPublished(stream: demo, rendition: "video", frames: 1, bytes: 10)
                    }
                }
            }
        }
        var serial = HopHistogram()
        for i in 0..<tasks {
            var rng = SeededRandom(seed: UInt64(i))
            for _ in 0..<perTask { serial.record(.microseconds(Int64.random(in: 0..<2_048, using: &rng))) }
        }
        let got = try #require(t.percentiles(.package, stream: demo, rendition: "video"))
        #expect(got == GatewayTelemetry.percentiles(serial))
        #expect(got.count == tasks * perTask)
        #expect(t.snapshot(stream: demo)?.renditions["video"]?.framesOut == tasks * perTask)
        #expect(
            t.prometheusText().contains(
                #"sluice_frames_out_total{stream="demo",rendition="video"} \#(tasks * perTask)"#
            )
        )
    }

    @Test func unservedTracksAreListedOncePerSessionSortedAndForgottenByTheNext() {
        let t = GatewayTelemetry()
        let audio = UnservedTrack(kind: "audio", track: 1, codec: "mp4a")
        let video2 = UnservedTrack(kind: "video", track: 2, codec: "hvc1")
        let video1 = UnservedTrack(kind: "video", track: 1, codec: "avc1")
        #expect(t.noteUnservedTrack(stream: demo, video2))
        #expect(t.noteUnservedTrack(stream: demo, audio))
        #expect(t.noteUnservedTrack(stream: demo, video1))
        #expect(!t.noteUnservedTrack(stream: demo, video1))
        // A rung's key reads its source's tracks.
        #expect(t.unservedTracks(stream: demo.rendition("480p")) == [audio, video1, video2])
        #expect(
            video1.note == "the publisher's video track 1 (avc1) is not served: the stream is the first video track"
        )
        t.forgetUnservedTracks(stream: demo)
        #expect(t.unservedTracks(stream: demo).isEmpty)
        #expect(t.unservedTracks(stream: StreamKey("other")!).isEmpty)
    }
}
