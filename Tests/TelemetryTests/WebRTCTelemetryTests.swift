import MediaCore
import TestSupport
import Testing

@testable import Telemetry

/// WHIP sessions' RTP loss and repair counters in `/metrics` and the stream snapshot.
struct WebRTCTelemetryTests {
    let cam = StreamKey("cam")!

    static func counts(received: Int, lost: Int = 0, nacks: Int = 0, rtx: Int = 0, plis: Int = 0) -> WebRTCReceiveCounts
    {
        var c = WebRTCReceiveCounts()
        c.packetsReceived = received
        c.packetsLost = lost
        c.nacksSent = nacks
        c.nackedPackets = nacks * 2
        c.retransmissionsReceived = rtx
        c.plisSent = plis
        return c
    }

    @Test func deltasAddUpInPrometheusCountersLabelledByStreamAndKind() {
        let t = GatewayTelemetry()
        t.countWebRTC(stream: cam, kind: "video", Self.counts(received: 100, lost: 2, nacks: 2, rtx: 1, plis: 1))
        t.countWebRTC(stream: cam, kind: "video", Self.counts(received: 50, lost: 1, nacks: 1, rtx: 1))
        t.countWebRTC(stream: cam, kind: "audio", Self.counts(received: 40, lost: 1))
        let text = t.prometheusText()
        for line in [
            #"sluice_webrtc_packets_received_total{stream="cam",kind="video"} 150"#,
            #"sluice_webrtc_packets_lost_total{stream="cam",kind="video"} 3"#,
            #"sluice_webrtc_nacks_sent_total{stream="cam",kind="video"} 3"#,
            #"sluice_webrtc_nacked_packets_total{stream="cam",kind="video"} 6"#,
            #"sluice_webrtc_retransmissions_received_total{stream="cam",kind="video"} 2"#,
            #"sluice_webrtc_plis_sent_total{stream="cam",kind="video"} 1"#,
            #"sluice_webrtc_packets_received_total{stream="cam",kind="audio"} 40"#,
            #"sluice_webrtc_packets_lost_total{stream="cam",kind="audio"} 1"#,
        ] {
            #expect(text.contains(line), "\(line) missing from:\n\(text)")
        }
        // Series that never moved still exist, at zero: "no loss" is data too.
        #expect(text.contains(#"sluice_webrtc_packets_unrecovered_total{stream="cam",kind="video"} 0"#))
        #expect(text.contains(#"sluice_webrtc_firs_sent_total{stream="cam",kind="audio"} 0"#))
        #expect(text.contains("# HELP sluice_webrtc_nacks_sent_total"))
    }

    @Test func sessionsGaugeFollowsStartsAndEnds() {
        let t = GatewayTelemetry()
        t.webrtcSessionStarted(stream: cam)
        t.webrtcSessionStarted(stream: cam)
        #expect(t.prometheusText().contains(#"sluice_webrtc_sessions{stream="cam"} 2"#))
        t.webrtcSessionEnded(stream: cam)
        t.webrtcSessionEnded(stream: cam)
        t.webrtcSessionEnded(stream: cam)
        #expect(t.prometheusText().contains(#"sluice_webrtc_sessions{stream="cam"} 0"#))
        #expect(t.webrtc(stream: cam)?.sessions == 0)
    }

    @Test func snapshotCarriesTheCountersOnlyForWebRTCStreams() {
        let t = GatewayTelemetry()
        let rtmp = StreamKey("rtmp")!
        t.countIngested(stream: rtmp, rendition: "video", bytes: 10)
        t.webrtcSessionStarted(stream: cam)
        t.countWebRTC(stream: cam, kind: "video", Self.counts(received: 7, lost: 1, nacks: 1))
        #expect(t.snapshot(stream: rtmp)?.webrtc == nil && t.webrtc(stream: rtmp) == nil)
        let w = t.snapshot(stream: cam)?.webrtc
        #expect(w?.sessions == 1 && w?.kinds["video"] == Self.counts(received: 7, lost: 1, nacks: 1))
        #expect(w?.kinds["audio"] == nil)
    }

    /// Seeded: any split of a session's running totals into reports sums back to the totals.
    @Test func reportsOfRunningTotalsSumToTheTotals() {
        var random = SeededRandom(seed: 0x5EED)
        let t = GatewayTelemetry()
        var total = WebRTCReceiveCounts()
        var reported = WebRTCReceiveCounts()
        for _ in 0..<200 {
            for field in WebRTCReceiveCounts.Field.allCases { total[field] += Int(random.next() % 5) }
            if random.next() % 3 == 0 {
                t.countWebRTC(stream: cam, kind: "video", total.subtracting(reported))
                reported = total
            }
        }
        t.countWebRTC(stream: cam, kind: "video", total.subtracting(reported))
        #expect(t.webrtc(stream: cam)?.kinds["video"] == total)
        #expect(total.adding(total).subtracting(total) == total && WebRTCReceiveCounts().isZero)
    }
}
