import CodecFormats
import MediaCore

/// Turns a transport stream of H.264 or H.265 (Annex B) and AAC (ADTS) into a `StreamDescription` and `MediaFrame`s.
///
/// The TS counterpart of `RTMPToStream`: whatever protocol carries the TS (SRT today), the hub sees the same frames
/// an RTMP (or E-RTMP, for HEVC) publisher's would make — length-prefixed video with parameter sets moved to the
/// description (avcC, hvcC), raw AAC frames.
public struct TSToStream: Sendable {
    /// What the adapter produced.
    public enum Output: Sendable {
        /// Announce (or change) the tracks.
        case description(StreamDescription)
        /// One access unit.
        case frame(MediaFrame)
    }

    /// The demuxer (its counters say what was lost or skipped).
    public private(set) var demuxer = MPEGTSDemuxer()
    /// Frames dropped because their track's parameters (SPS/PPS, ADTS header) were not known yet.
    public private(set) var framesDroppedBeforeParameters = 0
    private var timeline = TSTimeline()
    private var current = StreamDescription()
    private var announced: StreamDescription?
    /// Frames that arrived before the description was whole, sent right after it.
    private var held: [MediaFrame] = []

    /// An adapter that has seen nothing.
    public init() {}

    /// Jumps in the timestamps bridged so far (discontinuities, wraps excluded).
    public var timestampJumps: Int { timeline.jumps }

    /// Feeds transport stream bytes; `stamps` go on every frame they complete.
    public mutating func feed(_ bytes: some Collection<UInt8>, stamps: HopStamps) throws(MPEGTSError) -> [Output] {
        let units = try demuxer.feed(bytes)
        if demuxer.skippedBytes > 10 * TSPacket.size, demuxer.skippedBytes > demuxer.packetsRead * TSPacket.size {
            throw .notTransportStream(skippedBytes: demuxer.skippedBytes)
        }
        let types = demuxer.streams.map(\.streamType)
        if !types.isEmpty, !types.contains(where: Self.takenStreamTypes.contains) {
            throw .noSupportedStream(streamTypes: types.map(\.rawValue))
        }
        var out: [Output] = []
        for unit in units { out += try convert(unit, stamps: stamps) }
        return out
    }

    /// Ends the stream: the PES still open (a video PES ends only at the next one) becomes frames too.
    public mutating func flush(stamps: HopStamps) throws(MPEGTSError) -> [Output] {
        var out: [Output] = []
        for unit in demuxer.flush() { out += try convert(unit, stamps: stamps) }
        return out
    }

    private mutating func convert(_ unit: TSAccessUnit, stamps: HopStamps) throws(MPEGTSError) -> [Output] {
        switch unit.stream.streamType {
        case .h264: return try video(unit, codec: .h264, stamps: stamps)
        case .h265: return try video(unit, codec: .hevc, stamps: stamps)
        case .aacADTS: return try audio(unit, stamps: stamps)
        default: return []
        }
    }

    private mutating func video(
        _ unit: TSAccessUnit,
        codec: Codec,
        stamps: HopStamps
    ) throws(MPEGTSError) -> [Output] {
        let au: TSVideoAccessUnit
        do { au = try TSVideoAccessUnit(annexB: unit.data, codec: codec) } catch {
            throw .codec(pid: unit.stream.pid, error)
        }
        var out: [Output] = []
        if let record = au.configuration, current.video?.decoderConfiguration != record {
            do { current.video = try TSVideoAccessUnit.parameters(record, codec: codec) } catch {
                throw .codec(pid: unit.stream.pid, error)
            }
            out += announceChange()
        }
        // A picture of another codec than the one described (the PMT changed it) waits for its own parameter sets.
        guard current.video?.codec == codec, !au.sample.isEmpty else {
            if !au.sample.isEmpty { framesDroppedBeforeParameters += 1 }
            return out
        }
        let exact = timeline.time(of: unit.dts.value, discontinuity: unit.followsDiscontinuity)
        let dts = Self.onMicrosecondGrid(exact)
        var frameStamps = stamps
        if codec == .h264 { frameStamps.capture = frameStamps.capture ?? CaptureTimeSEI.captureTime(inAVCC: au.sample) }
        let frame = MediaFrame(
            kind: .video,
            dts: MediaTime(value: dts, timescale: 90_000),
            compositionOffset: MediaTime(
                value: Self.onMicrosecondGrid(exact + Self.compositionOffset(unit)) - dts,
                timescale: 90_000
            ),
            isKeyframe: au.isKeyframe,
            data: au.sample,
            stamps: frameStamps
        )
        return out + release(frame)
    }

    private mutating func audio(_ unit: TSAccessUnit, stamps: HopStamps) throws(MPEGTSError) -> [Output] {
        let frames: [ADTS.Frame]
        do { frames = try ADTS.frames(unit.data) } catch { throw .codec(pid: unit.stream.pid, error) }
        guard let first = frames.first else { return [] }
        var out: [Output] = []
        let config = first.header.config.serialize()
        if current.audio?.decoderConfiguration != config {
            do { current.audio = try AudioParameters(audioSpecificConfig: config) } catch {
                throw .codec(pid: unit.stream.pid, error)
            }
            out += announceChange()
        }
        let start = timeline.time(of: unit.pts.value, discontinuity: unit.followsDiscontinuity)
        let rate = Int64(max(1, first.header.config.sampleRate))
        // One PES may carry several ADTS frames: each after the first is 1024 samples later than the one before.
        for (i, f) in frames.enumerated() {
            let dts = start + Int64(i) * 1024 * 90_000 / rate
            let frame = MediaFrame(
                kind: .audio,
                dts: MediaTime(value: dts, timescale: 90_000),
                isKeyframe: true,
                data: Array(f.payload),
                stamps: stamps
            )
            out += release(frame)
        }
        return out
    }

    /// A video time moved to the nearest multiple of 9 ticks (100 µs), so it is a whole number of microseconds.
    ///
    /// Chromium's MSE keeps whole microseconds and truncates: 30 fps frames on the 90 kHz grid (33 333.3 µs) end 1 µs
    /// short of the next part, and hls.js, finding the buffer end still inside the part it has, asks for the next
    /// segment's first part a playlist update (one part) late, every segment (docs/BENCHMARKS.md, "SRT vs RTMP with
    /// hls.js and the model"). RTMP's millisecond timestamps never had this; 100 µs moves no frame measurably.
    static func onMicrosecondGrid(_ ticks: Int64) -> Int64 { (ticks + 4) / 9 * 9 }

    /// PTS − DTS, across a 33-bit wrap between them.
    static func compositionOffset(_ unit: TSAccessUnit) -> Int64 {
        let d = (unit.pts.value - unit.dts.value) & (TSTimeline.wrap - 1)
        return d < TSTimeline.wrap / 2 ? d : 0
    }

    /// After the first announcement, a parameter change goes out at once.
    private mutating func announceChange() -> [Output] {
        guard announced != nil, announced != current else { return [] }
        announced = current
        return [.description(current)]
    }

    /// Before the first announcement, frames wait until every track the PMT lists has parameters, so the
    /// description is whole (as RTMP waits for onMetaData's tracks): then it goes out with every held frame. A listed
    /// track that never shows up stops holding after `maximumHeldFrames`.
    private mutating func release(_ frame: MediaFrame) -> [Output] {
        guard announced == nil else { return [.frame(frame)] }
        held.append(frame)
        let listed = Set(demuxer.streams.map(\.streamType))
        let whole =
            (listed.isDisjoint(with: Self.videoStreamTypes) || current.video != nil)
            && (!listed.contains(.aacADTS) || current.audio != nil)
        guard whole || held.count >= Self.maximumHeldFrames else { return [] }
        announced = current
        defer { held = [] }
        return [.description(current)] + held.map { .frame($0) }
    }

    /// The video stream types taken: H.264 and H.265 (Annex B byte streams, ISO/IEC 13818-1 §2.14 and §2.17).
    static let videoStreamTypes: Set<TSStreamType> = [.h264, .h265]
    /// Every stream type taken.
    static let takenStreamTypes: Set<TSStreamType> = videoStreamTypes.union([.aacADTS])

    /// Frames held for a listed track before the description goes out without it (~5 s of 30 fps + AAC).
    static let maximumHeldFrames = 400
}
