import CFFmpeg
import MediaCore
import Testing

@testable import FFmpegBridge

/// The slate encodes once into a GOP that decodes on its own (a keyframe, then pictures that repeat it), shows its
/// letters, carries no SEI, and its silence is one AAC frame that decodes to zeros.
struct SlateEncodingTests {
    @Test(arguments: [(640, 360), (1280, 720), (426, 240)])
    func theGOPDecodesToTheSlatePicture(width: Int, height: Int) throws {
        let (parameters, frames) = try SlateEncoding.video(width: width, height: height, frameRate: 30, frames: 30)
        #expect(parameters.width == width && parameters.height == height && parameters.codec == .h264)
        #expect(frames.count == 30)
        #expect(frames.first?.isKeyframe == true && frames.dropFirst().allSatisfy { !$0.isKeyframe })
        // Pictures that repeat the keyframe cost less than it.
        let key = try #require(frames.first).data.count
        #expect(frames.dropFirst().allSatisfy { $0.data.count < key })
        #expect(frames.allSatisfy { !H264NALTypes.of($0.data).contains(6) })
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
