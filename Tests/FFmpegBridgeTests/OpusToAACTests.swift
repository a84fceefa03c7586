import CodecFormats
import FFmpegBridge
import Foundation
import MediaCore
import MediaTestSupport
import TestSupport
import Testing

/// Opus (what WebRTC publishers send) becomes AAC-LC 48 kHz stereo.
@Suite struct OpusToAACTests {
    @Test func opusTranscodesToContinuousAAC() throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("a.opus").path
        let (status, _) = try ExternalTool.run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                "-t", "2", "-ac", "2", "-c:a", "libopus", "-frame_duration", "20", "-f", "ogg", path,
            ]
        )
        try #require(status == 0)
        let packets = OggOpus.packets(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        try #require(packets.count > 3 && packets[0].starts(with: Array("OpusHead".utf8)))
        let input = AudioParameters(
            codec: .opus,
            decoderConfiguration: packets[0],
            sampleRate: 48_000,
            channels: 2,
            samplesPerFrame: 960,
            codecString: "opus"
        )
        let transcoder = try AACTranscoder(input: input)
        var out: [MediaFrame] = []
        let audio = packets.dropFirst(2)
        for (i, packet) in audio.enumerated() {
            let frame = MediaFrame(
                kind: .audio,
                dts: MediaTime(value: Int64(i) * 960, timescale: 48_000),
                isKeyframe: true,
                data: packet
            )
            out += try transcoder.transcode(frame)
        }
        out += try transcoder.flush()
        #expect(transcoder.outputParameters.codecString == "mp4a.40.2" && transcoder.outputParameters.channels == 2)
        #expect(zip(out, out.dropFirst()).allSatisfy { $1.dts.value - $0.dts.value == 1_024 })
        // ffprobe decodes every AAC frame once framed as ADTS.
        let config = try AudioSpecificConfig(parsing: transcoder.outputParameters.decoderConfiguration)
        let adts = out.flatMap { ADTSHeader(config: config, payloadLength: $0.data.count).serialize() + $0.data }
        let adtsPath = dir.appendingPathComponent("out.aac").path
        try Data(adts).write(to: URL(fileURLWithPath: adtsPath))
        let (_, probed) = try ExternalTool.run(
            "ffprobe",
            [
                "-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames,sample_rate", "-of", "csv=p=0",
                adtsPath,
            ]
        )
        #expect(probed.trimmingCharacters(in: .whitespacesAndNewlines) == "48000,\(out.count)")
        let inSeconds = Double(audio.count * 960) / 48_000
        let outSeconds = Double(out.count * 1_024 - transcoder.primingSamples) / 48_000
        // Opus pre-skip trims up to a frame at the start; AAC pads up to a frame at the end.
        #expect(abs(outSeconds - inSeconds) <= 2 * 1_024.0 / 48_000, "in \(inSeconds) s, out \(outSeconds) s")
    }
}
