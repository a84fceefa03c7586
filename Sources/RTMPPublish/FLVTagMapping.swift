import MediaCore
import RTMPWire

/// Maps Sluice's descriptions and frames to the FLV tags librtmp writes (FLV spec v10.1 §E.4); HEVC and AV1 video go
/// as E-RTMP v2 ExVideoTags (hvc1/av01 SequenceStart and CodedFrames), the way OBS and FFmpeg 7+ write them.
enum FLVTagMapping {
    /// The E-RTMP FourCC of an enhanced video codec; nil for H.264, which keeps the classic tag byte for byte.
    static func enhancedFourCC(_ codec: Codec) -> FourCC? {
        switch codec {
        case .hevc: .hvc1
        case .av1: .av01
        case .h264, .aac, .opus: nil
        }
    }

    /// The onMetaData script tag (FLV spec v10.1 §E.5); librtmp prepends `@setDataFrame` itself.
    static func metadata(for description: StreamDescription) -> FLVTag {
        var props: [AMF0Property] = [AMF0Property("duration", .number(0))]
        if let v = description.video {
            props += [
                AMF0Property("width", .number(Double(v.width))), AMF0Property("height", .number(Double(v.height))),
                // E-RTMP: an enhanced codec's videocodecid is its FourCC as a number.
                AMF0Property("videocodecid", .number(Double(enhancedFourCC(v.codec)?.rawValue ?? 7))),
            ]
            if let fps = v.frameRate { props.append(AMF0Property("framerate", .number(fps))) }
        }
        if let a = description.audio {
            props += [
                AMF0Property("audiocodecid", .number(10)),
                AMF0Property("audiosamplerate", .number(Double(a.sampleRate))),
                AMF0Property("audiosamplesize", .number(16)), AMF0Property("stereo", .boolean(a.channels > 1)),
            ]
        }
        props.append(AMF0Property("encoder", .string("Sluice")))
        return FLVTag(
            kind: .script,
            timestamp: 0,
            body: AMF0Encoder.encode([.string("onMetaData"), .ecmaArray(props)])
        )
    }

    /// The AVC and AAC sequence-header tags, video first.
    static func sequenceHeaders(for description: StreamDescription) -> [FLVTag] {
        var tags: [FLVTag] = []
        if let v = description.video {
            let body =
                enhancedFourCC(v.codec).map {
                    ExVideoTag(
                        frameType: .keyframe,
                        packetType: .sequenceStart,
                        tracks: [.init(fourCC: $0, payload: v.decoderConfiguration)]
                    ).serialize()
                } ?? FLVVideoTag.sequenceHeader(decoderConfiguration: v.decoderConfiguration).serialize()
            tags.append(FLVTag(kind: .video, timestamp: 0, body: body))
        }
        if let a = description.audio {
            tags.append(
                FLVTag(
                    kind: .audio,
                    timestamp: 0,
                    body: FLVAudioTag.sequenceHeader(audioSpecificConfig: a.decoderConfiguration).serialize()
                )
            )
        }
        return tags
    }

    /// One frame as a tag: millisecond decode time, and for video the composition time in ms; `codec` is the video's.
    static func tag(for frame: MediaFrame, codec: Codec = .h264) -> FLVTag {
        let dtsMs = frame.dts.converted(to: 1_000).value
        let timestamp = UInt32(truncatingIfNeeded: max(0, dtsMs))
        switch frame.kind {
        case .video:
            // pts(ms) - dts(ms) keeps each rounded pts exact rather than rounding the offset on its own.
            let cts = Int32(clamping: frame.pts.converted(to: 1_000).value - dtsMs)
            if let fourCC = enhancedFourCC(codec) {
                let tag = ExVideoTag(
                    frameType: frame.isKeyframe ? .keyframe : .interframe,
                    packetType: .codedFrames,
                    tracks: [.init(fourCC: fourCC, compositionTime: cts, payload: frame.data)]
                )
                return FLVTag(kind: .video, timestamp: timestamp, body: tag.serialize())
            }
            let body = FLVVideoTag.nalUnits(isKeyframe: frame.isKeyframe, compositionTime: cts, data: frame.data)
            return FLVTag(kind: .video, timestamp: timestamp, body: body.serialize())
        case .audio:
            return FLVTag(kind: .audio, timestamp: timestamp, body: FLVAudioTag.raw(frame.data).serialize())
        }
    }
}
