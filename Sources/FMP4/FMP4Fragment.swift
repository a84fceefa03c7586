import MediaCore

/// ISO/IEC 23000-19 §7.3.2.3 CMAF chunk: one `moof` (mfhd, one traf: tfhd, tfdt v1, trun v1) and its `mdat`.
public enum FMP4Fragment {
    /// trun flags: data-offset, sample-duration, sample-size, sample-flags, sample-composition-time-offset.
    static let trunFlags: UInt32 = 0x000001 | 0x000100 | 0x000200 | 0x000400 | 0x000800
    /// tfhd flags: default-base-is-moof only (data offsets count from the moof's first byte).
    static let tfhdFlags: UInt32 = 0x020000

    /// The chunk bytes; trun's data_offset points at the first sample byte in the mdat.
    public static func serialize(
        sequenceNumber: UInt32,
        trackID: UInt32,
        baseMediaDecodeTime: UInt64,
        samples: [FMP4Sample]
    ) -> [UInt8] {
        let payloadSize = samples.reduce(0) { $0 + $1.data.count }
        var w = ByteWriter(capacity: 96 + 16 * samples.count + payloadSize)
        var dataOffsetField = 0
        w.box("moof") { w in
            w.fullBox("mfhd") { w in w.writeUInt32(sequenceNumber) }
            w.box("traf") { w in
                w.fullBox("tfhd", flags: tfhdFlags) { w in w.writeUInt32(trackID) }
                w.fullBox("tfdt", version: 1) { w in w.writeUInt64(baseMediaDecodeTime) }
                w.fullBox("trun", version: 1, flags: trunFlags) { w in
                    w.writeUInt32(UInt32(samples.count))
                    dataOffsetField = w.count
                    w.writeUInt32(0)  // data_offset, patched once the moof size is known
                    for sample in samples {
                        w.writeUInt32(sample.duration)
                        w.writeUInt32(UInt32(sample.data.count))
                        w.writeUInt32(sample.sampleFlags)
                        w.writeUInt32(UInt32(bitPattern: sample.compositionOffset))
                    }
                }
            }
        }
        let mdatLarge = payloadSize > Int(UInt32.max) - 8
        let headerSize = mdatLarge ? 16 : 8
        w.patchUInt(UInt64(w.count + headerSize), width: 4, at: dataOffsetField)
        if mdatLarge {
            w.writeUInt32(1)
            w.write(Array("mdat".utf8))
            w.writeUInt64(UInt64(16 + payloadSize))
        } else {
            w.writeUInt32(UInt32(8 + payloadSize))
            w.write(Array("mdat".utf8))
        }
        for sample in samples { w.write(sample.data) }
        return w.bytes
    }
}
