import Dispatch
import FFmpegBridge
import MediaCore
import WebRTCWire

/// The dedicated WebRTC rung: the source decoded once and encoded by x264 as constrained baseline without
/// B-frames, for viewers no passthrough or ladder rendition suits (B-frames, or a profile their offer lacks).
///
/// IDRs come on request (a viewer joining, PLI/FIR), so a viewer never waits a whole source GOP.
final class WebRTCRungEncoder {
    /// The profile-level-id the rung's SPS carries (x264 `baseline` sets constraint_set0+1: constrained baseline).
    static let profile = H264ProfileLevelID(profileIdc: 0x42, constraints: 0xE0, levelIdc: 0x1F)

    private let decoder: VideoDecoder
    private var encoder: LadderVideoEncoder?
    private let bitRate: Int
    private let preset: String
    private let frameRate: Double
    /// The encoder's avcC once it opened (its SPS/PPS go in band before keyframes).
    private(set) var decoderConfiguration: [UInt8]?
    /// Pictures encoded; the first is always an IDR.
    private(set) var encodedPictures = 0

    /// Opens a decoder for the source's codec (avcC, hvcC or av1C); the encoder opens at the first picture, at its size.
    init(source: VideoParameters, bitRate: Int, preset: String) throws(FFmpegError) {
        decoder = try VideoDecoder(video: source)
        self.bitRate = bitRate
        self.preset = preset
        frameRate = source.frameRate ?? 30
    }

    /// Decodes one source access unit and encodes what it released; `forceIDR` makes the next picture an IDR.
    func encode(_ accessUnit: MediaFrame, forceIDR: Bool) throws(FFmpegError) -> [MediaFrame] {
        var out: [MediaFrame] = []
        var force = forceIDR
        for picture in try decoder.decode(accessUnit) {
            let encoder = try self.encoder(for: picture)
            out += try encoder.encode(picture, forceIDR: force || encodedPictures == 0)
            encodedPictures += 1
            force = false
        }
        return out
    }

    /// Decodes a source access unit from before the rung started (the last GOP, replayed) without encoding it, so
    /// the first live picture can be encoded at once; opens the encoder on the way.
    func catchUp(_ accessUnit: MediaFrame) throws(FFmpegError) {
        for picture in try decoder.decode(accessUnit) { _ = try encoder(for: picture) }
    }

    private func encoder(for picture: DecodedPicture) throws(FFmpegError) -> LadderVideoEncoder {
        if let encoder, encoder.settings.width == picture.width, encoder.settings.height == picture.height {
            return encoder
        }
        var settings = LadderVideoEncoder.Settings(
            width: picture.width,
            height: picture.height,
            bitRate: bitRate,
            frameRate: frameRate,
            preset: preset
        )
        settings.profile = "baseline"
        let opened = try LadderVideoEncoder(settings)
        encoder = opened
        decoderConfiguration = opened.videoParameters.decoderConfiguration
        encodedPictures = 0
        return opened
    }
}

extension WebRTCRungWorker {
    /// Decodes replayed access units on the worker's queue, encoding none (`WebRTCRungEncoder.catchUp`).
    func catchUp(_ accessUnits: [MediaFrame]) async -> Result<Void, FFmpegError> {
        await run { encoder throws(FFmpegError) in
            for unit in accessUnits { try encoder.catchUp(unit) }
        }
    }
}

/// The rung's encoder on a serial queue of its own: x264 and the decoder run for milliseconds per picture, which
/// must not hold one of the few threads Swift concurrency shares with the rest of the gateway.
final class WebRTCRungWorker: @unchecked Sendable {
    // Only touched on `queue`, one job at a time.
    private let encoder: WebRTCRungEncoder
    private let queue: DispatchQueue

    init(_ encoder: WebRTCRungEncoder, label: String) {
        self.encoder = encoder
        queue = DispatchQueue(label: label)
    }

    /// Encodes one source access unit on the worker's queue; returns the frames and the encoder's avcC after it.
    func encode(
        _ accessUnit: MediaFrame,
        forceIDR: Bool
    ) async -> Result<(frames: [MediaFrame], decoderConfiguration: [UInt8]?), FFmpegError> {
        await run { encoder throws(FFmpegError) in
            (try encoder.encode(accessUnit, forceIDR: forceIDR), encoder.decoderConfiguration)
        }
    }

    /// Runs `job` on the queue with the encoder.
    func run<T: Sendable>(
        _ job: @escaping @Sendable (WebRTCRungEncoder) throws(FFmpegError) -> T
    ) async -> Result<T, FFmpegError> {
        await withCheckedContinuation { continuation in
            queue.async {
                do throws(FFmpegError) {
                    continuation.resume(returning: .success(try job(self.encoder)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
    }
}
