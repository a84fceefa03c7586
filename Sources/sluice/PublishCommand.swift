import ArgumentParser
import Logging
import MediaCore
import MediaSources
import RTMPPublish
import SRTPublish
import SRTWire
import WHIPPublish

/// `sluice publish [INPUT] URL`: pushes a file or the built-in test pattern to an RTMP server, a WHIP endpoint
/// (RFC 9725, H.264 + Opus over WebRTC) or an SRT listener (MPEG-TS over a libsrt caller) in real time.
struct PublishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract:
            "Publish an FLV/MP4 file or a test pattern to an RTMP URL, a WHIP endpoint or an SRT listener in real time "
            + "(like ffmpeg -re).",
        usage:
            "sluice publish [INPUT] URL [--duration SECONDS] [--loop] [--size WxH] [--fps N] [--gop-seconds S] [--bframes N] [--video-codec C] [--bearer TOKEN]"
    )

    @Argument(help: "FLV/MP4 file to publish, or 'testsrc' for the test pattern (the default when omitted).")
    var input: String

    @Argument(
        help: """
            RTMP URL (rtmp://127.0.0.1:1935/live/demo), WHIP endpoint (http://127.0.0.1:8080/whip/demo) or SRT URL \
            ('srt://127.0.0.1:8890?streamid=#!::r=live/demo,m=publish[&latency=MS][&passphrase=P]').
            """
    )
    var url: String?

    @Option(help: "Stop after this many seconds of media.")
    var duration: Double?

    @Flag(help: "Start a file over when it ends (timestamps keep increasing).")
    var loop = false

    @Option(help: "Test pattern size, WIDTHxHEIGHT.")
    var size = "1280x720"

    @Option(help: "Test pattern frames per second.")
    var fps = 30

    @Option(help: "Test pattern keyframe interval in seconds.")
    var gopSeconds = 1.0

    @Option(help: "Test pattern consecutive B-frames.")
    var bframes = 0

    @Option(help: "Test pattern video codec: h264, or hevc / av1 (RTMP only: sent as Enhanced RTMP hvc1 / av01).")
    var videoCodec = "h264"

    @Option(help: "WHIP only: send 'Authorization: Bearer TOKEN' with the offer and the DELETE.")
    var bearer: String?

    /// The source chosen by the positional arguments.
    private var publishInput: PublishInput {
        get throws {
            let name = url == nil ? "testsrc" : input
            guard name == "testsrc" else { return .file(path: name) }
            let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2, parts.allSatisfy({ $0 > 0 && $0 % 2 == 0 }) else {
                throw ValidationError("--size must be WIDTHxHEIGHT with even numbers, e.g. 1280x720")
            }
            let gop = Int((gopSeconds * Double(fps)).rounded())
            guard fps > 0, gop > 0, bframes >= 0 else {
                throw ValidationError("--fps and --gop-seconds must be positive and --bframes not negative")
            }
            guard let codec = Codec(rawValue: videoCodec), [.h264, .hevc, .av1].contains(codec) else {
                throw ValidationError("--video-codec must be h264, hevc or av1, not \(videoCodec)")
            }
            guard codec == .h264 || (!isWHIP && !isSRT) else {
                throw ValidationError("--video-codec \(videoCodec) goes over RTMP only (Enhanced RTMP)")
            }
            guard codec != .av1 || bframes == 0 else {
                throw ValidationError("--video-codec av1 uses SVT-AV1's low-delay structure: no --bframes")
            }
            return .testPattern(
                width: parts[0],
                height: parts[1],
                fps: fps,
                gopFrames: gop,
                bFrames: bframes,
                codec: codec
            )
        }
    }

    /// The RTMP URL or WHIP endpoint, which is the only positional argument when INPUT is omitted.
    private var targetURL: String { url ?? input }

    func validate() throws {
        if isWHIP {
            do { _ = try WHIPEndpoint(targetURL) } catch { throw ValidationError("\(error)") }
        } else if isSRT {
            try Self.validateSRT(targetURL)
            if bearer != nil {
                throw ValidationError("--bearer applies to WHIP endpoints only (SRT carries its key in the stream id)")
            }
        } else {
            guard targetURL.hasPrefix("rtmp://") else {
                throw ValidationError(
                    "URL must be rtmp://HOST/APP/KEY, a WHIP endpoint http://HOST:PORT/whip/KEY or "
                        + "srt://HOST:PORT?streamid=#!::r=live/KEY,m=publish, got \(targetURL)"
                )
            }
            if bearer != nil {
                throw ValidationError("--bearer applies to WHIP endpoints only (RTMP carries its key in the URL)")
            }
        }
        if let duration, duration <= 0 { throw ValidationError("--duration must be positive") }
        _ = try publishInput
    }

    func run() async throws {
        let source = try publishInput
        let limit = duration.map { Duration.milliseconds(Int64($0 * 1_000)) }
        var isFile = false
        if case .file = source { isFile = true }
        let limitText = limit.map { " for \($0.secondsDouble) s" } ?? ""
        print("Publishing \(source) to \(targetURL)\(limitText)" + (loop && isFile ? ", looping" : ""))
        if isWHIP { return try await publishWHIP(source, limit: limit, isFile: isFile) }
        if isSRT { return try await publishOverSRT(source, limit: limit, isFile: isFile) }
        // Errors propagate to ArgumentParser, which prints "Error: <description>" and exits non-zero.
        let report = try await publish(
            input: source,
            to: targetURL,
            loop: loop && isFile,
            duration: limit,
            announce: { print("  " + Self.describe($0)) }
        )
        print(
            "Sent \(report.frames) frames (\(report.videoFrames) video, \(report.audioFrames) audio) covering "
                + "\((report.mediaTime.secondsDouble * 100).rounded() / 100) s"
                + (report.loops > 0 ? " over \(report.loops + 1) passes" : "")
        )
    }

    /// True for an http(s):// target: WHIP instead of RTMP.
    private var isWHIP: Bool {
        let lower = targetURL.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// True for an srt:// target.
    private var isSRT: Bool { targetURL.lowercased().hasPrefix("srt://") }

    /// The URL's parts, and a stream id the gateway would take: `m=request` (play) is refused here with the
    /// gateway's own reason, before any connection.
    static func validateSRT(_ url: String) throws {
        let target: SRTCaller.Target
        do { target = try SRTCaller.Target(url: url) } catch { throw ValidationError("\(error)") }
        do { _ = try SRTStreamID(parsing: target.streamID) } catch {
            throw ValidationError("stream id '\(target.streamID)' cannot publish: \(error)")
        }
    }

    /// The same input as MPEG-TS over SRT (H.264 + AAC as they are).
    private func publishOverSRT(_ source: PublishInput, limit: Duration?, isFile: Bool) async throws {
        var logger = Logger(label: "sluice.srt.publish")
        logger.logLevel = .warning
        let report = try await publishSRT(
            input: source,
            to: targetURL,
            loop: loop && isFile,
            duration: limit,
            logger: logger
        )
        print(
            "Sent \(report.videoFrames + report.audioFrames) frames (\(report.videoFrames) video, "
                + "\(report.audioFrames) audio) covering \((report.mediaTime.secondsDouble * 100).rounded() / 100) s"
        )
    }

    /// The same input over WHIP: H.264 as is, audio re-encoded to Opus.
    private func publishWHIP(_ source: PublishInput, limit: Duration?, isFile: Bool) async throws {
        // Progress goes to stdout as for RTMP; only the publisher's warnings and errors are worth a log line.
        var logger = Logger(label: "sluice.whip.publish")
        logger.logLevel = .warning
        let publisher = try WHIPPublisher(
            url: targetURL,
            options: .init(bearer: bearer, loop: loop && isFile, duration: limit),
            logger: logger
        )
        let report = try await publisher.publish(
            input: source,
            announce: { print("  " + Self.describe($0) + " (audio sent as Opus)") }
        )
        print(
            "Sent \(report.frames) frames (\(report.videoFrames) video, \(report.audioFrames) Opus) covering "
                + "\((report.mediaTime.secondsDouble * 100).rounded() / 100) s"
                + (report.loops > 0 ? " over \(report.loops + 1) passes" : "")
                + "; \(report.sender.retransmittedPackets) of \(report.sender.nackedPackets) NACKed packets resent, "
                + "\(report.sender.keyframesForced) keyframes forced"
        )
    }

    /// One line naming the tracks.
    private static func describe(_ d: StreamDescription) -> String {
        var parts: [String] = []
        if let v = d.video {
            parts.append("video \(v.codecString) \(v.width)x\(v.height)" + (v.frameRate.map { " @ \($0) fps" } ?? ""))
        }
        if let a = d.audio { parts.append("audio \(a.codecString) \(a.sampleRate) Hz \(a.channels) ch") }
        return parts.isEmpty ? "no tracks" : parts.joined(separator: ", ")
    }
}
