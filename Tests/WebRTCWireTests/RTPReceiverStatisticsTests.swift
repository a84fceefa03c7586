import MediaCore
import Testing
import WebRTCWire

/// Receiver report statistics (RFC 3550 A.3, A.8) and sender-report clock mapping.
@Suite struct RTPReceiverStatisticsTests {
    static let t0 = ContinuousClock.Instant.now

    @Test func countsLossPerIntervalAndCumulatively() {
        var stats = RTPReceiverStatistics(ssrc: 7, clockRate: 90_000)
        for sequence: UInt16 in 100...109 where sequence != 102 && sequence != 105 {
            stats.record(sequenceNumber: sequence, timestamp: UInt32(sequence) * 3_000, arrival: Self.t0)
        }
        let first = stats.makeReportBlock(now: Self.t0)
        #expect(
            first.ssrc == 7 && first.fractionLost == 51 && first.cumulativeLost == 2
                && first.extendedHighestSequence == 109
        )
        for sequence: UInt16 in 110...119 { stats.record(sequenceNumber: sequence, timestamp: 0, arrival: Self.t0) }
        let second = stats.makeReportBlock(now: Self.t0)
        #expect(second.fractionLost == 0 && second.cumulativeLost == 2 && second.extendedHighestSequence == 119)
    }

    @Test func extendedSequenceCountsCycles() {
        var stats = RTPReceiverStatistics(ssrc: 1, clockRate: 48_000)
        for sequence: UInt16 in [65_534, 65_535, 0, 1] {
            stats.record(sequenceNumber: sequence, timestamp: 0, arrival: Self.t0)
        }
        #expect(stats.makeReportBlock(now: Self.t0).extendedHighestSequence == 0x0001_0001)
        #expect(stats.expected == 4 && stats.cumulativeLost == 0)
    }

    @Test func jitterFollowsArrivalVariation() {
        var steady = RTPReceiverStatistics(ssrc: 1, clockRate: 90_000)
        var bumpy = RTPReceiverStatistics(ssrc: 1, clockRate: 90_000)
        for i in 0..<50 {
            let sent = UInt32(i * 3_000)
            let onTime = Self.t0 + .nanoseconds(Int64(i) * 33_333_333)
            steady.record(sequenceNumber: UInt16(i), timestamp: sent, arrival: onTime)
            bumpy.record(
                sequenceNumber: UInt16(i),
                timestamp: sent,
                arrival: onTime + .milliseconds(i % 2 == 0 ? 0 : 10)
            )
        }
        #expect(steady.jitter < 1)
        // |D| is 10 ms = 900 ticks each step, so the estimate approaches 900: 900 * (1 - (15/16)^49) ≈ 858.
        #expect(bumpy.jitter > 800 && bumpy.jitter < 900)
    }

    @Test func echoesTheLastSenderReport() {
        var stats = RTPReceiverStatistics(ssrc: 1, clockRate: 90_000)
        stats.record(sequenceNumber: 1, timestamp: 0, arrival: Self.t0)
        let report = RTCPSenderReport(
            ssrc: 9,
            ntpTimestamp: 0xE42A_3C6B_8000_0000,
            rtpTimestamp: 90_000,
            packetCount: 1,
            octetCount: 1
        )
        stats.record(report, arrival: Self.t0)
        let block = stats.makeReportBlock(now: Self.t0 + .milliseconds(1_500))
        #expect(block.lastSenderReport == 0x3C6B_8000 && block.delaySinceLastSenderReport == 0x0001_8000)
    }

    @Test func senderReportMapsRTPTimestampsToWallClock() {
        let report = RTCPSenderReport(
            ssrc: 9,
            ntpTimestamp: 0xE42A_3C6B_8000_0000,
            rtpTimestamp: 90_000,
            packetCount: 1,
            octetCount: 1
        )
        #expect(
            report.wallTime(ofRTPTimestamp: 180_000, clockRate: 90_000) == report.wallTime.advanced(by: .seconds(1))
        )
        #expect(report.wallTime(ofRTPTimestamp: 0, clockRate: 90_000) == report.wallTime.advanced(by: .seconds(-1)))
        let wrapped = RTCPSenderReport(
            ssrc: 9,
            ntpTimestamp: 0xE42A_3C6B_8000_0000,
            rtpTimestamp: UInt32.max,
            packetCount: 1,
            octetCount: 1
        )
        #expect(
            wrapped.wallTime(ofRTPTimestamp: 47_999, clockRate: 48_000) == wrapped.wallTime.advanced(by: .seconds(1))
        )
    }
}
