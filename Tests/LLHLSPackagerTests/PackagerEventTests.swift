import CodecFormats
import MediaCore
import Testing

@testable import LLHLSPackager

/// Golden event lists: short scripted sessions fed to the packaging state, and exactly what it says it did (which
/// part at which media time, which segment closed how long, what was decided). Every call gets the same clock
/// reading, so no part waits out a hold and the lists do not depend on the machine.
@Suite struct PackagerEventTests {
    static let now = ClockReading(instant: ContinuousClock.now, wall: Fixtures.wall0)

    /// An event as one line; media times in seconds with 3 decimals.
    static func line(_ e: PackagerEvent) -> String {
        func s(_ t: MediaTime) -> String {
            let ms = t.converted(to: 1000).value
            let frac = String(ms % 1000)
            return "\(ms / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
        }
        switch e {
        case .timelineRestarted(let session): return "restart session \(session)"
        case .tracksDescribed: return "tracks"
        case .rungAttached(let name, let session): return "attach \(name) session \(session)"
        case .rungAnnounced(let name): return "announce \(name)"
        case .renditionStarted(let name, let msn): return "start \(name) at msn \(msn)"
        case .partPublished(let p):
            return "part \(p.rendition) \(p.msn).\(p.index) \(s(p.start))+\(s(p.duration))\(p.independent ? " I" : "")"
        case .segmentClosed(let name, let msn, let duration, _): return "segment \(name) \(msn) \(s(duration))"
        case .targetDurationDecided(let td): return "targetduration \(td)"
        case .longGOPDetected(let evidence): return "long GOP: \(evidence)"
        case .rungFellBehind(let name): return "behind \(name)"
        case .rungCaughtUp(let name): return "caught up \(name)"
        case .rungStopped(let name): return "stopped \(name)"
        case .rungListed(let name, let listed): return "\(listed ? "listed" : "withdrawn") \(name)"
        case .audioDroppedBeforeVideo(let frames, let span): return "audio before video \(frames) \(s(span))"
        case .publisherLeft: return "publisher left"
        case .ended: return "ended"
        }
    }

    /// A source and one rung at half its size (so it does not replace the passthrough) announced before any frame.
    static func ladder() throws -> (LLHLSStreamState, [PackagerEvent]) {
        var s = LLHLSStreamState(key: Fixtures.key, epoch: Fixtures.epoch, config: LLHLSConfiguration())
        var rung = try Fixtures.video()
        rung.width /= 2
        rung.height /= 2
        let events =
            s.beginSession(now: now) + s.apply(try Fixtures.description(audio: false), now: now)
            + s.applyRung("180p", description: StreamDescription(video: rung), now: now)
        return (s, events)
    }

    /// How a ladder's first 0.4 s are listed when the rung keeps up.
    static let rungStart = [
        "tracks",
        "announce 180p",
        "start 180p at msn 1",
        // A rung without a part yet does not hold the source's first part, and is not reported behind: it is starting.
        "part video 1.0 0.000+0.200 I",
        "part 180p 1.0 0.000+0.200 I",
        "part video 1.1 0.200+0.200",
        "part 180p 1.1 0.200+0.200",
    ]

    /// A scripted session: what it shows, the calls, and every event they return, in order.
    struct Script: Sendable {
        var name: String
        var run: @Sendable () throws -> [PackagerEvent]
        var expected: [String]
    }

    static let scripts: [Script] = [
        Script(
            name: "source video: 0.2 s parts, the first segment closes at the 1 s keyframe and fixes TARGETDURATION",
            run: {
                var s = LLHLSStreamState(key: Fixtures.key, epoch: Fixtures.epoch, config: LLHLSConfiguration())
                return s.beginSession(now: now) + s.apply(try Fixtures.description(audio: false), now: now)
                    + s.feed(Fixtures.av(seconds: 1.3, gop: 30, audio: false), now: now)
            },
            expected: [
                "tracks",
                "part video 1.0 0.000+0.200 I",
                "part video 1.1 0.200+0.200",
                "part video 1.2 0.400+0.200",
                "part video 1.3 0.600+0.200",
                "part video 1.4 0.800+0.200",
                "segment video 1 1.000",
                "targetduration 1",
                "part video 2.0 1.000+0.200 I",
            ]
        ),
        Script(
            name: "a rung starts on the source's cut and its parts are listed in step with the source's",
            run: {
                var (s, events) = try ladder()
                for f in Fixtures.av(seconds: 1.3, gop: 30, audio: false) {
                    events += s.apply(f, now: now) + s.applyRung("180p", frame: f, now: now)
                }
                return events
            },
            expected: rungStart + [
                "part video 1.2 0.400+0.200",
                "part 180p 1.2 0.400+0.200",
                "part video 1.3 0.600+0.200",
                "part 180p 1.3 0.600+0.200",
                "targetduration 1",
                "part video 1.4 0.800+0.200",
                "segment video 1 1.000",
                "part 180p 1.4 0.800+0.200",
                "segment 180p 1 1.000",
                "part video 2.0 1.000+0.200 I",
                "part 180p 2.0 1.000+0.200 I",
            ]
        ),
        Script(
            name: "a rung that stops after 0.5 s holds the source for 1 s of media, then falls behind",
            run: {
                var (s, events) = try ladder()
                for (i, f) in Fixtures.av(seconds: 1.9, gop: 30, audio: false).enumerated() {
                    events += s.apply(f, now: now) + (i < 15 ? s.applyRung("180p", frame: f, now: now) : [])
                }
                return events
            },
            expected: rungStart + [
                "targetduration 1",
                // The rung's last part ends at 0.4 s: the source's parts wait until the source is 1 s of media ahead.
                "behind 180p",
                "part video 1.2 0.400+0.200",
                "part video 1.3 0.600+0.200",
                "part video 1.4 0.800+0.200",
                "segment video 1 1.000",
                "part video 2.0 1.000+0.200 I",
                "part video 2.1 1.200+0.200",
                "part video 2.2 1.400+0.200",
                "part video 2.3 1.600+0.200",
            ]
        ),
        Script(
            name: "a long GOP (keyint=250) is found at the first IDR; the source is cut on the 2 s grid",
            run: {
                var s = LLHLSStreamState(key: Fixtures.key, epoch: Fixtures.epoch, config: LLHLSConfiguration())
                return s.beginSession(now: now) + s.apply(try Fixtures.description(audio: false), now: now)
                    + s.feed(LongGOPTests.source(seconds: 2.3, settingsSEI: true), now: now)
            },
            expected: [
                "tracks",
                "long GOP: the encoder's keyint=250 (8.3 s)",
                "part video 1.0 0.000+0.200 I",
                "part video 1.1 0.200+0.200",
                "part video 1.2 0.400+0.200",
                "part video 1.3 0.600+0.200",
                "part video 1.4 0.800+0.200",
                "part video 1.5 1.000+0.200",
                "part video 1.6 1.200+0.200",
                "part video 1.7 1.400+0.200",
                "part video 1.8 1.600+0.200",
                "part video 1.9 1.800+0.200",
                "segment video 1 2.000",
                "targetduration 2",
                "part video 2.0 2.000+0.200",
            ]
        ),
        Script(
            name: "the publisher leaves mid-segment and comes back: flushed, then a new timeline",
            run: {
                var s = LLHLSStreamState(key: Fixtures.key, epoch: Fixtures.epoch, config: LLHLSConfiguration())
                let d = try Fixtures.description(audio: false)
                var events = s.beginSession(now: now) + s.apply(d, now: now)
                events += s.feed(Fixtures.av(seconds: 0.5, gop: 30, audio: false), now: now)
                events += s.publisherLeft(now: now) + s.beginSession(now: now) + s.apply(d, now: now)
                events += s.feed(Fixtures.av(seconds: 0.3, gop: 30, audio: false), now: now) + s.end(now: now)
                return events
            },
            expected: [
                "tracks",
                "part video 1.0 0.000+0.200 I",
                "part video 1.1 0.200+0.200",
                "part video 1.2 0.400+0.100",
                "segment video 1 0.500",
                "publisher left",
                "restart session 1",
                // The first two source cuts (0 s, and the new session's at 0.5 s) decide it.
                "targetduration 1",
                "part video 2.0 0.500+0.200 I",
                "part video 2.1 0.700+0.100",
                "segment video 2 0.300",
                "ended",
            ]
        ),
    ]

    /// After the source's first segment, the multivariant waits `rungStartLimit` for a rung without media, then
    /// leaves it out (time after the source's first segment completed, renditions served, renditions left out).
    static let listingTable: [(Duration, [String]?, [String])] = [
        (.zero, nil, []),
        (.milliseconds(1_499), nil, []),
        (RenditionListing.rungStartLimit, ["video"], ["180p"]),
        (.seconds(60), ["video"], ["180p"]),
    ]

    @Test func aRungWithoutMediaIsLeftOutOnceTheStartLimitPasses() throws {
        var (s, _) = try Self.ladder()
        // The rung never sends a frame; the source's first segment completes with its last part, 1.4.
        let events = s.feed(Fixtures.av(seconds: 1.3, gop: 30, audio: false), now: Self.now).map(Self.line)
        #expect(events.contains("segment video 1 1.000") && events.contains("part video 2.0 1.000+0.200 I"))
        #expect(s.listing.leadFirstCompleted == Self.now.instant)
        for (after, served, leftOut) in Self.listingTable {
            #expect(s.servedRenditions(now: Self.now.instant + after) == served, "\(after)")
            #expect(s.listing.leftOut(now: Self.now.instant + after) == leftOut, "\(after)")
        }
        // Once it has its first segment it is served again.
        var listing = s.listing
        listing.started.insert("180p")
        #expect(listing.served(now: Self.now.instant + .seconds(60)) == ["video", "180p"])
    }

    @Test(arguments: 0..<scripts.count)
    func theStateReturnsExactlyTheseEvents(_ i: Int) throws {
        let script = Self.scripts[i]
        let lines = try script.run().map(Self.line)
        #expect(lines == script.expected, "\(script.name):\n\(lines.map { "\"\($0)\"," }.joined(separator: "\n"))")
    }
}
