import CodecFormats
import MediaCore
import RTMPWire

/// E-RTMP v2 video into the hub: hvc1/av01/avc1 SequenceStart becomes the description, coded frames become
/// frames with 4-byte NAL lengths (HEVC) or temporal units without temporal delimiters (AV1).
extension RTMPToStream {
    /// The FourCCs the ingest accepts, in the order `connect`'s fourCcList answer names them.
    public static let acceptedVideoFourCCs: [FourCC] = [.hvc1, .av01, .avc1]

    mutating func enhancedVideo(
        timestamp: UInt32,
        body: [UInt8],
        stamps: HopStamps
    ) throws(RTMPIngestError) -> [Output] {
        let tag: ExVideoTag
        do { tag = try ExVideoTag.parse(body) } catch { throw .flv(error) }
        switch tag.packetType {
        case .sequenceStart:
            guard let track = servedTrack(of: tag) else { return [] }
            let params: VideoParameters
            do {
                switch track.fourCC {
                case .hvc1:
                    params = try VideoParameters(hevcDecoderConfiguration: track.payload, frameRate: metadata.frameRate)
                    nalLengthSize = try HEVCDecoderConfigurationRecord(parsing: track.payload).nalUnitLengthSize
                case .av01:
                    params = try VideoParameters(av1CodecConfiguration: track.payload, frameRate: metadata.frameRate)
                case .avc1:
                    params = try VideoParameters(avcDecoderConfiguration: track.payload, frameRate: metadata.frameRate)
                    nalLengthSize = try AVCDecoderConfigurationRecord(parsing: track.payload).nalUnitLengthSize
                default:
                    throw RTMPIngestError.unsupportedVideoCodec(track.fourCC)
                }
            } catch let error as RTMPIngestError {
                throw error
            } catch let error as CodecFormatError {
                throw .codec(error)
            } catch {
                throw .unsupportedVideoCodec(track.fourCC)
            }
            current.video = params
            return announceIfReady()
        case .codedFrames, .codedFramesX:
            // Another multitrack track's frames are listed (otherVideoTracks), not served, and not counted as drops.
            guard let track = servedTrack(of: tag) else { return [] }
            guard let video = current.video else {
                framesDroppedBeforeSequenceHeader += 1
                return []
            }
            let data: [UInt8]
            let isKeyframe: Bool
            do {
                switch video.codec {
                case .av1:
                    data = try Self.withoutTemporalDelimiters(track.payload)
                    isKeyframe = AV1OBU.containsKeyFrame(temporalUnit: data)
                default:
                    data =
                        nalLengthSize == 4
                        ? track.payload : try H264.convertLengthPrefix(track.payload, from: nalLengthSize, to: 4)
                    isKeyframe =
                        video.codec == .hevc
                        ? HEVC.containsIRAP(lengthPrefixed: data) : H264.containsIDR(avcc: data, lengthSize: 4)
                }
            } catch { throw .codec(error) }
            let frame = MediaFrame(
                kind: .video,
                dts: MediaTime(value: Int64(timestamp), timescale: 1000),
                compositionOffset: MediaTime(value: Int64(track.compositionTime), timescale: 1000),
                isKeyframe: isKeyframe,
                data: data,
                stamps: stamps
            )
            return announceAtFirstFrame() + [.frame(frame)]
        case .sequenceEnd, .metadata, .mpeg2TSSequenceStart, .multitrack, .modEx:
            // colorInfo metadata and sequence ends change nothing the packager writes.
            return []
        }
    }

    /// The track this stream serves; others are remembered for the log and stats.
    private mutating func servedTrack(of tag: ExVideoTag) -> ExVideoTag.Track? {
        if servedVideoTrack == nil, tag.packetType == .sequenceStart, let first = tag.tracks.first {
            servedVideoTrack = first.trackID
        }
        for track in tag.tracks where track.trackID != servedVideoTrack {
            otherVideoTracks[track.trackID] = track.fourCC
        }
        return tag.tracks.first { $0.trackID == servedVideoTrack }
    }

    /// AV1 ISOBMFF binding §2.4: samples carry no temporal delimiter OBUs.
    static func withoutTemporalDelimiters(_ data: [UInt8]) throws(CodecFormatError) -> [UInt8] {
        let obus = try AV1OBU.split(data)
        guard obus.contains(where: { $0.type == 2 }) else { return data }
        var out: [UInt8] = []
        out.reserveCapacity(data.count)
        var offset = 0
        for obu in obus {
            let end = obu.payload.endIndex
            if obu.type != 2 { out.append(contentsOf: data[offset..<end]) }
            offset = end
        }
        return out
    }
}
