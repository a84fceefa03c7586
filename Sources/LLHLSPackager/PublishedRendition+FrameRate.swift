/// FRAME-RATE for a source that states none (WebRTC): measured over the first segment, snapped to a common rate.
extension PublishedRendition {
    /// Frame rates encoders use; a second of jittered browser timestamps lands within 2 % of one of them.
    static let commonFrameRates: [Double] = [10, 12, 15, 20, 23.976, 24, 25, 29.97, 30, 48, 50, 59.94, 60, 90, 120]

    /// A measured rate snapped to the nearest common one within 2 %, else rounded to 0.1.
    static func snappedFrameRate(_ measured: Double) -> Double {
        if let near = commonFrameRates.min(by: { abs($0 - measured) < abs($1 - measured) }),
            abs(near - measured) <= 0.02 * near
        {
            return near
        }
        return (measured * 10).rounded() / 10
    }
}
