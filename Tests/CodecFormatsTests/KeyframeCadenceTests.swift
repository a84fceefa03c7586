import CodecFormats
import Foundation
import MediaCore
import Testing

/// x264's settings SEI and the long-GOP segment grid that the packager and the ladder place independently.
@Suite struct KeyframeCadenceTests {
    /// The start of what FFmpeg's libx264 (`-preset veryfast -bf 2 -g 250`) writes into its first IDR.
    static func x264Text(keyint: String = "250") -> String {
        "x264 - core 164 r3095 baee400 - H.264/MPEG-4 AVC codec - Copyleft 2003-2022 - http://www.videolan.org/x264.html"
            + " - options: cabac=1 ref=1 deblock=1:0:0 threads=3 sliced_threads=0 bframes=2 open_gop=0 weightp=1"
            + " keyint=\(keyint) keyint_min=25 scenecut=40 intra_refresh=0 rc_lookahead=10 rc=crf"
    }

    /// An IDR access unit (AVCC) whose SEI carries `text` after x264's UUID, as x264 writes it (D.1.1 size coding).
    static func idr(settings text: String) -> [UInt8] {
        let uuid: [UInt8] = [
            0xDC, 0x45, 0xE9, 0xBD, 0xE6, 0xD9, 0x48, 0xB7, 0x96, 0x2C, 0xD8, 0x20, 0xD9, 0x23, 0xEE, 0xEF,
        ]
        let payload = uuid + Array(text.utf8) + [0]
        var size = payload.count
        var coded: [UInt8] = []
        while size >= 255 {
            coded.append(0xFF)
            size -= 255
        }
        let sei: [UInt8] = [0x06, 0x05] + coded + [UInt8(size)] + payload + [0x80]
        let slice: [UInt8] = [0x65, 0x88, 0x84, 0x00]
        return avcc(sei) + avcc(slice)
    }

    static func avcc(_ nal: [UInt8]) -> [UInt8] {
        let n = nal.count
        return [UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + nal
    }

    @Test func readsKeyintFromX264sSettingsSEI() {
        #expect(X264SettingsSEI.keyframeInterval(inAVCC: Self.idr(settings: Self.x264Text())) == 250)
        let infinite = Self.x264Text(keyint: "infinite")
        #expect(X264SettingsSEI.keyframeInterval(inAVCC: Self.idr(settings: infinite)) == Int.max)
        // Another encoder's UDU text, or no SEI at all, says nothing.
        #expect(X264SettingsSEI.keyframeInterval(inAVCC: Self.idr(settings: "Lavc60 libx265 keyint=250")) == nil)
        #expect(X264SettingsSEI.keyframeInterval(inAVCC: Self.avcc([0x65, 0x88, 0x84, 0x00])) == nil)
    }

    @Test func theEncodersStatedIntervalMarksALongGOPAtTheFirstKeyframe() {
        var c = KeyframeCadence(target: .seconds(2), frameRate: 30)
        let found = c.observe(time: 0, isKeyframe: true, data: Self.idr(settings: Self.x264Text()))
        #expect(found == .encoderSettings(keyint: 250, seconds: 250.0 / 30))
        // keyint=60 at 30 fps is exactly the target: no grid.
        var short = KeyframeCadence(target: .seconds(2), frameRate: 30)
        let text = Self.x264Text(keyint: "60")
        #expect(short.observe(time: 0, isKeyframe: true, data: Self.idr(settings: text)) == nil)
    }

    /// WHIP asks the browser for a keyframe every segment target (PLI): the encoder's own keyint=250 says nothing.
    @Test func anIngestThatRequestsKeyframesIgnoresTheStatedInterval() {
        var c = KeyframeCadence(target: .seconds(2), frameRate: 30, trustsEncoderSettings: false)
        for n in 0..<300 {
            let data = n == 0 ? Self.idr(settings: Self.x264Text()) : []
            let found = c.observe(time: Self.t(n), isKeyframe: n % 30 == 0, data: data)
            #expect(found == nil && !c.opensSegment(at: Self.t(n)), "frame \(n)")
        }
    }

    /// Frame n at 30 fps in 90 kHz ticks, rounded to milliseconds as RTMP sends it.
    static func t(_ n: Int) -> Int64 { Int64((Double(n) / 30 * 1000).rounded()) * 90 }

    @Test func withoutSettingsALongGOPIsSeen150msPastTheTargetAndCutThere() {
        var c = KeyframeCadence(target: .seconds(2), frameRate: 30)
        var cuts: [Int] = []
        var foundAt: Int?
        for n in 0..<400 {
            if c.observe(time: Self.t(n), isKeyframe: n % 250 == 0, data: []) != nil { foundAt = n }
            if c.opensSegment(at: Self.t(n)) { cuts.append(n) }
        }
        // Frame 65 (2.167 s) is the first one 150 ms past 2 s without a keyframe; then every 60 frames on the grid.
        #expect(foundAt == 65)
        #expect(cuts == [65, 120, 180, 240, 300, 360])
    }

    /// WHIP asks for a keyframe every segment target; it comes a round trip and an encode later (here 2.1 s apart).
    @Test func keyframesEveryTwoSecondsOrALittleLaterAreNotALongGOP() {
        var c = KeyframeCadence(target: .seconds(2), frameRate: 30)
        for n in 0..<630 {
            let found = c.observe(time: Self.t(n), isKeyframe: n % 63 == 0, data: [])
            let cut = c.opensSegment(at: Self.t(n))
            #expect(found == nil && !cut, "frame \(n)")
        }
    }

    /// The ladder asks about pictures in presentation order (B-frames: pts = dts + 2 frames for the IDR), the packager
    /// about frames in decode order; both must put the grid on the same media times.
    @Test func picturesInPresentationOrderHitTheSameGridAsFramesInDecodeOrder() {
        let sei = Self.idr(settings: Self.x264Text())
        var packager = KeyframeCadence(target: .seconds(2), frameRate: 30)
        var ladder = KeyframeCadence(target: .seconds(2), frameRate: 30)
        var packagerCuts: [Int64] = []
        var ladderCuts: [Int64] = []
        // IBBP…: decode order n, presentation order n + 2 frames (the reorder delay), pictures leave 2 frames late.
        for n in 0..<300 {
            let dts = Self.t(n)
            _ = packager.observe(time: dts, isKeyframe: n == 0, data: n == 0 ? sei : [])
            if packager.opensSegment(at: dts) { packagerCuts.append(dts) }
            _ = ladder.observe(time: dts, isKeyframe: n == 0, data: n == 0 ? sei : [])
            if n >= 2, ladder.opensSegment(at: Self.t(n)) { ladderCuts.append(Self.t(n)) }
        }
        #expect(packagerCuts.count == 5)
        // The rung's first IDR is its first picture (pts 2 frames in); every later grid point is the same time.
        #expect(Array(ladderCuts.dropFirst()) == Array(packagerCuts.dropFirst()))
    }
}

/// The early first cut (`hls.first_segment_s`) that packager and ladder place alike.
@Suite struct KeyframeCadenceFirstCutTests {
    /// Cuts over 3 s of 30 fps frames (keyframe every `gop`), the first stating `keyint` when given.
    static func cuts(frameRate: Double?, keyint: String?, gop: Int = 30, evenWithShortGOPs: Bool = true) -> [Int] {
        let early = EarlyFirstSegment(length: .milliseconds(400), evenWithShortGOPs: evenWithShortGOPs)
        var c = KeyframeCadence(target: .seconds(2), frameRate: frameRate, firstSegment: early)
        var cuts: [Int] = []
        for n in 0..<90 {
            let data =
                n == 0
                ? keyint.map { KeyframeCadenceTests.idr(settings: KeyframeCadenceTests.x264Text(keyint: $0)) } ?? []
                : []
            _ = c.observe(time: KeyframeCadenceTests.t(n), isKeyframe: n % gop == 0, data: data)
            if c.opensSegment(at: KeyframeCadenceTests.t(n)) { cuts.append(n) }
        }
        return cuts
    }

    @Test func aStatedIntervalAtAKnownRateCutsOnceAtTheFirstSegmentLength() {
        // Frame 12 is 0.4 s, and x264's bframes=2 starts the pictures two frames later; a short GOP puts no grid after.
        #expect(Self.cuts(frameRate: 30, keyint: "30") == [14])
        // With a passthrough listed, a short GOP keeps its keyframe cuts (no segment may start without one).
        #expect(Self.cuts(frameRate: 30, keyint: "30", evenWithShortGOPs: false).isEmpty)
    }

    @Test func noStatementOrNoFrameRateMeansNoEarlyCut() {
        #expect(Self.cuts(frameRate: 30, keyint: nil).isEmpty)
        #expect(Self.cuts(frameRate: nil, keyint: "30").isEmpty)
    }

    @Test func anIntervalNoLongerThanTheFirstSegmentNeedsNoEarlyCut() {
        #expect(Self.cuts(frameRate: 30, keyint: "12", gop: 12).isEmpty)
    }

    /// Bridged (`transcode.fast_start`): a short GOP gets the early cut when x264 states no B-frames, never otherwise.
    @Test(arguments: [("0", [12], true), ("2", [], false), (nil, [], false)] as [(String?, [Int], Bool)])
    func aShortGOPWithoutBFramesIsCutEarlyWhenTheLadderBridgesIt(bframes: String?, cuts: [Int], bridges: Bool) {
        let early = EarlyFirstSegment(length: .milliseconds(400), bridgesShortGOPs: true)
        var c = KeyframeCadence(target: .seconds(2), frameRate: 30, firstSegment: early)
        var text = KeyframeCadenceTests.x264Text(keyint: "30")
        if let bframes {
            text = text.replacingOccurrences(of: "bframes=2", with: "bframes=\(bframes)")
        } else {
            text = text.replacingOccurrences(of: "bframes=2 ", with: "")
        }
        var found: [Int] = []
        for n in 0..<90 {
            let data = n == 0 ? KeyframeCadenceTests.idr(settings: text) : []
            _ = c.observe(time: KeyframeCadenceTests.t(n), isKeyframe: n % 30 == 0, data: data)
            if c.opensSegment(at: KeyframeCadenceTests.t(n)) { found.append(n) }
        }
        #expect(found == cuts)
        #expect(c.bridgesFirstKeyframeInterval == bridges)
        #expect(
            X264SettingsSEI.bFrames(inAVCC: KeyframeCadenceTests.idr(settings: text)) == bframes.flatMap { Int($0) }
        )
    }

    /// A long GOP is cut early for its own reason: no bridge (the source-size rung replaces the passthrough anyway).
    @Test func aLongGOPIsNeverBridged() {
        let early = EarlyFirstSegment(length: .milliseconds(400), bridgesShortGOPs: true)
        var c = KeyframeCadence(target: .seconds(2), frameRate: 30, firstSegment: early)
        let text = KeyframeCadenceTests.x264Text().replacingOccurrences(of: "bframes=2", with: "bframes=0")
        _ = c.observe(time: 0, isKeyframe: true, data: KeyframeCadenceTests.idr(settings: text))
        #expect(c.cutsFirstSegmentEarly && !c.bridgesFirstKeyframeInterval)
    }

    /// x264 states bframes=2: the pictures start two frames after the first decode time, so the cut is two frames later
    /// (0.4 s of pictures; 0.333 s left stock hls.js stalled on its first audio segment).
    @Test func aLongGOPGetsTheEarlyCutAndThenItsGrid() {
        let early = EarlyFirstSegment(length: .milliseconds(400))
        var c = KeyframeCadence(target: .seconds(2), frameRate: 30, firstSegment: early)
        var cuts: [Int] = []
        for n in 0..<200 {
            let data = n == 0 ? KeyframeCadenceTests.idr(settings: KeyframeCadenceTests.x264Text()) : []
            _ = c.observe(time: KeyframeCadenceTests.t(n), isKeyframe: n % 250 == 0, data: data)
            if c.opensSegment(at: KeyframeCadenceTests.t(n)) { cuts.append(n) }
        }
        #expect(cuts == [0, 14, 60, 120, 180])
        #expect(c.statedInterval == 250.0 / 30)
    }
}
