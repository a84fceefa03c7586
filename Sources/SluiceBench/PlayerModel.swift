import MediaCore

/// A live player's clock as a value (hls.js-like): starts at the join position, plays at 1.0x, never speeds up,
/// and stalls when the next frame has not arrived yet.
struct PlayerModel: Sendable, Equatable {
    /// A frame for the model: its position on the continuous playback timeline and when it became available.
    struct Input: Sendable, Equatable {
        /// Presentation position (pts, continued across discontinuities).
        var position: Duration
        /// When its part or segment was fully received.
        var available: WallTime
    }

    /// The outcome: a display instant per input (nil before the join position) and the stall count.
    struct Schedule: Sendable, Equatable {
        var displayed: [WallTime?]
        var stalls: Int
        var stalledFor: Duration
    }

    /// Schedules `inputs` (any order) for a player that starts at `startPosition` as soon as the first frame at
    /// or after it is available; frames before it were only decoded.
    static func schedule(_ inputs: [Input], startPosition: Duration) -> Schedule {
        var displayed = [WallTime?](repeating: nil, count: inputs.count)
        let order = inputs.indices.filter { inputs[$0].position >= startPosition }
            .sorted { inputs[$0].position < inputs[$1].position }
        guard let first = order.first else { return Schedule(displayed: displayed, stalls: 0, stalledFor: .zero) }
        let origin = inputs[first].position
        // Playback cannot begin before every frame up to the first shown one has arrived (decode order).
        let start =
            inputs.indices.filter { inputs[$0].position <= origin }.map { inputs[$0].available }.max()
            ?? inputs[first].available
        var stalled = Duration.zero
        var stalls = 0
        for i in order {
            let due = start.advanced(by: inputs[i].position - origin + stalled)
            if inputs[i].available > due {
                stalls += 1
                stalled += inputs[i].available.duration(since: due)
                displayed[i] = inputs[i].available
            } else {
                displayed[i] = due
            }
        }
        return Schedule(displayed: displayed, stalls: stalls, stalledFor: stalled)
    }
}
