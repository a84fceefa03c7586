import HLSPlaylist
import MediaCore
import TestSupport
import Testing

/// RFC 8216bis §6.2.5.1: a delta update replaces the segments further than the Skip Boundary from the end.
@Suite("Delta updates: skippableSegmentCount")
struct SkipBoundaryTests {
    static let boundaryTicks: Int64 = 12 * 90_000

    /// A live playlist of segments with these durations (90 kHz ticks); the last one open when `openLast`.
    static func playlist(_ durations: [Int64], openLast: Bool, discontinuities: Set<Int> = []) -> MediaPlaylist {
        let segments = durations.enumerated().map { i, d in
            MediaSegment(
                mediaSequence: 100 + i,
                duration: MediaTime(value: d, timescale: 90_000),
                uri: openLast && i == durations.count - 1 ? nil : "\(100 + i).m4s",
                discontinuity: discontinuities.contains(i),
                mapURI: i == 0 ? "init-0.mp4" : nil
            )
        }
        return MediaPlaylist(
            targetDuration: 2,
            partTarget: MediaTime(value: 18_090, timescale: 90_000),
            serverControl: ServerControl(
                canBlockReload: true,
                partHoldBack: .milliseconds(603),
                holdBack: .seconds(6),
                canSkipUntil: .seconds(12)
            ),
            mediaSequence: 100,
            segments: segments,
            preloadHintURI: "x.m4s"
        )
    }

    @Test func skipsExactlyTheSegmentsEndingBeyondTheBoundary() {
        // Ten 2 s segments: 0…3 end 12 s or more before the end; segment 3 ends exactly 12 s before it (not "further").
        let p = Self.playlist(Array(repeating: 180_000, count: 10), openLast: false)
        #expect(p.skippableSegmentCount() == 3)
    }

    @Test func nothingIsSkippableWithoutCanSkipUntilOrOnceEnded() {
        var p = Self.playlist(Array(repeating: 180_000, count: 12), openLast: false)
        p.endList = true
        #expect(p.skippableSegmentCount() == 0)
        p.endList = false
        p.serverControl?.canSkipUntil = nil
        #expect(p.skippableSegmentCount() == 0)
    }

    @Test func shortPlaylistsSkipNothing() {
        #expect(Self.playlist(Array(repeating: 180_000, count: 6), openLast: true).skippableSegmentCount() == 0)
        #expect(Self.playlist([], openLast: false).skippableSegmentCount() == 0)
    }

    /// Segments beyond the boundary are skipped even when one starts a discontinuity (checklist: delta updates).
    @Test func skipsPastADiscontinuityAndKeepsItsMap() {
        var p = Self.playlist(Array(repeating: 180_000, count: 12), openLast: true, discontinuities: [2])
        p.segments[2].mapURI = "init-1.mp4"
        #expect(p.skippableSegmentCount() == 5)
        let text = p.render(skipping: 5)
        // The map in force after the skipped segments is restated right after EXT-X-SKIP.
        #expect(text.contains("#EXT-X-SKIP:SKIPPED-SEGMENTS=5\n#EXT-X-MAP:URI=\"init-1.mp4\"\n"))
    }

    @Test func randomWindowsRespectTheSkipBoundary() {
        var rng = SeededRandom(seed: 0x5EED_5EC5)
        for _ in 0..<2_000 {
            let count = Int.random(in: 0...16, using: &rng)
            // Whole frames of 29.97 fps, 0.5…2.5 s, so sums are not round numbers of seconds.
            let durations = (0..<count).map { _ in Int64.random(in: 15...75, using: &rng) * 3_003 }
            let openLast = Bool.random(using: &rng)
            let discontinuities: Set<Int> =
                Int.random(in: 0..<4, using: &rng) == 0 && count > 0 ? [Int.random(in: 0..<count, using: &rng)] : []
            let p = Self.playlist(durations, openLast: openLast, discontinuities: discontinuities)
            let n = p.skippableSegmentCount()
            #expect(n >= 0 && n <= count)
            guard n > 0 else {
                // A segment ending beyond the boundary must be skipped (MUST in §6.2.5.1).
                if count > 1 {
                    #expect(durations.dropFirst().reduce(0, +) <= Self.boundaryTicks, "\(durations)")
                }
                continue
            }
            // The last skipped segment ends more than the Skip Boundary before the end of the last parent segment.
            let remaining = durations[n...].reduce(0, +)
            #expect(remaining > Self.boundaryTicks, "\(durations) skip \(n)")
            #expect(p.segments[..<n].allSatisfy { $0.isComplete })
            // Maximal: the first kept segment ends within the boundary.
            #expect(durations[(n + 1)...].reduce(0, +) <= Self.boundaryTicks, "\(durations) skip \(n)")
            // The delta lists every segment it did not skip.
            let text = p.render(skipping: n)
            #expect(text.contains("#EXT-X-SKIP:SKIPPED-SEGMENTS=\(n)\n"))
            #expect(
                text.split(separator: "\n").filter { $0.hasPrefix("#EXTINF:") }.count == (count - n)
                    - (openLast ? 1 : 0)
            )
        }
    }
}
