/// One sample of a CMAF chunk as written into `trun` and `mdat` (ISO/IEC 14496-12 §8.8.8).
public struct FMP4Sample: Sendable, Equatable {
    /// Sample duration in track timescale ticks.
    public var duration: UInt32
    /// Presentation minus decode time in track ticks (trun version 1 makes it signed).
    public var compositionOffset: Int32
    /// True for a sync sample (IDR for video, every AAC frame).
    public var isSync: Bool
    /// Sample bytes: AVCC length-prefixed NAL units or one raw AAC frame.
    public var data: [UInt8]

    /// Creates a sample.
    public init(duration: UInt32, compositionOffset: Int32 = 0, isSync: Bool, data: [UInt8]) {
        self.duration = duration
        self.compositionOffset = compositionOffset
        self.isSync = isSync
        self.data = data
    }

    /// §8.8.3.1 sample_flags: sync = depends_on 2, non_sync 0; others depends_on 1, non_sync 1 (CMAF, hls.js).
    public var sampleFlags: UInt32 { isSync ? 0x0200_0000 : 0x0101_0000 }
}
