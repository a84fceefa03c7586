import CodecFormats
import MediaCore
import RTMPWire

/// E-RTMP v2 audio into the hub: `mp4a` (AAC) the way classic FLV AAC goes; the first audio track is the stream (the
/// others of a Multitrack publish are listed, not served).
extension RTMPToStream {
    mutating func enhancedAudio(
        timestamp: UInt32,
        body: [UInt8],
        stamps: HopStamps
    ) throws(RTMPIngestError) -> [Output] {
        let tag: ExAudioTag
        do { tag = try ExAudioTag.parse(body) } catch { throw .flv(error) }
        guard let track = servedTrack(of: tag) else { return [] }
        switch tag.packetType {
        case .sequenceStart:
            guard track.fourCC == .mp4a else { throw .unsupportedAudioCodec(track.fourCC) }
            do { current.audio = try AudioParameters(audioSpecificConfig: track.payload) } catch { throw .codec(error) }
            return announceIfReady()
        case .codedFrames:
            guard current.audio != nil else {
                framesDroppedBeforeSequenceHeader += 1
                return []
            }
            let frame = MediaFrame(
                kind: .audio,
                dts: MediaTime(value: Int64(timestamp), timescale: 1000),
                isKeyframe: true,
                data: track.payload,
                stamps: stamps
            )
            return announceAtFirstFrame() + [.frame(frame)]
        case .sequenceEnd, .multichannelConfig, .multitrack, .modEx:
            // AAC's channel layout is in its AudioSpecificConfig; the rest changes nothing downstream.
            return []
        }
    }

    /// The audio track this stream serves; others are remembered for the log and stats, their frames not served.
    private mutating func servedTrack(of tag: ExAudioTag) -> ExAudioTag.Track? {
        if servedAudioTrack == nil, tag.packetType == .sequenceStart, let first = tag.tracks.first {
            servedAudioTrack = first.trackID
        }
        for track in tag.tracks where track.trackID != servedAudioTrack {
            otherAudioTracks[track.trackID] = track.fourCC
        }
        return tag.tracks.first { $0.trackID == servedAudioTrack }
    }
}
