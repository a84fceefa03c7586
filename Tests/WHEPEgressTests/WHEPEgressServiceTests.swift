import CodecFormats
import Foundation
import Logging
import MediaCore
import StreamHub
import Synchronization
import TestSupport
import Testing
import WebRTCTransport
import WebRTCWire

@testable import WHEPEgress

/// The service over a real hub and a real loopback transport (viewers never connect: what is checked is what the
/// service decides and counts, not what a player sees; the e2e suite drives real players).
@Suite("WHEP egress service")
struct WHEPEgressServiceTests {
    static let key = StreamKey("cam")!
    static let opusHead = Array("OpusHead".utf8) + [1, 2, 0x38, 0x01, 0x80, 0xBB, 0, 0, 0, 0, 0]

    struct Fixture {
        let service: WHEPEgressService
        let hub: StreamHub
        let transport: WebRTCTransportService
        let publication: Publication
    }

    /// A transport on a free loopback port, and a constrained-baseline + Opus stream live on `cam`.
    /// `joinOnRung` off by default: these tests look at one feed (its own test turns it on).
    static func fixture(
        maxViewers: Int = 500,
        reconnectGrace: Duration = .milliseconds(200),
        joinOnRung: Bool = false,
        keyframeRequests: KeyframeRequests? = nil
    ) async throws -> Fixture {
        var transportConfiguration = WebRTCTransportConfiguration()
        transportConfiguration.port = 0
        let transport = WebRTCTransportService(
            configuration: transportConfiguration,
            certificate: try DTLSCertificate()
        )
        try await transport.start()
        let hub = StreamHub()
        var configuration = WHEPEgressConfiguration()
        configuration.maxViewers = maxViewers
        configuration.reconnectGrace = reconnectGrace
        configuration.joinOnRung = joinOnRung
        var logger = Logger(label: "test.whep")
        logger.logLevel = .warning
        let service = WHEPEgressService(
            transport: transport,
            hub: hub,
            keyframeRequests: keyframeRequests,
            configuration: configuration,
            logger: logger
        )
        let publication = try publishCam(hub)
        return Fixture(service: service, hub: hub, transport: transport, publication: publication)
    }

    /// Publishes `cam`: constrained baseline video and Opus audio.
    static func publishCam(_ hub: StreamHub) throws -> Publication {
        let publication = try hub.publish(key: key, origin: "test")
        publication.update(
            description: StreamDescription(
                video: try VideoParameters(avcDecoderConfiguration: WHEPTrackSenderTests.avcC),
                audio: AudioParameters(
                    codec: .opus,
                    decoderConfiguration: opusHead,
                    sampleRate: 48_000,
                    channels: 2,
                    samplesPerFrame: 960,
                    codecString: "opus"
                )
            )
        )
        return publication
    }

    @Test func constrainedBaselineSourcePassesThroughUnderTheOfferedPayloadType() async throws {
        let f = try await Self.fixture()
        defer { Task { await f.transport.shutdown() } }
        let created = try await f.service.createSession(streamKey: "cam", offer: WHEPOffers.aiortc)
        #expect(created.videoSource == "passthrough")
        let answer = try SessionDescription(parsing: created.answer)
        // aiortc offers rtx 102 (apt=101): the answer keeps it for retransmissions (RFC 4588).
        #expect(answer.media.map(\.formats) == [["101", "102"], ["96"]])
        #expect(f.service.viewerCount == 1)
        let reports = f.service.viewerReports()
        #expect(reports.map(\.session) == [created.sessionID])
        #expect(reports.first?.phase == "connecting" && reports.first?.video == "passthrough")
    }

    /// One aiortc viewer of `cam`: its feed and itself.
    static func oneViewer(_ f: Fixture) async throws -> (WHEPStreamFeed, WHEPViewer) {
        _ = try await f.service.createSession(streamKey: "cam", offer: WHEPOffers.aiortc)
        let feed = try #require(f.service.state.withLock { $0.feeds.values.first })
        let viewer = try #require(f.service.state.withLock { $0.viewers.values.first })
        return (feed, viewer)
    }

    @Test func nackIsAnsweredFromTheStreamsSharedHistory() async throws {
        let f = try await Self.fixture()
        defer { Task { await f.transport.shutdown() } }
        let (feed, viewer) = try await Self.oneViewer(f)
        let idr = WHEPTrackSenderTests.frame([[0x65] + [UInt8](repeating: 7, count: 3_000)], keyframe: true, pts: 0)
        f.publication.send(idr)
        #expect(
            await eventually(within: .seconds(2), every: .milliseconds(10)) {
                feed.state.withLock { $0.video.lastSequenceNumber } != nil
            }
        )
        let last = try #require(feed.state.withLock { $0.video.lastSequenceNumber })
        let nack = RTCPPacket.genericNACK(
            RTCPGenericNACK(senderSSRC: 1, mediaSSRC: feed.videoSSRC, lost: [last, last &- 1, last &- 500])
        )
        try f.service.received(rtcp: RTCPPacket.serializeCompound([nack]), from: viewer, feed: feed)
        // Two of the three are in history (the IDR made four packets); the third was never sent.
        #expect(viewer.counters.nackedPackets == 3)
        #expect(viewer.counters.retransmittedPackets == 2)
    }

    /// A video packet sent before the viewer's last keyframe is not resent (its decoder starts again there); one of
    /// that keyframe is.
    @Test func nacksOfVideoBeforeTheLastKeyframeSentAreNotResent() async throws {
        let f = try await Self.fixture()
        defer { Task { await f.transport.shutdown() } }
        let (feed, viewer) = try await Self.oneViewer(f)
        viewer.connected()
        func send(keyframe: Bool, pts: Int64) async throws -> UInt16 {
            let before = feed.state.withLock { $0.video.lastSequenceNumber }
            let nal: UInt8 = keyframe ? 0x65 : 0x41
            f.publication.send(
                WHEPTrackSenderTests.frame([[nal] + [UInt8](repeating: 7, count: 3_000)], keyframe: keyframe, pts: pts)
            )
            #expect(
                await eventually(within: .seconds(2), every: .milliseconds(10)) {
                    feed.state.withLock { $0.video.lastSequenceNumber } != before
                }
            )
            return try #require(feed.state.withLock { $0.video.lastSequenceNumber })
        }
        let firstGOP = try await send(keyframe: true, pts: 0)
        _ = try await send(keyframe: false, pts: 3_000)
        let secondGOP = try await send(keyframe: true, pts: 6_000)
        #expect(viewer.counters.videoPacketsSent > Int(secondGOP &- firstGOP))
        let nack = RTCPPacket.genericNACK(RTCPGenericNACK(senderSSRC: 1, mediaSSRC: feed.videoSSRC, lost: [firstGOP]))
        try f.service.received(rtcp: RTCPPacket.serializeCompound([nack]), from: viewer, feed: feed)
        #expect(viewer.counters.retransmittedPackets == 0)
        #expect(viewer.counters.resendsSkipped == 1)
        let current = RTCPPacket.genericNACK(
            RTCPGenericNACK(senderSSRC: 1, mediaSSRC: feed.videoSSRC, lost: [secondGOP])
        )
        try f.service.received(rtcp: RTCPPacket.serializeCompound([current]), from: viewer, feed: feed)
        #expect(viewer.counters.retransmittedPackets == 1)
        #expect(viewer.counters.resendsSkipped == 1)
    }

    /// A passthrough whose source cannot be asked for a keyframe: on connecting, the viewer joins on the join rung (a
    /// second feed, feeding it only video); the passthrough's keyframe moves it over (the rung, now unwatched, stops),
    /// and its NACKs name its own sequence numbers, answered from the passthrough's history on its SSRC.
    @Test func aPassthroughViewerJoinsOnTheRungAndMovesOntoThePassthroughAtItsKeyframe() async throws {
        let f = try await Self.fixture(joinOnRung: true)
        defer { Task { await f.transport.shutdown() } }
        let created = try await f.service.createSession(streamKey: "cam", offer: WHEPOffers.aiortc)
        #expect(created.videoSource == "passthrough")
        #expect(f.service.state.withLock { Set($0.feeds.keys) } == ["cam|passthrough"])
        let feed = try #require(f.service.state.withLock { $0.feeds["cam|passthrough"] })
        let viewer = try #require(f.service.state.withLock { $0.viewers.values.first })
        f.service.startPicture(viewer, feed: feed)
        let names = f.service.state.withLock { Set($0.feeds.keys) }
        #expect(names == ["cam|passthrough", "cam|join-rung"])
        let rung = try #require(f.service.state.withLock { $0.feeds["cam|join-rung"] })
        #expect(viewer.joiningRung === rung && rung.viewers.isEmpty && !rung.isIdle)
        #expect(viewer.phase == .waitingForKeyframe)
        let bridging = try #require(f.service.viewerReports().first)
        #expect(bridging.joinedOnJoinRung && bridging.onJoinRung && bridging.video == "passthrough")
        let idr = WHEPTrackSenderTests.frame([[0x65] + [UInt8](repeating: 7, count: 3_000)], keyframe: true, pts: 0)
        f.publication.send(idr)
        #expect(await eventually(within: .seconds(2), every: .milliseconds(10)) { viewer.switchedToOwnFeed })
        // The feed's send takes the viewer off the rung just after the switch, on its own task.
        #expect(await eventually(within: .seconds(2), every: .milliseconds(10)) { viewer.joiningRung == nil })
        let moved = try #require(f.service.viewerReports().first)
        #expect(moved.joinedOnJoinRung && !moved.onJoinRung)
        #expect(
            await eventually(within: .seconds(2), every: .milliseconds(10)) {
                f.service.state.withLock { Set($0.feeds.keys) } == ["cam|passthrough"]
            }
        )
        let first = try #require(viewer.state.withLock { $0.bridge?.timeline.firstSequence })
        let nacked = viewer.nacked([first, first &+ 3, first &+ 4]) { feed.history(.video, $0) }
        let packets = try nacked.map { try RTPPacket(parsing: $0) }
        // The IDR made four packets (SPS/PPS in a STAP-A, three FU-A): the fifth was never sent.
        #expect(packets.map(\.sequenceNumber) == [first, first &+ 3])
        #expect(packets.allSatisfy { $0.ssrc == feed.videoSSRC })
        try f.service.endSession(id: created.sessionID, key: "cam")
        #expect(
            await eventually(within: .seconds(2), every: .milliseconds(10)) {
                f.service.viewerCount == 0 && f.service.state.withLock { $0.feeds.isEmpty }
            }
        )
    }

    /// A WebRTC-rung viewer's join, at the viewer: the join rung's frames wait two frames back and leave in order; its
    /// own feed's keyframe sends the held frame of the earlier picture, throws away the one of its own picture, and
    /// takes over on the viewer's numbering; a NACK of a released rung packet is answered from the viewer's history.
    @Test func heldJoinRungFramesLeaveInOrderAndMakeWayForTheOwnFeedsKeyframe() async throws {
        let f = try await Self.fixture()
        defer { Task { await f.transport.shutdown() } }
        _ = try await f.service.createSession(streamKey: "cam", offer: WHEPOffers.aiortc)
        let feed = try #require(f.service.state.withLock { $0.feeds["cam|passthrough"] })
        let viewer = try #require(f.service.state.withLock { $0.viewers.values.first })
        let ssrc: UInt32 = 0x00C0_FFEE
        viewer.joinOnRung(
            feed,
            timeline: WHEPJoinSwitch(firstSequence: 100, timestampShift: 0, holdFrames: 2),
            ssrc: ssrc,
            historyCapacity: 64
        ) { _, _ in }
        viewer.connected()
        // One frame's packets as a feed numbered them: 12-byte RTP header and a byte of payload each.
        func frame(_ sequence: UInt16, _ timestamp: UInt32, packets: Int) -> [[UInt8]] {
            (0..<packets).map { i in
                RTPPacket(
                    payloadType: 96,
                    sequenceNumber: sequence &+ UInt16(i),
                    timestamp: timestamp,
                    ssrc: 0x0BAD,
                    payload: [UInt8(i)]
                ).serialized()
            }
        }
        #expect(!viewer.deliver(video: frame(1, 3_000, packets: 2), keyframe: true, origin: .rung))
        #expect(!viewer.deliver(video: frame(3, 6_000, packets: 1), keyframe: false, origin: .rung))
        #expect(viewer.counters.videoPacketsSent == 0 && viewer.phase == .playing)
        #expect(!viewer.deliver(video: frame(4, 9_000, packets: 1), keyframe: false, origin: .rung))
        #expect(viewer.counters.videoPacketsSent == 2 && viewer.counters.framesFromRung == 1)
        // The own feed's frames wait for its keyframe; its keyframe of the picture stamped 9_000 takes over.
        #expect(!viewer.deliver(video: frame(500, 7_000, packets: 1), keyframe: false))
        #expect(!viewer.deliver(video: frame(501, 9_000, packets: 3), keyframe: true))
        #expect(viewer.switchedToOwnFeed && viewer.joiningRung == nil)
        #expect(viewer.counters.videoPacketsSent == 2 + 1 + 3 && viewer.counters.framesFromRung == 2)
        let resent = try viewer.nacked([100, 101, 102]) { _ in [] }.map { try RTPPacket(parsing: $0) }
        #expect(resent.map(\.sequenceNumber) == [100, 101, 102])
        #expect(resent.map(\.timestamp) == [3_000, 3_000, 6_000] && resent.allSatisfy { $0.ssrc == ssrc })
        // The own keyframe's first packet is the viewer's 103 (the third held rung frame was thrown away).
        #expect(viewer.state.withLock { $0.bridge?.timeline.origin(ofSent: 103) } == .own(501))
    }

    /// Ending the session while still on the rung takes the viewer off it, and both feeds stop.
    @Test func aViewerThatLeavesWhileOnTheRungStopsBothFeeds() async throws {
        let f = try await Self.fixture(joinOnRung: true)
        defer { Task { await f.transport.shutdown() } }
        let created = try await f.service.createSession(streamKey: "cam", offer: WHEPOffers.aiortc)
        let feed = try #require(f.service.state.withLock { $0.feeds.values.first })
        let viewer = try #require(f.service.state.withLock { $0.viewers.values.first })
        f.service.startPicture(viewer, feed: feed)
        #expect(f.service.state.withLock { $0.feeds.count } == 2)
        try f.service.endSession(id: created.sessionID, key: "cam")
        #expect(
            await eventually(within: .seconds(2), every: .milliseconds(10)) {
                f.service.viewerCount == 0 && f.service.state.withLock { $0.feeds.isEmpty }
            }
        )
    }

    /// A WHIP passthrough (its publisher can be asked): the first viewer's connect asks the publisher and takes its
    /// IDR, no join rung; a second viewer inside the 500 ms window starts on the join rung instead of waiting for the
    /// window's end, and the publisher is not asked again.
    @Test func aViewerInsideItsFeedsKeyframeWindowStartsOnTheJoinRung() async throws {
        let requests = KeyframeRequests()
        let asked = Atomic<Int>(0)
        requests.register(key: Self.key) { asked.add(1, ordering: .relaxed) }
        let f = try await Self.fixture(joinOnRung: true, keyframeRequests: requests)
        defer { Task { await f.transport.shutdown() } }
        _ = try await f.service.createSession(streamKey: "cam", offer: WHEPOffers.aiortc)
        let feed = try #require(f.service.state.withLock { $0.feeds["cam|passthrough"] })
        let first = try #require(f.service.state.withLock { $0.viewers.values.first })
        f.service.startPicture(first, feed: feed)
        #expect(asked.load(ordering: .relaxed) == 1)
        #expect(first.joiningRung == nil && first.phase == .waitingForKeyframe)
        #expect(f.service.state.withLock { Set($0.feeds.keys) } == ["cam|passthrough"])
        _ = try await f.service.createSession(streamKey: "cam", offer: WHEPOffers.aiortc)
        let second = try #require(f.service.state.withLock { $0.viewers.values.first { $0 !== first } })
        f.service.startPicture(second, feed: feed)
        #expect(asked.load(ordering: .relaxed) == 1)
        let rung = try #require(f.service.state.withLock { $0.feeds["cam|join-rung"] })
        #expect(second.joiningRung === rung && rung.keyframesForced == 1)
    }

    /// draft-alvestrand-rmcat-remb-03: a REMB naming our video SSRC is the viewer's bandwidth estimate, shown in its
    /// report; one for another stream's SSRC is not.
    @Test func aREMBForOurVideoIsTheViewersEstimate() async throws {
        let f = try await Self.fixture()
        defer { Task { await f.transport.shutdown() } }
        let (feed, viewer) = try await Self.oneViewer(f)
        func remb(_ bitrate: UInt64, for ssrc: UInt32) throws -> Int? {
            let packet = RTCPReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: bitrate, ssrcs: [ssrc])
            try f.service.received(
                rtcp: RTCPPacket.serializeCompound([.receiverEstimatedMaxBitrate(packet)]),
                from: viewer,
                feed: feed
            )
            return f.service.viewerReports().first?.estimatedKbps
        }
        #expect(f.service.viewerReports().first?.estimatedKbps == nil)
        #expect(try remb(300_000, for: feed.videoSSRC &+ 1) == nil)
        #expect(try remb(1_500_000, for: feed.videoSSRC) == 1_500)
    }

    @Test func malformedRTCPIsRefusedWithAReason() async throws {
        let f = try await Self.fixture()
        defer { Task { await f.transport.shutdown() } }
        let (feed, viewer) = try await Self.oneViewer(f)
        #expect(throws: WebRTCWireError.self) {
            try f.service.received(rtcp: [0x81, 0xC9, 0x00, 0x07, 0, 0], from: viewer, feed: feed)
        }
    }

    @Test func refusesWithTheStatusTheDraftAsksFor() async throws {
        let f = try await Self.fixture(maxViewers: 1)
        defer { Task { await f.transport.shutdown() } }
        await #expect(throws: WHEPEgressError.self) {
            try await f.service.createSession(streamKey: "nobody", offer: WHEPOffers.aiortc)
        }
        do {
            _ = try await f.service.createSession(streamKey: "nobody", offer: WHEPOffers.aiortc)
        } catch {
            #expect(error.httpStatus == 404)
        }
        do {
            _ = try await f.service.createSession(streamKey: "cam", offer: "v=0\r\nnot sdp")
        } catch {
            #expect(error.httpStatus == 400)
        }
        let vp8Only = WHEPOffers.aiortc.replacingOccurrences(of: " H264/90000", with: " VP9/90000")
        do {
            _ = try await f.service.createSession(streamKey: "cam", offer: vp8Only)
        } catch {
            #expect(error.httpStatus == 422)
        }
        _ = try await f.service.createSession(streamKey: "cam", offer: WHEPOffers.aiortc)
        do {
            _ = try await f.service.createSession(streamKey: "cam", offer: WHEPOffers.aiortc)
            Issue.record("a second viewer over max_viewers=1 was accepted")
        } catch {
            #expect(error.httpStatus == 503)
            #expect(error.retryAfterSeconds == 5)
        }
    }

    @Test func concurrentOffersNeverOvershootTheViewerLimit() async throws {
        let f = try await Self.fixture(maxViewers: 2)
        defer { Task { await f.transport.shutdown() } }
        let service = f.service
        let accepted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<6 {
                group.addTask { (try? await service.createSession(streamKey: "cam", offer: WHEPOffers.aiortc)) != nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(accepted == 2 && service.viewerCount == 2)
    }

    @Test func deleteAndStreamEndRemoveViewersAndTheirFeed() async throws {
        let f = try await Self.fixture()
        defer { Task { await f.transport.shutdown() } }
        let first = try await f.service.createSession(streamKey: "cam", offer: WHEPOffers.aiortc)
        _ = try await f.service.createSession(streamKey: "cam", offer: WHEPOffers.chromium)
        // Both receive constrained baseline: one feed, packetized once, for both viewers.
        #expect(f.service.state.withLock { $0.feeds.count } == 1)
        try f.service.endSession(id: first.sessionID, key: "cam")
        #expect(await eventually(within: .seconds(2), every: .milliseconds(10)) { f.service.viewerCount == 1 })
        #expect(throws: WHEPEgressError.self) { try f.service.endSession(id: first.sessionID) }
        f.publication.end()
        #expect(
            await eventually(within: .seconds(2), every: .milliseconds(10)) {
                f.service.viewerCount == 0 && f.service.state.withLock { $0.feeds.isEmpty }
            }
        )
    }

    @Test func aPublisherThatComesBackWithinTheGraceKeepsItsViewersOnTheSameRTPStream() async throws {
        let f = try await Self.fixture(reconnectGrace: .seconds(5))
        defer { Task { await f.transport.shutdown() } }
        _ = try await f.service.createSession(streamKey: "cam", offer: WHEPOffers.aiortc)
        let feed = try #require(f.service.state.withLock { $0.feeds.values.first })
        let idr = WHEPTrackSenderTests.frame([[0x65, 1, 2, 3]], keyframe: true, pts: 90_000)
        f.publication.send(idr)
        #expect(
            await eventually(within: .seconds(2), every: .milliseconds(10)) {
                feed.state.withLock { $0.video.lastSequenceNumber } != nil
            }
        )
        let before = try #require(feed.state.withLock { $0.video.lastSequenceNumber })
        f.publication.end()
        try await Task.sleep(for: .milliseconds(300))
        #expect(f.service.viewerCount == 1)
        let again = try Self.publishCam(f.hub)
        // The new session's clock starts at 0 again; the viewer must not see that.
        let next = WHEPTrackSenderTests.frame([[0x65, 4, 5, 6]], keyframe: true, pts: 0)
        #expect(
            await eventually(within: .seconds(2), every: .milliseconds(10)) {
                again.send(next)
                return feed.state.withLock { $0.video.lastSequenceNumber } != before
            }
        )
        let after = try #require(feed.state.withLock { $0.video.lastSequenceNumber })
        #expect(after &- before >= 1 && after &- before < 100)
        #expect(f.service.viewerCount == 1 && f.service.state.withLock { $0.feeds.count } == 1)
        again.end()
    }
}

/// The per-viewer queue bound and the shared keyframe request.
@Suite("WHEP viewer and feed")
struct WHEPViewerTests {
    @Test func slowViewerDropsUntilTheNextKeyframeInsteadOfBlocking() async throws {
        var configuration = WebRTCTransportConfiguration()
        configuration.port = 0
        let transport = WebRTCTransportService(configuration: configuration, certificate: try DTLSCertificate())
        try await transport.start()
        defer { Task { await transport.shutdown() } }
        let session = try await transport.openSession(
            WebRTCSessionParameters(
                local: .random(),
                remote: .random(),
                remoteFingerprint: DTLSFingerprint(algorithm: "sha-256", digest: Array(repeating: 1, count: 32))
            )
        )
        let viewer = WHEPViewer(
            id: "v",
            key: StreamKey("cam")!,
            session: session,
            videoPayloadType: 101,
            audioPayloadType: 96,
            queueLimit: 8
        )
        let packet: [UInt8] = [0x80, 96, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0x41]
        #expect(!viewer.deliver(video: [packet], keyframe: true))
        #expect(viewer.phase == .connecting && viewer.counters.videoPacketsSent == 0)
        viewer.connected()
        #expect(viewer.deliver(video: [packet], keyframe: false))
        #expect(!viewer.deliver(video: Array(repeating: packet, count: 3), keyframe: true))
        #expect(viewer.phase == .playing)
        // More than the queue holds: this viewer alone drops, and waits for a keyframe to resync.
        #expect(viewer.deliver(video: Array(repeating: packet, count: 9), keyframe: false))
        #expect(viewer.phase == .waitingForKeyframe)
        #expect(viewer.deliver(video: [packet], keyframe: false))
        #expect(!viewer.deliver(video: Array(repeating: packet, count: 2), keyframe: true))
        #expect(viewer.counters.videoPacketsSent == 5 && viewer.counters.videoPacketsDropped == 9)
    }

    @Test func keyframeRequestsAreSharedAndDeferredNotDroppedAndOnlyTheRungTakesThem() {
        func feed(_ source: WHEPVideoSource) -> WHEPStreamFeed {
            WHEPStreamFeed(
                key: StreamKey("cam")!,
                videoSource: source,
                hub: StreamHub(),
                configuration: WHEPEgressConfiguration(),
                telemetry: nil,
                logger: Logger(label: "test")
            ) { _ in }
        }
        let rung = feed(.webRTCRung)
        let start = ContinuousClock.now
        rung.requestKeyframe(now: start)
        rung.requestKeyframe(now: start + .milliseconds(100))
        rung.requestKeyframe(now: start + .milliseconds(499))
        #expect(rung.keyframesForced == 1)
        let wanted = rung.keyframeWanted.exchange(false, ordering: .relaxed)
        #expect(wanted)
        rung.tickKeyframeRequests(now: start + .milliseconds(499))
        #expect(rung.keyframesForced == 1)
        // The requests inside the window went out as one when it ended.
        rung.tickKeyframeRequests(now: start + .milliseconds(500))
        #expect(rung.keyframesForced == 2)
        rung.requestKeyframe(now: start + .milliseconds(600))
        rung.tickKeyframeRequests(now: start + .milliseconds(999))
        #expect(rung.keyframesForced == 2)
        rung.tickKeyframeRequests(now: start + .milliseconds(1_000))
        #expect(rung.keyframesForced == 3)
        let passthrough = feed(.rendition(StreamKey("cam")!))
        passthrough.requestKeyframe(now: start)
        #expect(passthrough.keyframesForced == 0)
    }

    @Test func theJoinRungTakesTheShortWindowAndTheWebRTCRungTheStreamsOne() {
        var configuration = WHEPEgressConfiguration()
        configuration.keyframeRequestInterval = .milliseconds(500)
        configuration.joinKeyframeRequestInterval = .milliseconds(150)
        func feed(_ source: WHEPVideoSource) -> WHEPStreamFeed {
            WHEPStreamFeed(
                key: StreamKey("cam")!,
                videoSource: source,
                hub: StreamHub(),
                configuration: configuration,
                telemetry: nil,
                logger: Logger(label: "test")
            ) { _ in }
        }
        let start = ContinuousClock.now
        let join = feed(.joinRung)
        #expect(join.requestKeyframe(now: start))
        // A second joiner 160 ms later: past the join window, its IDR is made at once.
        #expect(join.requestKeyframe(now: start + .milliseconds(160)))
        // Inside the join window: deferred to its end, not to the long window's.
        #expect(!join.requestKeyframe(now: start + .milliseconds(200)))
        join.tickKeyframeRequests(now: start + .milliseconds(309))
        #expect(join.keyframesForced == 2)
        join.tickKeyframeRequests(now: start + .milliseconds(310))
        #expect(join.keyframesForced == 3)
        // The rung settled viewers watch: every IDR costs them a picture, so the stream's window holds.
        let rung = feed(.webRTCRung)
        #expect(rung.requestKeyframe(now: start))
        #expect(!rung.requestKeyframe(now: start + .milliseconds(160)))
        rung.tickKeyframeRequests(now: start + .milliseconds(499))
        #expect(rung.keyframesForced == 1)
        rung.tickKeyframeRequests(now: start + .milliseconds(500))
        #expect(rung.keyframesForced == 2)
    }

    @Test func aPassthroughAsksItsSourceWhenTheSourceCanBeAsked() {
        let key = StreamKey("cam")!
        let requests = KeyframeRequests()
        let asked = Atomic<Int>(0)
        requests.register(key: key) { asked.add(1, ordering: .relaxed) }
        let feed = WHEPStreamFeed(
            key: key,
            videoSource: .rendition(key),
            hub: StreamHub(),
            keyframeRequests: requests,
            configuration: WHEPEgressConfiguration(),
            telemetry: nil,
            logger: Logger(label: "test")
        ) { _ in }
        let start = ContinuousClock.now
        feed.requestKeyframe(now: start)
        feed.requestKeyframe(now: start + .milliseconds(200))
        feed.requestKeyframe(now: start + .milliseconds(700))
        #expect(asked.load(ordering: .relaxed) == 2)
        let wanted = feed.keyframeWanted.load(ordering: .relaxed)
        #expect(!wanted)
    }
}
