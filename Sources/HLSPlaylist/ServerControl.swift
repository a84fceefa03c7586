import MediaCore

/// EXT-X-SERVER-CONTROL (RFC 8216bis §4.4.3.8); identical in every media playlist of a stream.
public struct ServerControl: Sendable, Equatable {
    /// CAN-BLOCK-RELOAD=YES.
    public var canBlockReload: Bool
    /// PART-HOLD-BACK, ≥ 3 × PART-TARGET (Apple MUST, [A 14.3]).
    public var partHoldBack: Duration?
    /// HOLD-BACK, ≥ 3 × TARGETDURATION.
    public var holdBack: Duration?
    /// CAN-SKIP-UNTIL, the Skip Boundary, ≥ 6 × TARGETDURATION.
    public var canSkipUntil: Duration?

    /// Creates the tag model.
    public init(canBlockReload: Bool, partHoldBack: Duration?, holdBack: Duration?, canSkipUntil: Duration?) {
        self.canBlockReload = canBlockReload
        self.partHoldBack = partHoldBack
        self.holdBack = holdBack
        self.canSkipUntil = canSkipUntil
    }

    /// The tag line.
    public func render() -> String {
        var attrs: [String] = []
        if canBlockReload { attrs.append("CAN-BLOCK-RELOAD=YES") }
        if let s = canSkipUntil {
            attrs.append("CAN-SKIP-UNTIL=\(PlaylistDecimal.format(seconds: s.secondsDouble, decimals: 3))")
        }
        if let h = holdBack {
            attrs.append("HOLD-BACK=\(PlaylistDecimal.format(seconds: h.secondsDouble, decimals: 3))")
        }
        if let p = partHoldBack {
            attrs.append("PART-HOLD-BACK=\(PlaylistDecimal.format(seconds: p.secondsDouble, decimals: 3))")
        }
        return "#EXT-X-SERVER-CONTROL:" + attrs.joined(separator: ",")
    }
}
