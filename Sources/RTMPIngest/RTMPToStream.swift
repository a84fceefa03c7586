import CodecFormats
import MediaCore
import RTMPWire

/// Turns a publisher's FLV audio/video bodies into a `StreamDescription` and `MediaFrame`s.
public struct RTMPToStream: Sendable {
    /// What the adapter produced for one message.
    public enum Output: Sendable {
        /// Announce (or change) the tracks.
        case description(StreamDescription)
        /// One access unit.
        case frame(MediaFrame)
    }

    /// Hints from onMetaData; decides which tracks must be known before the description goes out.
    public private(set) var metadata = StreamMetadata()
    /// The description last announced, if any.
    public private(set) var announced: StreamDescription?
    /// Coded frames dropped because their track's sequence header had not arrived.
    public internal(set) var framesDroppedBeforeSequenceHeader = 0
    /// Multitrack video tracks seen besides the one served, by track ID with the FourCC their tags named (E-RTMP v2:
    /// the first video track is the stream).
    public internal(set) var otherVideoTracks: [UInt8: FourCC] = [:]
    /// Multitrack audio track IDs seen besides the one served, with their FourCCs (the first audio track is the stream).
    public internal(set) var otherAudioTracks: [UInt8: FourCC] = [:]
    /// The E-RTMP audio track served: track 0 once classic AAC tags came, else the first announced by a SequenceStart.
    var servedAudioTrack: UInt8?
    var current = StreamDescription()
    var nalLengthSize = 4
    /// The E-RTMP video track served: the first one announced by a SequenceStart.
    var servedVideoTrack: UInt8?

    /// Creates an adapter with default hints (both tracks expected).
    public init() {}

    /// Records onMetaData hints; may complete the description if they drop a track.
    public mutating func update(metadata: StreamMetadata) -> [Output] {
        self.metadata = metadata
        return announceIfReady()
    }

    /// Handles a video message body (FLV VIDEODATA).
    public mutating func video(
        timestamp: UInt32,
        body: [UInt8],
        stamps: HopStamps
    ) throws(RTMPIngestError) -> [Output] {
        if ExVideoTag.isEnhanced(body) { return try enhancedVideo(timestamp: timestamp, body: body, stamps: stamps) }
        let tag: FLVVideoTag
        do { tag = try FLVVideoTag.parse(body) } catch { throw .flv(error) }
        switch tag {
        case .sequenceHeader(let config):
            // A classic tag is track 0: FFmpeg 7+ sends a second video track as E-RTMP Multitrack beside it.
            if servedVideoTrack == nil { servedVideoTrack = 0 }
            let params: VideoParameters
            do {
                params = try VideoParameters(avcDecoderConfiguration: config, frameRate: metadata.frameRate)
                nalLengthSize = try AVCDecoderConfigurationRecord(parsing: config).nalUnitLengthSize
            } catch { throw .codec(error) }
            current.video = params
            return announceIfReady()
        case .nalUnits(_, let cts, let data):
            guard current.video != nil else {
                framesDroppedBeforeSequenceHeader += 1
                return []
            }
            var avcc = data
            if nalLengthSize != 4 {
                do { avcc = try H264.convertLengthPrefix(data, from: nalLengthSize, to: 4) } catch {
                    throw .codec(error)
                }
            }
            let frame = MediaFrame(
                kind: .video,
                dts: MediaTime(value: Int64(timestamp), timescale: 1000),
                compositionOffset: MediaTime(value: Int64(cts), timescale: 1000),
                isKeyframe: H264.containsIDR(avcc: avcc, lengthSize: 4),
                data: avcc,
                stamps: stamps
            )
            return announceAtFirstFrame() + [.frame(frame)]
        case .endOfSequence:
            return []
        }
    }

    /// Handles an audio message body (FLV AUDIODATA).
    public mutating func audio(
        timestamp: UInt32,
        body: [UInt8],
        stamps: HopStamps
    ) throws(RTMPIngestError) -> [Output] {
        if ExAudioTag.isEnhanced(body) { return try enhancedAudio(timestamp: timestamp, body: body, stamps: stamps) }
        let tag: FLVAudioTag
        do { tag = try FLVAudioTag.parse(body) } catch { throw .flv(error) }
        // Classic tags are track 0 of a multitrack publish (FFmpeg 9 sends its first track that way).
        if servedAudioTrack == nil { servedAudioTrack = 0 }
        switch tag {
        case .sequenceHeader(let asc):
            do { current.audio = try AudioParameters(audioSpecificConfig: asc) } catch { throw .codec(error) }
            return announceIfReady()
        case .raw(let data):
            guard current.audio != nil else {
                framesDroppedBeforeSequenceHeader += 1
                return []
            }
            let frame = MediaFrame(
                kind: .audio,
                dts: MediaTime(value: Int64(timestamp), timescale: 1000),
                isKeyframe: true,
                data: data,
                stamps: stamps
            )
            return announceAtFirstFrame() + [.frame(frame)]
        }
    }

    /// Before the first announcement: wait for every expected track; after it: re-announce changes.
    mutating func announceIfReady() -> [Output] {
        if announced != nil { return announceChange() }
        let videoReady = !metadata.hasVideo || current.video != nil
        let audioReady = !metadata.hasAudio || current.audio != nil
        guard videoReady, audioReady, current.video != nil || current.audio != nil else { return [] }
        announced = current
        return [.description(current)]
    }

    mutating func announceAtFirstFrame() -> [Output] {
        guard announced == nil else { return [] }
        announced = current
        return [.description(current)]
    }

    private mutating func announceChange() -> [Output] {
        guard announced != current else { return [] }
        announced = current
        return [.description(current)]
    }
}
