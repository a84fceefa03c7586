import CFFmpeg
import Foundation
import MediaCore
import Testing

@testable import FFmpegBridge

/// The slate encodes once into a GOP that decodes on its own (a keyframe, then pictures that repeat it), shows its
/// letters, carries no SEI, and its silence is one AAC frame that decodes to zeros.
struct SlateEncodingTests {
    /// HEVC and AV1 passthrough sources get their slate in their own codec (libx265, SVT-AV1).
    @Test(arguments: [Codec.h264, .hevc, .av1], [(640, 360), (1280, 720), (426, 240)])
    func theGOPDecodesToTheSlatePicture(codec: Codec, size: (width: Int, height: Int)) throws {
        let (width, height) = size
        let (parameters, frames) = try SlateEncoding.video(
            codec: codec,
            width: width,
            height: height,
            frameRate: 30,
            frames: 30
        )
        #expect(parameters.width == width && parameters.height == height && parameters.codec == codec)
        #expect(frames.count == 30)
        #expect(frames.first?.isKeyframe == true && frames.dropFirst().allSatisfy { !$0.isKeyframe })
        // Pictures that repeat the keyframe cost less than it.
        let key = try #require(frames.first).data.count
        #expect(frames.dropFirst().allSatisfy { $0.data.count < key })
        if codec == .h264 { #expect(frames.allSatisfy { !H264NALTypes.of($0.data).contains(6) }) }
        let decoder = try VideoDecoder(video: parameters)
        var pictures: [DecodedPicture] = []
        for f in frames { pictures += try decoder.decode(f) }
        pictures += try decoder.flush()
        #expect(pictures.count == 30)
        let picture = try #require(pictures.last)
        let f = picture.frame.pointer.pointee
        let y = try #require(f.data.0)
        var letters = 0
        var field = 0
        for row in 0..<height {
            for column in 0..<width {
                let luma = y[row * Int(f.linesize.0) + column]
                if SlatePainter.isLetter(x: column, y: row, width: width, height: height) {
                    if luma > 150 { letters += 1 }
                } else if luma < 80 {
                    field += 1
                }
            }
        }
        let letterPixels = (0..<height).reduce(0) { sum, row in
            sum + (0..<width).filter { SlatePainter.isLetter(x: $0, y: row, width: width, height: height) }.count
        }
        #expect(letterPixels > 0)
        #expect(Double(letters) >= 0.9 * Double(letterPixels))
        #expect(Double(field) >= 0.9 * Double(width * height - letterPixels))
    }

    @Test(arguments: [(48_000, 2), (44_100, 1)])
    func silenceIsOneAACFrameAtTheStreamsRate(rate: Int, channels: Int) throws {
        let (parameters, frame) = try SlateEncoding.silence(sampleRate: rate, channels: channels)
        #expect(parameters.sampleRate == rate && parameters.channels == channels && parameters.codec == .aac)
        #expect(frame.kind == .audio && !frame.data.isEmpty && frame.data.count < 64)
    }
}

/// NAL unit types of an AVCC sample (4-byte lengths).
enum H264NALTypes {
    static func of(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i + 4 < data.count {
            let length = data[i..<i + 4].reduce(0) { $0 << 8 | Int($1) }
            guard length > 0, i + 4 + length <= data.count else { break }
            out.append(data[i + 4] & 0x1F)
            i += 4 + length
        }
        return out
    }
}

/// `ingest.slate_image`: a PNG or JPEG becomes the slate's picture at each stream's size; anything else is refused.
struct SlateImageTests {
    /// A one-colour image written by the `ffmpeg` CLI.
    static func image(_ format: String) throws -> [UInt8] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("slate-\(getpid()).\(format)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = [
            "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=lime:size=320x240",
            "-frames:v", "1", path,
        ]
        try p.run()
        p.waitUntilExit()
        return Array(try #require(FileManager.default.contents(atPath: path)))
    }

    @Test(arguments: ["png", "jpg"])
    func theImageIsTheSlatesPictureAtTheStreamsSize(format: String) throws {
        let image = try SlateImage(bytes: try Self.image(format))
        let (parameters, frames) = try SlateEncoding.video(
            width: 640,
            height: 360,
            frameRate: 30,
            frames: 2,
            image: image
        )
        let decoder = try VideoDecoder(video: parameters)
        var pictures: [DecodedPicture] = []
        for f in frames { pictures += try decoder.decode(f) }
        pictures += try decoder.flush()
        let picture = try #require(pictures.first)
        #expect(picture.width == 640 && picture.height == 360)
        let f = picture.frame.pointer.pointee
        let u = try #require(f.data.1)[90 * Int(f.linesize.1) + 160]
        let v = try #require(f.data.2)[90 * Int(f.linesize.2) + 160]
        // Green has both chroma components well below neutral (128); the drawn slate's field has U above it.
        #expect(u < 100 && v < 100, "u \(u) v \(v)")
    }

    @Test func bytesThatAreNotAnImageAreRefusedWithTheReason() {
        #expect(throws: FFmpegError.self) { try SlateImage(bytes: Array("GIF89a not supported".utf8)) }
        #expect(throws: FFmpegError.self) { try SlateImage(bytes: [0x89, 0x50, 0x4E, 0x47, 0, 1, 2]) }
    }
}
