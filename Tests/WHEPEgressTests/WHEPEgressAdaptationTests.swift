import CodecFormats
import MediaCore
import StreamHub
import Synchronization
import TestSupport
import Testing
import WebRTCTransport
import WebRTCWire

@testable import WHEPEgress

/// Adaptive bit rate over WebRTC, from the service down: a ladder rung is a lower rendition the viewer may take, two
/// estimates under what it is sent step it down onto that rung's feed at the rung's IDR, and back.
@Suite("WHEP bandwidth adaptation")
struct WHEPEgressAdaptationTests {
    typealias Service = WHEPEgressServiceTests

    /// `cam` with a 360p ladder rung live beside it, and one aiortc viewer of the passthrough, playing.
    static func viewerWithARung() async throws -> (
        Service.Fixture, rung: Publication, feed: WHEPStreamFeed, viewer: WHEPViewer
    ) {
        let f = try await Service.fixture()
        let rung = try Self.publishRung(f, "360p", avcC: Self.smallAVCC)
        let (feed, viewer) = try await Service.oneViewer(f)
        viewer.connected()
        return (f, rung, feed, viewer)
    }

    /// A ladder rung of `cam` named `name`, described by `avcC`.
    static func publishRung(_ f: Service.Fixture, _ name: String, avcC: [UInt8]) throws -> Publication {
        let rung = try f.hub.publish(key: Service.key.rendition(name), origin: "ladder")
        rung.update(
            description: StreamDescription(video: try VideoParameters(avcDecoderConfiguration: avcC), audio: nil)
        )
        return rung
    }

    /// libx264 `-profile:v baseline` at 160x120 (constrained baseline, level 1.1): a rung below the 320x240 source.
    static let smallAVCC: [UInt8] = {
        let sps: [UInt8] = [
            0x67, 0x42, 0xC0, 0x0B, 0xD9, 0x02, 0x84, 0x7E, 0x5C, 0x04, 0x40, 0x00, 0x00, 0x03, 0x00, 0x40,
            0x00, 0x00, 0x0F, 0x03, 0xC5, 0x0A, 0x92,
        ]
        return [1, 0x42, 0xC0, 0x0B, 0xFF, 0xE1, 0, UInt8(sps.count)] + sps + [1, 0, 5, 0x68, 0xCB, 0x83, 0xCB, 0x20]
    }()

    /// A rung at the source's own size (the fast-start bridge after its handover, or a long-GOP source's top rung)
    /// is no step down from a passthrough viewer's feed.
    @Test func aRungAtTheSourcesSizeIsNoLowerRendition() async throws {
        let f = try await Service.fixture()
        defer { Task { await f.transport.shutdown() } }
        _ = try Self.publishRung(f, "240p", avcC: WHEPTrackSenderTests.avcC)
        _ = try Self.publishRung(f, "120p", avcC: Self.smallAVCC)
        let (_, viewer) = try await Service.oneViewer(f)
        #expect(viewer.videoSource == "passthrough")
        #expect(viewer.lowerRenditions == [.rendition(Service.key.rendition("120p"))])
    }

    static func idr(pts: Int64) -> MediaFrame {
        WHEPTrackSenderTests.frame([[0x65] + [UInt8](repeating: 7, count: 3_000)], keyframe: true, pts: pts)
    }

    /// The source's IDR reaches the viewer; then one estimate under 85 % of what is sent starts the clock, and the
    /// next, a second later, steps it down (the first one's phase is returned: nil, nothing started yet).
    static func twoLowEstimates(
        _ f: Service.Fixture,
        feed: WHEPStreamFeed,
        viewer: WHEPViewer
    ) async throws
        -> WHEPJoinSwitch.Phase?
    {
        f.publication.send(Self.idr(pts: 0))
        #expect(
            await eventually(within: .seconds(2), every: .milliseconds(10)) {
                viewer.phase == .playing && feed.videoBitRate(now: .now + .seconds(1)) != nil
            }
        )
        let t = ContinuousClock.now + .seconds(1)
        let sent = try #require(feed.videoBitRate(now: t + .milliseconds(1_100)))
        f.service.adapt(viewer, feed: feed, estimate: sent / 2, now: t)
        let afterOne = viewer.timelinePhase
        f.service.adapt(viewer, feed: feed, estimate: sent / 2, now: t + .milliseconds(1_100))
        return afterOne
    }

    @Test func aLadderRungIsALowerRenditionAndTwoLowEstimatesStepTheViewerOntoIt() async throws {
        let (f, rung, feed, viewer) = try await Self.viewerWithARung()
        defer { Task { await f.transport.shutdown() } }
        #expect(viewer.lowerRenditions == [.rendition(Service.key.rendition("360p"))])
        #expect(try await Self.twoLowEstimates(f, feed: feed, viewer: viewer) == nil)
        #expect(viewer.timelinePhase == .steppingDown)
        let lower = try #require(f.service.state.withLock { $0.feeds["cam|rung 360p"] })
        #expect(viewer.lowerRendition === lower && lower.bridgedViewers.map(\.id) == [viewer.id])
        #expect(f.service.viewerReports().first?.video == "passthrough")
        // The source's keyframe holds its frames back; the rung's IDR of that picture takes over.
        f.publication.send(Self.idr(pts: 90_000))
        #expect(
            await eventually(within: .seconds(2), every: .milliseconds(10)) { viewer.timelinePhase == .awaitingRung }
        )
        rung.send(Self.idr(pts: 90_000))
        #expect(await eventually(within: .seconds(2), every: .milliseconds(10)) { viewer.timelinePhase == .onRung })
        #expect(viewer.counters.stepsDown == 1)
        #expect(f.service.viewerReports().first?.video == "rung 360p")
        // Its own feed's frames no longer reach it; the rung's do, on its own SSRC.
        let before = viewer.counters.videoPacketsSent
        f.publication.send(Self.idr(pts: 93_000))
        rung.send(Self.idr(pts: 93_000))
        #expect(
            await eventually(within: .seconds(2), every: .milliseconds(10)) {
                viewer.counters.videoPacketsSent == before + 4
            }
        )
        // Back up at its own feed's next keyframe: the rung, unwatched, stops.
        #expect(viewer.stepUp())
        f.publication.send(Self.idr(pts: 96_000))
        #expect(
            await eventually(within: .seconds(2), every: .milliseconds(10)) {
                viewer.timelinePhase == .switched && viewer.counters.stepsUp == 1
            }
        )
        #expect(
            await eventually(within: .seconds(2), every: .milliseconds(10)) {
                f.service.state.withLock { $0.feeds["cam|rung 360p"] } == nil
            }
        )
    }

    @Test func withoutALadderOrWithAdaptationOffThereIsNothingLower() async throws {
        let f = try await Service.fixture()
        defer { Task { await f.transport.shutdown() } }
        let (feed, viewer) = try await Service.oneViewer(f)
        #expect(viewer.lowerRenditions.isEmpty)
        viewer.connected()
        f.publication.send(Self.idr(pts: 0))
        #expect(await eventually(within: .seconds(2), every: .milliseconds(10)) { viewer.phase == .playing })
        let t = ContinuousClock.now + .seconds(1)
        for i in 0..<4 { f.service.adapt(viewer, feed: feed, estimate: 1, now: t + .seconds(i)) }
        #expect(viewer.timelinePhase == nil && f.service.state.withLock { $0.feeds.count } == 1)
    }

    /// A lower rung whose stream ends sends its viewers back to their own feed (at its next keyframe).
    @Test func aRungThatEndsSendsItsViewersBack() async throws {
        let (f, rung, feed, viewer) = try await Self.viewerWithARung()
        defer { Task { await f.transport.shutdown() } }
        _ = try await Self.twoLowEstimates(f, feed: feed, viewer: viewer)
        rung.send(Self.idr(pts: 3_000))
        #expect(await eventually(within: .seconds(2), every: .milliseconds(10)) { viewer.timelinePhase == .onRung })
        rung.end()
        #expect(
            await eventually(within: .seconds(2), every: .milliseconds(10)) {
                viewer.timelinePhase == .bridging && viewer.lowerRendition == nil
            }
        )
    }
}
