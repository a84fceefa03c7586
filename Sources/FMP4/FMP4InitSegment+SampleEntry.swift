import MediaCore

/// ISO/IEC 14496-15 §5.4.2 `avc1` / §8.4.1 `hvc1`, AV1 ISOBMFF binding §2.2 `av01`, ISO/IEC 14496-14 §5.6 `mp4a`.
extension FMP4InitSegment {
    /// Writes the single sample entry of `stsd`.
    static func writeSampleEntry(_ w: inout ByteWriter, media: FMP4Track.Media) {
        switch media {
        case .video(let video): writeVisual(&w, video: video)
        case .audio(let audio): writeMP4A(&w, audio: audio)
        }
    }

    /// The sample entry and configuration box types of a video codec.
    static func visualBoxes(_ codec: Codec) -> (entry: String, configuration: String) {
        switch codec {
        case .hevc: ("hvc1", "hvcC")
        case .av1: ("av01", "av1C")
        default: ("avc1", "avcC")
        }
    }

    /// VisualSampleEntry with its configuration record, colr (nclx BT.709, limited range) and pasp 1:1 as CMAF
    /// `cmfc` wants; hvc1 keeps every parameter set in hvcC, never in band.
    private static func writeVisual(_ w: inout ByteWriter, video: VideoParameters) {
        let boxes = visualBoxes(video.codec)
        w.box(boxes.entry) { w in
            w.writeZeros(6)
            w.writeUInt16(1)  // data_reference_index
            w.writeZeros(16)  // pre_defined, reserved, pre_defined[3]
            w.writeUInt16(UInt16(clamping: video.width))
            w.writeUInt16(UInt16(clamping: video.height))
            w.writeUInt32(0x0048_0000)  // 72 dpi
            w.writeUInt32(0x0048_0000)
            w.writeUInt32(0)
            w.writeUInt16(1)  // frame_count
            w.writeZeros(32)  // compressorname
            w.writeUInt16(0x0018)  // depth
            w.writeUInt16(0xFFFF)  // pre_defined = -1
            w.box(boxes.configuration) { w in w.write(video.decoderConfiguration) }
            w.box("colr") { w in
                w.write(Array("nclx".utf8))
                w.writeUInt16(1)  // colour_primaries BT.709
                w.writeUInt16(1)  // transfer_characteristics BT.709
                w.writeUInt16(1)  // matrix_coefficients BT.709
                w.writeUInt8(0)  // full_range_flag 0 (limited) + 7 reserved bits
            }
            w.box("pasp") { w in
                w.writeUInt32(1)
                w.writeUInt32(1)
            }
        }
    }

    /// AudioSampleEntry with an esds carrying the AudioSpecificConfig.
    private static func writeMP4A(_ w: inout ByteWriter, audio: AudioParameters) {
        w.box("mp4a") { w in
            w.writeZeros(6)
            w.writeUInt16(1)  // data_reference_index
            w.writeZeros(8)
            w.writeUInt16(UInt16(clamping: audio.channels))
            w.writeUInt16(16)  // samplesize
            w.writeUInt32(0)  // pre_defined, reserved
            // 16.16 fixed point only fits rates below 65 536 Hz; the ASC is authoritative anyway.
            w.writeUInt32(audio.sampleRate < 0x1_0000 ? UInt32(audio.sampleRate) << 16 : 0)
            w.fullBox("esds") { w in w.write(esDescriptor(audio: audio)) }
        }
    }

    /// ISO/IEC 14496-1 §7.2.6.5 ES_Descriptor with DecoderConfigDescriptor and SLConfigDescriptor.
    static func esDescriptor(audio: AudioParameters) -> [UInt8] {
        var decoderConfig = ByteWriter()
        decoderConfig.writeUInt8(0x40)  // objectTypeIndication: MPEG-4 Audio
        decoderConfig.writeUInt8(0x15)  // streamType 5 (audio) << 2 | reserved 1
        decoderConfig.writeUInt24(0)  // bufferSizeDB
        decoderConfig.writeUInt32(0)  // maxBitrate
        decoderConfig.writeUInt32(0)  // avgBitrate
        decoderConfig.write(descriptor(tag: 0x05, audio.decoderConfiguration))
        var es = ByteWriter()
        es.writeUInt16(0)  // ES_ID
        es.writeUInt8(0)  // no dependency, URL or OCR stream
        es.write(descriptor(tag: 0x04, decoderConfig.bytes))
        es.write(descriptor(tag: 0x06, [0x02]))  // SLConfigDescriptor predefined 2 (MP4)
        return descriptor(tag: 0x03, es.bytes)
    }

    /// A descriptor with its size in 7-bit groups, most significant first (§8.3.3 expandable size).
    static func descriptor(tag: UInt8, _ body: [UInt8]) -> [UInt8] {
        var sizeBytes: [UInt8] = [UInt8(body.count & 0x7F)]
        var rest = body.count >> 7
        while rest > 0 {
            sizeBytes.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
            rest >>= 7
        }
        return [tag] + sizeBytes + body
    }
}
