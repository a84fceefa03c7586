import TestSupport
import Testing

@testable import WebRTCTransport

/// Packing OpenSSL's output records into datagrams no larger than the MTU (RFC 6347 §4.1.1).
@Suite("DTLSRecords")
struct DTLSRecordsTests {
    /// A record of `body` bytes: handshake type, DTLS 1.2, epoch 0, sequence 0.
    static func record(_ body: Int, fill: UInt8 = 0xAB) -> [UInt8] {
        [22, 254, 253, 0, 0, 0, 0, 0, 0, 0, 0, UInt8(body >> 8), UInt8(body & 0xFF)]
            + Array(repeating: fill, count: body)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let records: [[UInt8]]
        let trailing: [UInt8]
        let mtu: Int
        /// Expected datagram sizes.
        let sizes: [Int]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "one record", records: [record(100)], trailing: [], mtu: 1200, sizes: [113]),
        Case(name: "two fit together", records: [record(500), record(500)], trailing: [], mtu: 1200, sizes: [1026]),
        Case(
            name: "second overflows",
            records: [record(700), record(700)],
            trailing: [],
            mtu: 1200,
            sizes: [713, 713]
        ),
        Case(name: "exact fit", records: [record(587), record(587)], trailing: [], mtu: 1200, sizes: [1200]),
        Case(
            name: "oversized record alone",
            records: [record(1300), record(10)],
            trailing: [],
            mtu: 1200,
            sizes: [1313, 23]
        ),
        Case(name: "truncated tail kept", records: [record(10)], trailing: [22, 254], mtu: 1200, sizes: [23, 2]),
        Case(name: "length past end", records: [], trailing: Array(record(50).prefix(30)), mtu: 1200, sizes: [30]),
        Case(name: "empty", records: [], trailing: [], mtu: 1200, sizes: []),
    ]

    @Test(arguments: cases)
    func packsRecordsIntoDatagrams(_ c: Case) {
        let input = c.records.flatMap { $0 } + c.trailing
        let datagrams = DTLSRecords.pack(input, mtu: c.mtu)
        #expect(datagrams.map(\.count) == c.sizes)
        #expect(datagrams.flatMap { $0 } == input)
    }

    @Test func randomRecordRunsArePackedLosslesslyWithinTheMTU() {
        var random = SeededRandom(seed: 5)
        for _ in 0..<300 {
            let mtu = Int.random(in: 200...1500, using: &random)
            let records = (0..<Int.random(in: 0...12, using: &random)).map { _ in
                Self.record(Int.random(in: 0...400, using: &random), fill: UInt8.random(in: 0...255, using: &random))
            }
            let input = records.flatMap { $0 }
            let datagrams = DTLSRecords.pack(input, mtu: mtu)
            #expect(datagrams.flatMap { $0 } == input)
            // Only a single record larger than the MTU may exceed it.
            #expect(datagrams.allSatisfy { $0.count <= mtu || records.contains($0) })
            // Greedy: no two neighbours could have shared one datagram.
            for (a, b) in zip(datagrams, datagrams.dropFirst()) { #expect(a.count + Self.firstRecordLength(b) > mtu) }
        }
        // Arbitrary bytes never crash and are never lost.
        for _ in 0..<300 {
            let bytes = random.bytes(Int.random(in: 0...600, using: &random))
            #expect(DTLSRecords.pack(bytes, mtu: 300).flatMap { $0 } == bytes)
        }
    }

    static func firstRecordLength(_ datagram: [UInt8]) -> Int {
        13 + (Int(datagram[11]) << 8 | Int(datagram[12]))
    }
}

/// ICE credentials as RFC 8839 §5.4 requires them.
@Suite("ICECredentials")
struct ICECredentialsTests {
    @Test func randomCredentialsUseIceCharsAndMeetTheMinimumLengths() {
        var random = SeededRandom(seed: 9)
        var seen: Set<String> = []
        for _ in 0..<200 {
            let credentials = ICECredentials.random(using: &random)
            #expect(credentials.ufrag.count >= 4 && credentials.password.count >= 22)
            let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
            #expect((credentials.ufrag + credentials.password).allSatisfy { allowed.contains($0) })
            seen.insert(credentials.ufrag)
        }
        #expect(seen.count == 200)
    }
}
