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
        source: VideoParameters, rungs: [LadderConfiguration.Rung], maxRungs: Int = .max
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

    /// The nearest even integer (4:2:0 chroma needs even sizes), at least 2.
    static func even(_ value: Double) -> Int { max(2, Int((value / 2).rounded()) * 2) }
}
