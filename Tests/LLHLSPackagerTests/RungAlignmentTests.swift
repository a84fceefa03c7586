import MediaCore
import Testing

@testable import LLHLSPackager

/// Ladder rungs cut the same parts as the source, whatever order the source and rung descriptions arrive in.
@Suite struct RungAlignmentTests {
    /// Parts per MSN as (count, indices of INDEPENDENT parts).
    static func layout(_ r: PublishedRendition) -> [Int: [Bool]] {
        Dictionary(uniqueKeysWithValues: r.segments.map { ($0.msn, $0.parts.map(\.independent)) })
    }

    /// RTMP-like millisecond timestamps (33/34 ms) and 1 s GOPs in 2 s segments: the GOP start is a mid-segment part.
    @Test(arguments: [false, true])
    func rungPartsMatchTheSourceEvenWhenTheRungIsAnnouncedFirst(rungFirst: Bool) throws {
        let d = try Fixtures.description(audio: false)
        var config = LLHLSConfiguration()
        config.segmentTarget = .seconds(2)
        var s = LLHLSStreamState(key: Fixtures.key, epoch: Fixtures.epoch, config: config)
        s.beginSession()
        // The ladder may announce a rung before the packager has seen the source's description (separate hub readers).
        if rungFirst { s.applyRung("360p", description: d) }
        s.apply(d)
        if !rungFirst { s.applyRung("360p", description: d) }
        for frame in Fixtures.av(seconds: 8, gop: 30, audio: false, millisecond: true) {
            s.apply(frame, now: .now)
            s.applyRung("360p", frame: frame, now: .now)
        }
        let source = Self.layout(s.rendition(.video))
        let rung = Self.layout(try #require(s.rungs["360p"]).rendition)
        let common = Set(source.keys).intersection(rung.keys).filter { source[$0]!.count > 5 }
        #expect(common.count >= 2)
        for msn in common.sorted() {
            #expect(rung[msn] == source[msn], "MSN \(msn): rung \(rung[msn]!) vs source \(source[msn]!)")
            #expect(source[msn]![5], "MSN \(msn): the mid-segment GOP start opens part 5")
        }
    }
}
