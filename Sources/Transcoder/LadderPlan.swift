import MediaCore

/// A rung resolved against one source: exact output size and bit rate.
public struct PlannedRung: Sendable, Hashable {
    /// Rendition name (`480p`).
    public var name: String
    /// Output width in pixels (even).
    public var width: Int
    /// Output height in pixels (even).
    public var height: Int
    /// Target average video bit rate.
    public var videoBitRate: BitRate

    /// A planned rung.
    public init(name: String, width: Int, height: Int, videoBitRate: BitRate) {
        self.name = name
        self.width = width
        self.height = height
        self.videoBitRate = videoBitRate
    }
}

/// Turns the configured rungs into sizes for one source: never upscale, keep the aspect ratio, even dimensions.
public enum LadderPlan {
    /// Rungs strictly below the source height, highest first, at most `maxRungs`; the source itself is the top rung.
    public static func plan(
        source: VideoParameters,
        rungs: [LadderConfiguration.Rung],
        maxRungs: Int = .max
    ) -> [PlannedRung] {
        guard source.width > 0, source.height > 0 else { return [] }
        let fitting = rungs.filter { $0.height < source.height && $0.height >= 2 }.sorted { $0.height > $1.height }
        var seen: Set<Int> = []
        var planned: [PlannedRung] = []
        for rung in fitting where planned.count < max(0, maxRungs) {
            let height = even(Double(rung.height))
            let width = even(Double(source.width) * Double(rung.height) / Double(source.height))
            // Two rungs that round to the same height would be the same rendition twice.
            guard seen.insert(height).inserted else { continue }
            planned.append(PlannedRung(name: rung.name, width: width, height: height, videoBitRate: rung.videoBitRate))
        }
        return planned
    }

    /// A rung at the source's own size (even), replacing the passthrough as the top rendition.
    ///
    /// Its bit rate keeps the bits per pixel of the highest configured rung (2800 kbps at 720p30 → 6300 kbps at
    /// 1080p30), scaled by frame rate, between 1 and 12 Mbps. The name is `<height>p`, or `source` if a lower rung has it.
    public static func sourceRung(source: VideoParameters, rungs: [LadderConfiguration.Rung]) -> PlannedRung {
        let width = even(Double(source.width))
        let height = even(Double(source.height))
        let reference = rungs.max { $0.height < $1.height } ?? LadderConfiguration.defaultRungs[0]
        let referencePixels = Double(reference.height * reference.height) * 16 / 9
        let fps = min(max(source.frameRate ?? 30, 1), 120)
        let scaled = Double(reference.videoBitRate.bitsPerSecond) * Double(width * height) / referencePixels * fps / 30
        let bits = Int(min(max(scaled, 1_000_000), 12_000_000))
        // Only a planned (lower) rung can own the name: a configured 720p rung is skipped for a 720p source.
        let taken = rungs.contains { $0.name == "\(height)p" && $0.height < source.height }
        let name = taken ? "source" : "\(height)p"
        return PlannedRung(name: name, width: width, height: height, videoBitRate: BitRate(bitsPerSecond: bits))
    }

    /// x264 threads for `rung` in a ladder of `all`: the cores shared in proportion to each rung's pixels, rounded
    /// up, at least 1 (2 cores, 720p + 480p + 360p → 2, 1, 1). `configured` > 0 overrides (`encoderThreads`).
    public static func encoderThreads(
        for rung: PlannedRung,
        in all: [PlannedRung],
        cores: Int,
        configured: Int = 0
    ) -> Int {
        if configured > 0 { return configured }
        let total = all.reduce(0) { $0 + $1.width * $1.height }
        guard total > 0, cores > 1 else { return 1 }
        let share = Double(cores) * Double(rung.width * rung.height) / Double(total)
        return min(cores, max(1, Int(share.rounded(.up))))
    }

    /// The nearest even integer (4:2:0 chroma needs even sizes), at least 2.
    static func even(_ value: Double) -> Int { max(2, Int((value / 2).rounded()) * 2) }
}
