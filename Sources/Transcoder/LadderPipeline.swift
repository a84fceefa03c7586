import Dispatch
import FFmpegBridge
import Foundation
import Logging
import MediaCore
import StreamHub
import Synchronization

/// One ladder for one set of source parameters: a decoder thread fanning pictures out to one thread per rung.
final class LadderPipeline: Sendable {
    /// What the hub reader hands the decoder thread.
    enum Input: Sendable {
        /// A source video access unit (AVCC).
        case accessUnit(MediaFrame)
        /// Drain decoder and encoders, then stop.
        case finish
    }

    /// The decoder's inbox; the hub reader offers and never waits.
    let queue: WorkQueue<Input>
    let rungs: [RungWorker]
    private let source: VideoParameters
    private let logger: Logger
    private let group = DispatchGroup()
    private let decodeErrors = Atomic<Int>(0)

    init(source: VideoParameters, rungs: [RungWorker], configuration: LadderConfiguration, logger: Logger) {
        self.source = source
        self.rungs = rungs
        self.logger = logger
        queue = WorkQueue(capacity: configuration.decoderQueueCapacity)
    }

    /// Access units the decoder rejected.
    var decodeErrorCount: Int { decodeErrors.load(ordering: .relaxed) }

    /// Starts the rung threads and the decoder thread.
    func start() {
        for rung in rungs { rung.start(in: group) }
        group.enter()
        let thread = Thread { [self] in
            decodeLoop()
            group.leave()
        }
        thread.name = "ladder-decode"
        thread.start()
    }

    /// Asks every thread to drain and waits until all have stopped (their last frames are published).
    func finish() async {
        queue.offer(.finish, force: true)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            group.notify(queue: .global()) { done.resume() }
        }
    }

    private func decodeLoop() {
        var fanOut = FanOut(rungCount: rungs.count)
        let decoder: H264Decoder?
        do {
            decoder = try H264Decoder(avcC: source.decoderConfiguration)
        } catch {
            logger.error("ladder decoder failed to open", metadata: ["error": "\(error)"])
            decoder = nil
        }
        while true {
            switch queue.take() {
            case .accessUnit(let unit):
                guard let decoder else { continue }
                fanOut.note(unit)
                do {
                    dispatch(try decoder.decode(unit), &fanOut)
                } catch {
                    decodeErrors.add(1, ordering: .relaxed)
                    logger.debug("ladder decode error", metadata: ["error": "\(error)"])
                }
            case .finish:
                if let decoder, let rest = try? decoder.flush() { dispatch(rest, &fanOut) }
                for rung in rungs { rung.queue.offer(.finish, force: true) }
                return
            }
        }
    }

    /// Hands each picture to every rung that keeps up; a rung that overflowed waits for the next source keyframe.
    private func dispatch(_ pictures: [DecodedPicture], _ fanOut: inout FanOut) {
        for picture in pictures {
            let (forceIDR, stamps) = fanOut.take(picture.pts.value)
            for (i, rung) in rungs.enumerated() {
                guard fanOut.accepts(rung: i, forceIDR: forceIDR),
                    rung.queue.offer(.picture(picture, forceIDR: forceIDR, stamps: stamps))
                else {
                    fanOut.dropped(rung: i)
                    rung.meter.update { $0.picturesDropped += 1 }
                    continue
                }
            }
        }
    }
}

/// The decoder thread's bookkeeping: which pts were source keyframes, their stamps, and which rungs must resync.
struct FanOut {
    private var keyframes: Set<Int64> = []
    private var stamps: [Int64: HopStamps] = [:]
    private var waitingForKeyframe: [Bool]
    private var first = true

    init(rungCount: Int) { waitingForKeyframe = Array(repeating: false, count: rungCount) }

    /// Remembers a source access unit's keyframe flag and stamps by its pts.
    mutating func note(_ unit: MediaFrame) {
        let pts = unit.pts.converted(to: 90_000).value
        if unit.isKeyframe { keyframes.insert(pts) }
        stamps[pts] = unit.stamps
    }

    /// Whether the picture at `pts` starts a new GOP in every rung, and the stamps of its access unit.
    mutating func take(_ pts: Int64) -> (forceIDR: Bool, stamps: HopStamps) {
        // A source keyframe, or the first picture of this ladder (each rung must start on an IDR).
        let forceIDR = keyframes.remove(pts) != nil || first
        first = false
        let s = stamps.removeValue(forKey: pts) ?? HopStamps()
        // Entries for pictures the decoder never produced (corrupt input) must not accumulate.
        if stamps.count > 512 {
            stamps = stamps.filter { $0.key > pts }
            keyframes = keyframes.filter { $0 > pts }
        }
        return (forceIDR, s)
    }

    /// True when rung `i` takes this picture: it is in sync, or the picture is an IDR it can resync on.
    mutating func accepts(rung i: Int, forceIDR: Bool) -> Bool {
        if forceIDR { waitingForKeyframe[i] = false }
        return !waitingForKeyframe[i]
    }

    /// Rung `i` lost a picture; it skips until the next source keyframe so IDRs stay aligned across rungs.
    mutating func dropped(rung i: Int) { waitingForKeyframe[i] = true }
}
