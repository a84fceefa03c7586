import MediaCore
import Telemetry
import Testing
import WHIPIngest
import WebRTCWire

/// RFC 4585 §6.3.1 / RFC 5104 §4.3.1 periodic keyframe requests and draft-alvestrand-rmcat-remb REMB, on the pipeline value.
@Suite struct WHIPKeyframeRequestTests {
    static func configuration(
        interval: Duration,
        request: WHIPMediaConfiguration.KeyframeRequest = .pli
    ) throws
        -> WHIPMediaConfiguration
    {
        let negotiation = try GoldenPublisher.negotiation()
        var c = WHIPMediaConfiguration(
            video: negotiation.video,
            audio: nil,
            localSSRC: 9,
            sendsNACK: true,
            keyframeRequest: request
        )
        c.keyframeInterval = interval
        return c
    }

    /// Feeds every unit 33 ms apart; returns the driver and when (since the first packet) each keyframe request went out.
    static func run(_ golden: GoldenPublisher, _ configuration: WHIPMediaConfiguration) -> (PipelineDriver, [Duration])
    {
        var driver = PipelineDriver(configuration)
        let start = driver.now
        var times: [Duration] = []
        var seen = 0
        for unit in golden.units {
            for packet in unit.packets { driver.send(packet) }
            driver.advance(.milliseconds(33))
            let requests = driver.keyframeRequestCount
            times += Array(repeating: start.duration(to: driver.now), count: requests - seen)
            seen = requests
        }
        return (driver, times)
    }

    /// A WHEP viewer joining the passthrough asks through `KeyframeRequests`: a PLI now, then rate-limited.
    @Test func aConsumersRequestBecomesAPLIWithinTheRateLimit() throws {
        let golden = try GoldenPublisher(count: 5, gop: 300)
        var driver = PipelineDriver(try Self.configuration(interval: .seconds(30)))
        for unit in golden.units { for packet in unit.packets { driver.send(packet) } }
        driver.advance(.seconds(1))
        let before = driver.pliCount
        driver.collect(driver.pipeline.requestKeyframe(now: driver.now))
        #expect(driver.pliCount == before + 1)
        driver.collect(driver.pipeline.requestKeyframe(now: driver.now + .milliseconds(100)))
        #expect(driver.pliCount == before + 1)
        driver.collect(driver.pipeline.requestKeyframe(now: driver.now + .milliseconds(600)))
        #expect(driver.pliCount == before + 2)
    }

    /// Golden timeline: a request inside the 500 ms window is deferred to its end (not dropped, as it was), requests
    /// meanwhile fold into it, and an IDR from the publisher answers a deferred one and opens the window again.
    @Test func aRequestInsideTheWindowIsDeferredToItsEndNotDropped() throws {
        let golden = try GoldenPublisher(count: 40, gop: 20)
        var driver = PipelineDriver(try Self.configuration(interval: .seconds(30)))
        for unit in golden.units[..<5] { for packet in unit.packets { driver.send(packet) } }
        driver.advance(.seconds(1))
        let t0 = driver.now
        let base = driver.pliCount
        // (ms since t0, a consumer asks, PLIs sent by then)
        let steps: [(Int, Bool, Int)] = [
            (0, true, 1),  // passed at once
            (100, true, 1),  // inside the window: deferred
            (300, true, 1),  // folded into the deferred one
            (499, false, 1),
            (500, false, 2),  // the window ended: the deferred request goes out
            (600, false, 2),  // nothing waits
            (700, true, 2),  // deferred again (window since 500)
        ]
        for (ms, asks, plis) in steps {
            let now = t0 + .milliseconds(ms)
            driver.now = now
            if asks { driver.collect(driver.pipeline.requestKeyframe(now: now)) }
            driver.collect(driver.pipeline.tick(now: now, wall: WallTime.now()))
            #expect(driver.pliCount - base == plis, "at \(ms) ms")
        }
        // The publisher's IDR (unit 20) arrives at 800 ms: it answers the deferred request, and the window reopens.
        driver.now = t0 + .milliseconds(800)
        for unit in golden.units[5...20] { for packet in unit.packets { driver.send(packet) } }
        driver.advance(.milliseconds(300))
        #expect(driver.pliCount - base == 2)
        driver.collect(driver.pipeline.requestKeyframe(now: driver.now))
        #expect(driver.pliCount - base == 3)  // at 1100 ms, within 500 ms of the last PLI, yet at once
    }

    @Test func noIDRForLongerThanTheIntervalYieldsAPictureLossIndication() throws {
        // One IDR, then 59 P frames (~2 s): the start PLI, then one once a second passed without an IDR.
        let golden = try GoldenPublisher(count: 60, gop: 300)
        let (driver, times) = Self.run(golden, try Self.configuration(interval: .seconds(1)))
        #expect(driver.pliCount == 2 && times.count == 2)
        #expect(times[1] >= .seconds(1) && times[1] < .milliseconds(1100))
        #expect(driver.pipeline.counters.video.plisSent == 2)
    }

    @Test func anIDRResetsTheClock() throws {
        // An IDR every 25 frames (~0.83 s) never leaves a second without one: only the start PLI.
        let golden = try GoldenPublisher(count: 90, gop: 25)
        let (driver, _) = Self.run(golden, try Self.configuration(interval: .seconds(1)))
        #expect(driver.pliCount == 1)
        #expect(driver.frames.count == 90)
    }

    @Test func outstandingRequestRepeatsOnlyAfterItsTimeoutAndNeverFasterThanTheRateLimit() throws {
        // No IDR after the first for ~5 s, interval 0.1 s: requests are at least 0.5 s apart and, being unanswered,
        // repeat only once the 1 s timeout passed.
        let golden = try GoldenPublisher(count: 150, gop: 300)
        let (driver, times) = Self.run(golden, try Self.configuration(interval: .milliseconds(100)))
        let gaps = zip(times.dropFirst(2), times.dropFirst()).map { $0 - $1 }
        #expect(driver.pliCount == times.count && times.count >= 5 && times.count <= 6)
        #expect(gaps.allSatisfy { $0 >= .seconds(1) && $0 < .milliseconds(1100) }, "\(times)")
    }

    @Test func firOnlyPublisherGetsPeriodicFullIntraRequests() throws {
        let golden = try GoldenPublisher(count: 60, gop: 300)
        let (driver, times) = Self.run(golden, try Self.configuration(interval: .seconds(1), request: .fir))
        #expect(driver.pliCount == 0 && times.count == 2 && driver.pipeline.counters.video.firsSent == 2)
    }

    @Test func rembRidesWithEachReceiverReportWhenNegotiated() throws {
        let golden = try GoldenPublisher(count: 60, gop: 30)
        var configuration = try Self.configuration(interval: .seconds(1))
        configuration.sendsREMB = true
        configuration.maxBitrate = 2_500_000
        let (driver, _) = Self.run(golden, configuration)
        let rembs = driver.rtcp.compactMap { if case .receiverEstimatedMaxBitrate(let r) = $0 { r } else { nil } }
        let reports = driver.rtcp.count { if case .receiverReport = $0 { true } else { false } }
        #expect(
            !rembs.isEmpty && rembs.count == reports && driver.pipeline.counters.bitrateEstimatesSent == rembs.count
        )
        #expect(
            rembs.allSatisfy {
                $0.bitrate == 2_500_000 && $0.ssrcs == [GoldenPublisher.videoSSRC] && $0.senderSSRC == 9
            }
        )
    }

    @Test func noREMBUnlessTheOfferListedGoogREMB() throws {
        let golden = try GoldenPublisher(count: 60, gop: 30)
        let configuration = WHIPMediaConfiguration(negotiation: try GoldenPublisher.negotiation(), localSSRC: 9)
        #expect(!configuration.sendsREMB)
        let (driver, _) = Self.run(golden, configuration)
        #expect(!driver.rtcp.contains { if case .receiverEstimatedMaxBitrate = $0 { true } else { false } })
        #expect(driver.rtcp.contains { if case .receiverReport = $0 { true } else { false } })
    }
}

extension PipelineDriver {
    /// PLIs and FIRs sent so far.
    var keyframeRequestCount: Int {
        rtcp.count {
            switch $0 {
            case .pictureLossIndication, .fullIntraRequest: true
            default: false
            }
        }
    }
}
