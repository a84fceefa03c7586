import MediaCore
import Testing

@testable import LLHLSPackager

/// EXT-X-GAP segments for MSNs a rendition missed (a rung that reached a new timeline late): the timeline's
/// DISCONTINUITY and init section start on the same MSN as on the other renditions (checklist M7, V4).
@Suite struct GapFillTests {
    static func part(startDTS: Int64, startsSegment: Bool) -> MuxedPart {
        MuxedPart(
            startsSegment: startsSegment,
            startDTS: startDTS,
            duration: 18_000,
            startsWithSync: startsSegment,
            bytes: [0],
            ingested: []
        )
    }

    /// A rendition holding its old timeline's segment open (`defersClose`), on a new timeline from MSN 3.
    static func restarted() -> PublishedRendition {
        var r = PublishedRendition(name: "360p", timescale: 90_000)
        r.installInit([0, 1], session: 0)
        r.installInit([0, 2], session: 1)
        r.defersClose = true
        for i in 0..<10 {
            r.append(
                part(startDTS: Int64(i) * 18_000, startsSegment: i % 5 == 0),
                session: 0,
                programDateTime: WallTime(millisecondsSince1970: 0),
                now: .now
            )
        }
        r.pendingDiscontinuity = true
        return r
    }

    /// The new timeline's DISCONTINUITY goes to its first real segment, not to the GAPs before it: hls.js 1.6 took a
    /// GAP's DISCONTINUITY and the next one for one and decoded the next timeline with the old init section.
    @Test func aNewTimelinesDiscontinuityWaitsForItsFirstRealSegment() {
        var r = Self.restarted()
        r.fillGaps(upTo: 5, lengths: [:], session: 1) { _ in WallTime(millisecondsSince1970: 0) }
        r.append(
            Self.part(startDTS: 500_000, startsSegment: true),
            session: 1,
            programDateTime: WallTime(millisecondsSince1970: 0),
            now: .now
        )
        let byMSN = Dictionary(uniqueKeysWithValues: r.segments.map { ($0.msn, $0) })
        #expect(byMSN[3]?.gapDuration != nil && byMSN[3]?.discontinuity == false && byMSN[4]?.discontinuity == false)
        #expect(byMSN[5]?.discontinuity == true)
        #expect(!r.pendingDiscontinuity)
    }

    @Test func theSegmentBeforeTheGapIsDeclaredShortWhenTheGapHasAnotherInitSection() {
        var r = Self.restarted()
        r.fillGaps(upTo: 4, lengths: [:], session: 1) { _ in WallTime(millisecondsSince1970: 0) }
        let closed = r.segments.first { $0.msn == 2 }
        #expect(closed?.complete == true && closed?.declaredShortBy == 90)
    }

    @Test func gapsOnTheSameTimelineChangeNothingElse() {
        var r = PublishedRendition(name: "360p", timescale: 90_000)
        for i in 0..<10 {
            r.append(
                Self.part(startDTS: Int64(i) * 18_000, startsSegment: i % 5 == 0),
                session: 0,
                programDateTime: WallTime(millisecondsSince1970: 0),
                now: .now
            )
        }
        r.fillGaps(upTo: 5, lengths: [:], session: 0) { _ in WallTime(millisecondsSince1970: 0) }
        #expect(r.segments.allSatisfy { !$0.discontinuity && $0.declaredShortBy == 0 })
    }

    /// A session whose init section is byte for byte the newest keeps its id: players keep the one they hold. Other
    /// bytes, even re-installed for the same session, get a new id (the bytes under an id never change).
    @Test func identicalInitSectionsKeepTheirIDAndChangedBytesGetANewOne() {
        var r = PublishedRendition(name: "video", timescale: 90_000)
        r.installInit([1], session: 0)
        r.installInit([1], session: 1)
        r.installInit([2], session: 2)
        r.installInit([3], session: 2)
        r.installInit([3], session: 3)
        #expect([0, 1, 2, 3].map { r.initID(session: $0) } == [0, 0, 3, 3])
        #expect(r.initSections == [0: [1], 2: [2], 3: [3]])
    }
}
