/// How libavcodec spreads one H.264 stream over threads.
public enum DecoderThreading: Sendable, Hashable, CustomStringConvertible {
    /// One thread.
    case single
    /// Slices of one picture decode in parallel: no added latency, but only a stream cut into slices gains
    /// (x264 `tune zerolatency` writes one slice per thread; its default writes one per picture).
    case slices(Int)
    /// Consecutive pictures decode in parallel: any stream gains, each extra thread holds back one picture.
    case frames(Int)

    public var description: String {
        switch self {
        case .single: "1 thread"
        case .slices(let n): "\(n) slice threads"
        case .frames(let n): "\(n) frame threads"
        }
    }

    /// Slices per picture from the first access unit: slice threads when it has several (they cost no CPU to
    /// speak of); frame threads (2, one picture of delay: 17 ms at 60 fps) only at or above 1080p50 and only with
    /// cores to spare beyond one per encoder plus two (they cost ~10 % more CPU, which a busy machine pays in
    /// latency: measured in docs/BENCHMARKS.md); otherwise one thread.
    public static func choose(
        slicesPerPicture: Int,
        width: Int,
        height: Int,
        frameRate: Double?,
        cores: Int,
        encoders: Int = 0
    ) -> Self {
        guard cores > 1 else { return .single }
        if slicesPerPicture > 1 { return .slices(min(cores, slicesPerPicture, 8)) }
        let pixelsPerSecond = Double(width * height) * (frameRate ?? 30)
        return pixelsPerSecond >= 1920 * 1080 * 50 && cores >= encoders + 3 ? .frames(2) : .single
    }
}
