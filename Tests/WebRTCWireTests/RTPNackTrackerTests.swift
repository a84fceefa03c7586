import Testing
import WebRTCWire

/// NACK retry scheduling.
@Suite struct RTPNackTrackerTests {
    static let t0 = ContinuousClock.Instant.now

    @Test func asksAgainAfterTheIntervalAndGivesUpAfterMaxRequests() {
        var tracker = RTPNackTracker(configuration: .init(retryInterval: .milliseconds(40), maxRequests: 3))
        tracker.markMissing([10, 11])
        #expect(tracker.due(now: Self.t0) == [10, 11])
        #expect(tracker.due(now: Self.t0 + .milliseconds(39)) == [])
        tracker.resolve(11)
        #expect(tracker.due(now: Self.t0 + .milliseconds(40)) == [10])
        #expect(tracker.due(now: Self.t0 + .milliseconds(80)) == [10])
        #expect(tracker.pending == [] && tracker.due(now: Self.t0 + .milliseconds(200)) == [])
        #expect(tracker.requestsSent == 4)
    }

    @Test func trackedSetIsBoundedOldestFirst() {
        var tracker = RTPNackTracker(configuration: .init(capacity: 3))
        tracker.markMissing([1, 2, 3, 2])
        tracker.markMissing([4])
        #expect(tracker.pending == [2, 3, 4])
    }

    @Test func nackPacketCarriesWhatIsDue() throws {
        var tracker = RTPNackTracker()
        tracker.markMissing([100, 101, 103])
        let nack = RTCPPacket.genericNACK(
            RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 0x1122_3344, lost: tracker.due(now: Self.t0))
        )
        #expect(nack.serialized() == RTCPCase.all[5].bytes)
    }
}
