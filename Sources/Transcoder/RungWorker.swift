import CodecFormats
import Dispatch
import FFmpegBridge
import Foundation
import Logging
import MediaCore
import StreamHub
import Synchronization
import Telemetry

/// One rung's dedicated thread: scales each decoded picture, encodes it with x264, and publishes the frames.
final class RungWorker: Sendable {
    /// What the decoder thread hands a rung.
    enum Input: Sendable {
        /// A decoded source picture; `forceIDR` at every source keyframe; `stamps` from the source access unit.
        case picture(DecodedPicture, forceIDR: Bool, stamps: HopStamps)
        /// A source access unit to publish as it is: the bridge rung after its handover (`FirstKeyframeIntervalBridge`).
        case source(MediaFrame)
        /// Encode with this x264 preset from the next IDR on (load shedding).
        case preset(String)
        /// Flush the encoder, publish what is left, and stop.
        case finish
    }

    let rung: PlannedRung
    let queue: WorkQueue<Input>
    let meter: RungMeter
    private let publication: Publication
    private let settings: LadderVideoEncoder.Settings
    private let logger: Logger
    private let telemetry: GatewayTelemetry?
    /// The source this rung bridges (`transcode.fast_start`): its avcC shares the rung's init section.
    let bridgedSource: VideoParameters?
    /// True while the rung can hand over to the source's frames (false once its encoder could not join the source's
    /// avcC: it then encodes the whole stream, as a long-GOP source's top rendition does).
    let handsOver: Atomic<Bool>

    init(
        rung: PlannedRung,
        frameRate: Double?,
        publication: Publication,
        meter: RungMeter,
        configuration: LadderConfiguration,
        threads: Int,
        logger: Logger,
        telemetry: GatewayTelemetry? = nil,
        bridging source: VideoParameters? = nil
    ) {
        self.telemetry = telemetry
        bridgedSource = source
        handsOver = Atomic(source != nil)
        self.rung = rung
        self.publication = publication
        self.meter = meter
        self.logger = logger
        queue = WorkQueue(capacity: configuration.rungQueueCapacity)
        settings = LadderVideoEncoder.Settings(
            width: rung.width,
            height: rung.height,
            bitRate: rung.videoBitRate.bitsPerSecond,
            frameRate: frameRate ?? 30,
            preset: configuration.preset,
            threads: threads
        )
    }

    /// Starts the thread; it leaves `group` after `.finish`.
    func start(in group: DispatchGroup) {
        group.enter()
        let thread = Thread { [self] in
            run()
            group.leave()
        }
        thread.name = "ladder-\(rung.name)"
        thread.start()
    }

    private func run() {
        var encoder: LadderVideoEncoder
        var description: VideoParameters
        do {
            (encoder, description) = try openEncoder()
        } catch {
            logger.error("rung encoder failed to open", metadata: ["rung": "\(rung.name)", "error": "\(error)"])
            meter.update { $0.errors += 1 }
            while true { if case .finish = queue.take() { return } }
        }
        publication.update(description: StreamDescription(video: description))
        var handedOver = false
        let scaler = PictureScaler(width: rung.width, height: rung.height, algorithm: .bicubic)
        var stampsByPTS: [Int64: HopStamps] = [:]
        let clock = ContinuousClock()
        var pendingPreset: String?
        while true {
            switch queue.take() {
            case .source(var frame):
                if !handedOver {
                    handedOver = true
                    do {
                        publish(try encoder.flush(), stamps: &stampsByPTS)
                    } catch {
                        logger.warning("rung flush failed", metadata: ["rung": "\(rung.name)", "error": "\(error)"])
                    }
                    logger.info(
                        "fast start: the top rendition now carries the source's own frames",
                        metadata: ["rung": "\(rung.name)", "from_pts": "\(frame.pts.converted(to: 90_000).value)"]
                    )
                }
                frame.stamps.encoded = nil
                publication.send(frame)
                meter.update { $0.framesPublished += 1 }
            case .preset(let preset):
                pendingPreset = preset == encoder.settings.preset ? nil : preset
            case .picture(let picture, let forceIDR, let stamps):
                guard !handedOver else { continue }
                stampsByPTS[picture.pts.value] = stamps
                // A new encoder starts with an IDR: switch only where the ladder forces one anyway.
                if forceIDR, let preset = pendingPreset {
                    pendingPreset = nil
                    if let next = reopened(encoder, preset: preset, stamps: &stampsByPTS) { encoder = next }
                }
                let started = clock.now
                var frames: [MediaFrame] = []
                do {
                    frames = try encoder.encode(try scaler.scale(picture), forceIDR: forceIDR)
                } catch {
                    logger.warning("rung encode failed", metadata: ["rung": "\(rung.name)", "error": "\(error)"])
                    meter.update { $0.errors += 1 }
                }
                let busy = clock.now - started
                meter.update {
                    $0.picturesEncoded += 1
                    $0.busyTime += busy
                }
                publish(frames, stamps: &stampsByPTS)
            case .finish:
                guard !handedOver else { return }
                do {
                    publish(try encoder.flush(), stamps: &stampsByPTS)
                } catch {
                    logger.warning("rung flush failed", metadata: ["rung": "\(rung.name)", "error": "\(error)"])
                }
                return
            }
        }
    }

    /// The rung's encoder and the parameters it publishes. A bridge rung's x264 numbers its SPS/PPS with an id the
    /// source does not use, in the source's profile and level, and publishes the source's avcC with its own sets
    /// added: one init section then serves its encodes and the source's frames after the handover.
    private func openEncoder() throws(FFmpegError) -> (LadderVideoEncoder, VideoParameters) {
        guard let source = bridgedSource else {
            let encoder = try LadderVideoEncoder(settings)
            return (encoder, encoder.videoParameters)
        }
        var bridged = settings
        do {
            let record = try AVCDecoderConfigurationRecord(parsing: source.decoderConfiguration)
            guard let id = record.freeParameterSetID, let profile = Self.x264Profile[record.profileIndication] else {
                throw CodecFormatError.unsupportedProfile(record.profileIndication)
            }
            bridged.parameterSetID = id
            bridged.profile = profile
            bridged.level = Int(record.levelIndication)
            let encoder = try LadderVideoEncoder(bridged)
            let own = try AVCDecoderConfigurationRecord(parsing: encoder.videoParameters.decoderConfiguration)
            let merged = try record.merging(own).serialize()
            return (encoder, try VideoParameters(avcDecoderConfiguration: merged, frameRate: source.frameRate))
        } catch {
            handsOver.store(false, ordering: .relaxed)
            logger.warning(
                "fast start: the top rendition cannot hand over to the source; it is transcoded for the whole stream",
                metadata: ["rung": "\(rung.name)", "error": "\(error)"]
            )
            let encoder = try LadderVideoEncoder(settings)
            return (encoder, encoder.videoParameters)
        }
    }

    /// x264 profiles for the source profiles a bridge can match (8-bit 4:2:0).
    static let x264Profile: [UInt8: String] = [66: "baseline", 77: "main", 100: "high"]

    /// An encoder like `current` with another preset, after `current` is drained; nil (keeping `current`) when the
    /// new one would write another SPS/PPS: that would need a new init section and a DISCONTINUITY in this rung only.
    private func reopened(
        _ current: LadderVideoEncoder,
        preset: String,
        stamps: inout [Int64: HopStamps]
    ) -> LadderVideoEncoder? {
        var settings = current.settings
        settings.preset = preset
        do {
            let next = try LadderVideoEncoder(settings)
            guard next.videoParameters == current.videoParameters else {
                logger.warning(
                    "rung keeps its x264 preset: the shed preset would change its SPS/PPS (transcode.shed.preset)",
                    metadata: [
                        "rung": "\(rung.name)", "preset": "\(current.settings.preset)", "shed_preset": "\(preset)",
                    ]
                )
                return nil
            }
            publish(try current.flush(), stamps: &stamps)
            return next
        } catch {
            logger.warning("rung preset change failed", metadata: ["rung": "\(rung.name)", "error": "\(error)"])
            return nil
        }
    }

    /// Sends encoded frames with the stamps of the source access unit they came from.
    private func publish(_ frames: [MediaFrame], stamps: inout [Int64: HopStamps]) {
        let encoded = ContinuousClock.now
        for var frame in frames {
            frame.stamps = stamps.removeValue(forKey: frame.pts.converted(to: 90_000).value) ?? HopStamps()
            // Encode hop: the picture left the decoder → this rung's packet left x264.
            frame.stamps.encoded = encoded
            telemetry?.record(
                .encode,
                from: frame.stamps.decoded,
                to: encoded,
                stream: publication.key,
                rendition: rung.name
            )
            publication.send(frame)
        }
        meter.update { $0.framesPublished += frames.count }
        // Pictures the encoder never returned (errors) must not pile up.
        if stamps.count > 256, let newest = frames.last?.pts.value { stamps = stamps.filter { $0.key > newest } }
    }
}
