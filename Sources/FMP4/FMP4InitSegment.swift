import MediaCore

/// ISO/IEC 23000-19 §7.3.1 CMAF header: `ftyp` + `moov` with empty sample tables and an `mvex`/`trex`.
public enum FMP4InitSegment {
    /// Brands: iso6 major and compatible, cmfc, mp41, plus avc1 for H.264 (llhls-checklist §4).
    static func brands(for track: FMP4Track) -> [String] {
        if case .video(let video) = track.media {
            // AV1 ISOBMFF binding §2.1 defines the av01 brand; hvc1 has no CMAF brand a player checks.
            switch video.codec {
            case .hevc: return ["iso6", "cmfc", "mp41"]
            case .av1: return ["iso6", "cmfc", "mp41", "av01"]
            default: return ["iso6", "cmfc", "mp41", "avc1"]
            }
        }
        return ["iso6", "cmfc", "mp41"]
    }

    /// The init segment bytes for one track.
    public static func serialize(track: FMP4Track) -> [UInt8] {
        var w = ByteWriter(capacity: 1024)
        w.box("ftyp") { w in
            w.write(Array("iso6".utf8))
            w.writeUInt32(0)
            for brand in brands(for: track) { w.write(Array(brand.utf8)) }
        }
        w.box("moov") { w in
            writeMovieHeader(&w, track: track)
            w.box("trak") { w in
                writeTrackHeader(&w, track: track)
                writeMedia(&w, track: track)
            }
            w.box("mvex") { w in
                w.fullBox("trex") { w in
                    w.writeUInt32(track.trackID)
                    w.writeUInt32(1)  // default_sample_description_index
                    w.writeUInt32(0)  // default_sample_duration
                    w.writeUInt32(0)  // default_sample_size
                    w.writeUInt32(0)  // default_sample_flags: every trun carries its own.
                }
            }
        }
        return w.bytes
    }

    /// §8.2.2 mvhd version 0, duration 0 (fragmented).
    private static func writeMovieHeader(_ w: inout ByteWriter, track: FMP4Track) {
        w.fullBox("mvhd") { w in
            w.writeUInt32(0)  // creation_time
            w.writeUInt32(0)  // modification_time
            w.writeUInt32(track.timescale)
            w.writeUInt32(0)  // duration
            w.writeUInt32(0x0001_0000)  // rate 1.0
            w.writeUInt16(0x0100)  // volume 1.0
            w.writeZeros(10)
            w.writeUnityMatrix()
            w.writeZeros(24)  // pre_defined
            w.writeUInt32(track.trackID &+ 1)  // next_track_ID
        }
    }

    /// §8.3.2 tkhd version 0, flags enabled | in_movie, duration 0.
    private static func writeTrackHeader(_ w: inout ByteWriter, track: FMP4Track) {
        w.fullBox("tkhd", flags: 0x000003) { w in
            w.writeUInt32(0)  // creation_time
            w.writeUInt32(0)  // modification_time
            w.writeUInt32(track.trackID)
            w.writeUInt32(0)  // reserved
            w.writeUInt32(0)  // duration
            w.writeZeros(8)
            w.writeUInt16(0)  // layer
            w.writeUInt16(0)  // alternate_group
            if case .audio = track.media { w.writeUInt16(0x0100) } else { w.writeUInt16(0) }
            w.writeUInt16(0)
            w.writeUnityMatrix()
            switch track.media {
            case .video(let video):
                w.writeUInt32(UInt32(clamping: video.width) << 16)
                w.writeUInt32(UInt32(clamping: video.height) << 16)
            case .audio:
                w.writeUInt32(0)
                w.writeUInt32(0)
            }
        }
    }

    /// §8.4 mdia: mdhd, hdlr and minf.
    private static func writeMedia(_ w: inout ByteWriter, track: FMP4Track) {
        let isVideo: Bool
        if case .video = track.media { isVideo = true } else { isVideo = false }
        w.box("mdia") { w in
            w.fullBox("mdhd") { w in
                w.writeUInt32(0)
                w.writeUInt32(0)
                w.writeUInt32(track.timescale)
                w.writeUInt32(0)  // duration
                w.writeUInt16(0x55C4)  // ISO-639-2 "und", 5 bits per letter.
                w.writeUInt16(0)
            }
            w.fullBox("hdlr") { w in
                w.writeUInt32(0)
                w.write(Array((isVideo ? "vide" : "soun").utf8))
                w.writeZeros(12)
                w.write(Array((isVideo ? "VideoHandler" : "SoundHandler").utf8) + [0])
            }
            w.box("minf") { w in
                if isVideo {
                    w.fullBox("vmhd", flags: 1) { w in w.writeZeros(8) }
                } else {
                    w.fullBox("smhd") { w in w.writeZeros(4) }
                }
                w.box("dinf") { w in
                    w.fullBox("dref") { w in
                        w.writeUInt32(1)
                        w.fullBox("url ", flags: 1) { _ in }  // Self-contained: media is in this file.
                    }
                }
                w.box("stbl") { w in
                    w.fullBox("stsd") { w in
                        w.writeUInt32(1)
                        writeSampleEntry(&w, media: track.media)
                    }
                    w.fullBox("stts") { w in w.writeUInt32(0) }
                    w.fullBox("stsc") { w in w.writeUInt32(0) }
                    w.fullBox("stsz") { w in w.writeZeros(8) }
                    w.fullBox("stco") { w in w.writeUInt32(0) }
                }
            }
        }
    }
}
