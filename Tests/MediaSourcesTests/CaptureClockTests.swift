import CodecFormats
import MediaCore
import MediaSources
import Testing

/// The publisher's capture clock, shared by the RTMP and WHIP publishers: SEI in, read back at ingest.
@Suite struct CaptureClockTests {
    static let wall = WallTime(millisecondsSince1970: 1_800_000_000_123)

    @Test func videoCarriesTheWallClockInItsSEIAndStamps() throws {
        let idr: [UInt8] = [0, 0, 0, 3, 0x65, 0x88, 0x84]
        let frame = MediaFrame(kind: .video, dts: MediaTime(value: 0, timescale: 90_000), isKeyframe: true, data: idr)
        let stamped = try CaptureClock.stamp(frame, at: Self.wall)
        #expect(stamped.stamps.capture == Self.wall)
        #expect(CaptureTimeSEI.captureTime(inAVCC: stamped.data) == Self.wall)
        #expect(Array(stamped.data.suffix(idr.count)) == idr)
    }

    @Test func audioPassesUnchanged() throws {
        let frame = MediaFrame(
            kind: .audio,
            dts: MediaTime(value: 0, timescale: 48_000),
            isKeyframe: true,
            data: [1, 2]
        )
        let out = try CaptureClock.stamp(frame, at: Self.wall)
        #expect(out.data == frame.data && out.stamps.capture == nil)
    }

    @Test func videoThatIsNotAVCCIsRefused() {
        let frame = MediaFrame(
            kind: .video,
            dts: MediaTime(value: 0, timescale: 90_000),
            isKeyframe: true,
            data: [0, 0, 9]
        )
        #expect(throws: CodecFormatError.self) { try CaptureClock.stamp(frame, at: Self.wall) }
    }
}
