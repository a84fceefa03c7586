import CodecFormats
import FFmpegBridge
import MediaCore
import Testing

/// The capture clock painted into the test pattern reads back exactly, also after the ladder's scale + x264 trip.
@Suite struct PixelClockTests {
    @Test(arguments: [0, 1, 1_764_063_000_123, (1 << 43) - 1] as [Int64])
    func cellsRoundTripEveryMillisecondValue(_ ms: Int64) {
        let time = WallTime(millisecondsSince1970: ms)
        let cells = PixelClockCode.cells(for: time)
        #expect(cells.count == 64)
        #expect(PixelClockCode.time(from: cells) == time)
    }

    @Test func aFlippedDataCellOrABrokenSyncIsRejected() {
        let cells = PixelClockCode.cells(for: WallTime(millisecondsSince1970: 1_764_063_000_123))
        for i in [0, 3, 4, 20, 51, 52, 59, 60, 63] {
            var bad = cells
            bad[i].toggle()
            #expect(PixelClockCode.time(from: bad) == nil, "cell \(i) flipped still decoded")
        }
        #expect(PixelClockCode.time(from: Array(repeating: false, count: 64)) == nil)
        #expect(PixelClockCode.time(from: Array(repeating: true, count: 64)) == nil)
    }

    @Test func cellsTileThePictureWidthExactly() {
        for width in [640, 854, 1280] {
            let spans = (0..<PixelClockCode.columns).map {
                PixelClockCode.span($0, of: PixelClockCode.columns, extent: width)
            }
            #expect(spans.first?.lowerBound == 0 && spans.last?.upperBound == width)
            #expect(zip(spans, spans.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        }
    }

    /// Source frames with their capture stamps, and the decoded source pictures.
    private func decodedPattern(width: Int, height: Int) throws -> [(capture: WallTime, picture: DecodedPicture)] {
        let source = try TestPatternSource(
            configuration: .init(width: width, height: height, duration: .seconds(1))
        )
        let decoder = try H264Decoder(avcC: try #require(source.streamDescription.video).decoderConfiguration)
        var captures: [Int64: WallTime] = [:]
        var pictures: [DecodedPicture] = []
        while let frame = try source.nextFrame() {
            guard frame.kind == .video else { continue }
            let capture = try #require(frame.stamps.capture)
            captures[frame.pts.converted(to: 90_000).value] = capture
            pictures += try decoder.decode(frame)
        }
        pictures += try decoder.flush()
        return try pictures.map { (try #require(captures[$0.pts.value]), $0) }
    }

    @Test func theSourcePictureCarriesTheCaptureStampTakenWhenItWasMade() throws {
        let decoded = try decodedPattern(width: 854, height: 480)
        #expect(decoded.count == 30)
        for (capture, picture) in decoded {
            #expect(picture.pixelClock == WallTime(millisecondsSince1970: capture.millisecondsSince1970))
        }
        // The SEI the publishers write carries the same stamp (frame.stamps.capture), so both clocks agree.
        let distinct = Set(decoded.map { $0.capture.millisecondsSince1970 })
        #expect(distinct.count > 1)
    }

    @Test(arguments: [(854, 480, 640, 360, 400_000), (1280, 720, 640, 360, 300_000), (1280, 720, 426, 240, 200_000)])
    func theClockSurvivesScalingAndX264(_ c: (Int, Int, Int, Int, Int)) throws {
        let decoded = try decodedPattern(width: c.0, height: c.1)
        let scaler = PictureScaler(width: c.2, height: c.3)
        let encoder = try LadderVideoEncoder(.init(width: c.2, height: c.3, bitRate: c.4))
        var frames: [MediaFrame] = []
        for (i, (_, picture)) in decoded.enumerated() {
            frames += try encoder.encode(try scaler.scale(picture), forceIDR: i == 0)
        }
        frames += try encoder.flush()
        let decoder = try H264Decoder(avcC: encoder.videoParameters.decoderConfiguration)
        var read: [DecodedPicture] = []
        for f in frames { read += try decoder.decode(f) }
        read += try decoder.flush()
        #expect(read.count == decoded.count)
        let expected = Dictionary(
            uniqueKeysWithValues: decoded.map { ($0.picture.pts.value, $0.capture.millisecondsSince1970) }
        )
        for picture in read {
            #expect(picture.pixelClock?.millisecondsSince1970 == expected[picture.pts.value], "pts \(picture.pts)")
        }
    }

    @Test func aPictureWithoutTheCodeReadsNoClock() throws {
        let grey = try DecodedPicture.grey(width: 640, height: 360, pts: MediaTime(value: 0, timescale: 90_000))
        #expect(grey.pixelClock == nil)
    }
}
