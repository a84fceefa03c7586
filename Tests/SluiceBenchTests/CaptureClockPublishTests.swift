import CodecFormats
import FFmpegBridge
import Foundation
import MediaCore
import RTMPPublish
import TestSupport
import Testing

/// The capture clock end to end through real peers: libavcodec reads our SEI, and the RTMP publisher stamps
/// every frame it sends to the ffmpeg CLI with the instant its picture was made (the clock painted into it).
@Suite(.serialized) struct CaptureClockPublishTests {
    @Test func libavcodecExportsOurSEIAsTheSameClock() throws {
        let source = try TestPatternSource(
            configuration: .init(width: 320, height: 240, fps: 30, bFrames: 2, duration: .seconds(1))
        )
        let avcC = try #require(source.streamDescription.video?.decoderConfiguration)
        let decoder = try H264Decoder(avcC: avcC)
        var stamped: [MediaTime: WallTime] = [:]
        var decoded: [MediaTime: WallTime?] = [:]
        var n: Int64 = 0
        func take(_ pictures: [DecodedPicture]) {
            for p in pictures {
                decoded[p.pts] = p.userDataUnregistered.lazy.compactMap(CaptureTimeSEI.captureTime(inPayload:)).first
            }
        }
        while let frame = try source.nextFrame() {
            guard frame.kind == .video else { continue }
            // Microsecond steps with zero bytes in them, so emulation prevention is exercised.
            let clock = WallTime(nanosecondsSince1970: (0x0006_1234_0000_0000 + n * 65_536) * 1_000)
            n += 1
            var withClock = frame
            withClock.data = try CaptureTimeSEI.inserting(capture: clock, intoAVCC: frame.data)
            stamped[frame.pts.converted(to: 90_000)] = clock
            take(try decoder.decode(withClock))
        }
        take(try decoder.flush())
        #expect(stamped.count == 30)
        #expect(decoded.count == stamped.count)
        #expect(decoded.allSatisfy { stamped[$0.key] == $0.value })
    }

    @Test func everyPublishedVideoFrameCarriesTheClockOfItsPictureNotOfItsSend() async throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try FFmpegRTMPRecorder(in: dir)
        defer { server.stop() }
        let (url, out) = (server.url, server.output)
        var publisher: RTMPPublisher?
        for _ in 0..<50 where publisher == nil {
            publisher = try? RTMPPublisher(url: url)
            if publisher == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let connected = try #require(publisher)
        let source = try TestPatternSource(
            configuration: .init(width: 320, height: 240, fps: 30, duration: .seconds(3))
        )
        let before = WallTime.now()
        let report = try await publish(source: source, with: connected)
        let after = WallTime.now()
        connected.close()
        _ = try await server.waitForExit()

        let file = try MediaFileSource(path: out)
        var video: [MediaFrame] = []
        while let frame = try file.nextFrame() {
            if frame.kind == .video { video.append(frame) }
        }
        #expect(video.count == report.videoFrames)
        let clocks = video.map { CaptureTimeSEI.captureTime(inAVCC: $0.data) }
        #expect(clocks.allSatisfy { $0 != nil })
        let times = clocks.compactMap { $0 }
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        #expect(times.first.map { $0 >= before } == true && times.last.map { $0 <= after } == true)
        // The test pattern paints picture N as soon as N-1 is released, then the pacer holds it until due: its
        // clock precedes its due time by at most one frame interval, and is late only by scheduling.
        let first = try #require(video.first)
        for (frame, time) in zip(video, times) {
            let lateness = time.duration(since: before) - (frame.dts - first.dts).duration
            #expect(lateness > .milliseconds(-36) && lateness < .milliseconds(500), "dts \(frame.dts): \(lateness)")
        }
        // The SEI and the pixels carry the same instant: when the picture was made, before encoding.
        let decoder = try H264Decoder(avcC: try #require(file.streamDescription.video?.decoderConfiguration))
        var pictures: [DecodedPicture] = []
        for frame in video { pictures += try decoder.decode(frame) }
        pictures += try decoder.flush()
        #expect(pictures.count == video.count)
        for picture in pictures {
            let sei = picture.userDataUnregistered.lazy.compactMap(CaptureTimeSEI.captureTime(inPayload:)).first
            let seiMs = try #require(sei).millisecondsSince1970
            #expect(picture.pixelClock?.millisecondsSince1970 == seiMs, "pts \(picture.pts)")
        }
    }
}
