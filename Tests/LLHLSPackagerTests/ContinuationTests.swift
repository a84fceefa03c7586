import HLSPlaylist
import MediaCore
import Testing

@testable import LLHLSPackager

/// A stream that continues another node's numbering (its encoder reconnected here): what its playlists say, how it
/// answers the blocking reloads of viewers who followed the other node, and the position it records in turn.
@Suite("Continuing another node's stream")
struct ContinuationTests {
    static let continuation = StreamContinuation(
        continuing: StreamPosition(
            nextMSN: 40,
            discontinuity: 2,
            epoch: "old",
            node: "http://10.0.0.1:8080",
            recordedAt: Fixtures.wall0
        ),
        now: Fixtures.wall0,
        segmentTarget: .seconds(1),
        slack: .seconds(2),
        maxAge: .seconds(60)
    )!

    static func continued() throws -> LLHLSStreamState {
        var s = LLHLSStreamState(
            key: Fixtures.key,
            epoch: Fixtures.epoch,
            config: LLHLSConfiguration(),
            continuation: continuation
        )
        s.beginSession(now: .now)
        s.apply(try Fixtures.description(), now: .now)
        return s
    }

    @Test func firstSegmentComesPastTheOtherNodesWithADiscontinuity() throws {
        #expect(Self.continuation.firstMSN == 43)
        var s = try Self.continued()
        s.feed(Fixtures.av(seconds: 5))
        for kind in [MediaKind.video, .audio] {
            let text = try #require(s.mediaPlaylist(kind)).render()
            #expect(text.contains("#EXT-X-MEDIA-SEQUENCE:43\n#EXT-X-DISCONTINUITY-SEQUENCE:3\n#EXT-X-DISCONTINUITY\n"))
            #expect(text.split(separator: "\n").filter { $0 == "#EXT-X-DISCONTINUITY" }.count == 1)
            #expect(s.rendition(kind).segments.first?.msn == 43)
        }
        // What this node records for the next one: its own next MSN, the first segment's discontinuity number (4).
        let numbering = try #require(s.numbering)
        #expect(numbering.nextMSN == s.rendition(.video).nextMSN && numbering.nextMSN > 43)
        #expect(numbering.discontinuity == 4)
    }

    @Test func aViewerOfTheOtherNodeWaitsForTheFirstPartInsteadOfA400() throws {
        var s = try Self.continued()
        // hls.js read the other node's playlist up to 39.3 and asks for the next part.
        #expect(s.decide(.video, PlaylistRequest(msn: 39, part: 4)) != .ready)
        if case .badRequest(let why) = s.decide(.video, PlaylistRequest(msn: 39, part: 4)) { Issue.record("\(why)") }
        if case .badRequest(let why) = s.decide(.video, PlaylistRequest(msn: 43)) { Issue.record("\(why)") }
        s.feed(Fixtures.av(seconds: 1))
        #expect(s.decide(.video, PlaylistRequest(msn: 39, part: 4)) == .ready)
    }

    @Test func aNewStreamStartsAtTheFirstMSNAndRecordsItsReconnects() throws {
        var s = Fixtures.state(try Fixtures.description())
        #expect(s.numbering?.nextMSN == PublishedRendition.firstMSN)
        s.feed(Fixtures.av(seconds: 5))
        #expect(s.rendition(.video).segments.first?.discontinuity == false)
        #expect(s.numbering?.discontinuity == 0)
        // A reconnect on this node: the next segment is a discontinuity, the newest one after it counts it.
        s.publisherLeft(now: .now)
        s.beginSession(now: .now)
        s.feed(Fixtures.av(seconds: 3, from: 5))
        #expect(s.numbering?.discontinuity == 1)
        #expect(s.numbering?.nextMSN == s.rendition(.video).nextMSN)
    }
}
