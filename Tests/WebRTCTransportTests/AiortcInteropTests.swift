import Foundation
import Testing
import WebRTCTransport
import WebRTCWire

/// A real peer: aiortc 1.16 (Tests/e2e/aiortc_offerer.py) offers H.264; we answer with WebRTCWire's WHIP answer
/// builder and this transport, and must receive its RTP decrypted. Skipped where aiortc is not installed.
@Suite("aiortc interop", .serialized)
struct AiortcInteropTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../e2e/aiortc_offerer.py").standardizedFileURL.path

    static let aiortcInstalled: Bool = {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import aiortc"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    @Test(.enabled(if: aiortcInstalled, "python3 -m pip install aiortc"), .timeLimit(.minutes(1)))
    func aiortcPublishesH264ThatArrivesDecryptedThroughICEAndDTLS() async throws {
        var configuration = WebRTCTransportConfiguration()
        configuration.port = 0
        let certificate = try DTLSCertificate()
        let service = WebRTCTransportService(configuration: configuration, certificate: certificate)
        let candidates = try await service.start()
        let peer = try PythonPeer(script: Self.script, arguments: ["--seconds", "3"])
        defer { peer.terminate() }

        let offerText = try #require(try peer.readJSON()["offer"] as? String)
        let local = ICECredentials.random()
        let negotiation = try WHIPNegotiation(
            offerText: offerText,
            configuration: WHIPAnswerConfiguration(
                iceUfrag: local.ufrag,
                icePwd: local.password,
                fingerprint: certificate.fingerprint,
                candidates: candidates,
                sessionID: 1
            )
        )
        let video = try #require(negotiation.video)
        #expect(video.codec.name.lowercased() == "h264")
        let session = try await service.openSession(
            WebRTCSessionParameters(
                local: local,
                remote: ICECredentials(ufrag: negotiation.offer.iceUfrag, password: negotiation.offer.icePwd),
                remoteFingerprint: negotiation.offer.fingerprint,
                dtlsRole: negotiation.dtlsRole
            )
        )
        try peer.writeJSON(["answer": negotiation.answerText])

        var events = session.events.makeAsyncIterator()
        let remote = try await EventWait.until(&events) { if case .iceConnected(let r) = $0 { r } else { nil } }
        #expect(remote.ip == [127, 0, 0, 1])
        _ = try await EventWait.until(&events) { if case .connected(let p) = $0 { p } else { nil } }
        // Read until aiortc hangs up (close_notify) or goes silent (consent timeout): everything it sent.
        var packets: [RTPPacket] = []
        var rtcpPackets = 0
        var ending: WebRTCTransportError?
        var midway: WebRTCSessionStatistics?
        while let event = await events.next() {
            switch event {
            case .rtp(let bytes, _):
                packets.append(try RTPPacket(parsing: bytes))
                if packets.count == 30 { midway = await session.statistics() }
            case .rtcp: rtcpPackets += 1
            case .closed(let reason): ending = reason
            default: break
            }
        }
        let media = packets.filter { $0.payloadType == video.payloadType }
        #expect(media.count >= 50)
        // RFC 6184 §5.4: NAL unit types 1-23 single, 24 STAP-A, 28 FU-A; aiortc's first picture carries an SPS (7).
        let nalTypes = Set(media.compactMap { $0.payload.first.map { $0 & 0x1F } })
        #expect(nalTypes.isSubset(of: Set(1...24).union([28])))
        #expect(media.contains { Self.carriesSPS($0.payload) })
        #expect(Set(media.map(\.ssrc)).count == 1)
        let statistics = try #require(midway)
        #expect(statistics.srtpRejected == 0 && statistics.rtpPacketsReceived >= 30)

        let done = try peer.readJSON(until: { $0["done"] != nil })
        #expect(done["state"] as? String == "connected")
        // Nothing lost on loopback, and aiortc's sender reports got through SRTCP too.
        #expect(packets.count == done["packetsSent"] as? Int)
        #expect(rtcpPackets >= 1)
        #expect(ending == .closedByPeer || ending == .consentExpired(after: configuration.consentTimeout))
        await service.shutdown()
    }

    /// Whether an RTP payload is or aggregates an SPS (single NAL type 7, or inside a STAP-A).
    static func carriesSPS(_ payload: [UInt8]) -> Bool {
        guard let first = payload.first else { return false }
        switch first & 0x1F {
        case 7: return true
        case 24:
            var offset = 1
            while offset + 2 < payload.count {
                let size = Int(payload[offset]) << 8 | Int(payload[offset + 1])
                if payload[offset + 2] & 0x1F == 7 { return true }
                offset += 2 + size
            }
            return false
        default: return false
        }
    }
}

/// A Python child speaking one JSON object per line on stdio; stderr passes through for diagnosis.
final class PythonPeer {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer: [UInt8] = []

    init(script: String, arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script] + arguments
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    /// The next line parsed as a JSON object (blocking; the child always answers or exits).
    func readJSON() throws -> [String: Any] {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                guard let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
                    throw Failure(description: "not a JSON object: \(String(decoding: line, as: UTF8.self))")
                }
                return object
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw Failure(description: "python peer exited before answering") }
            buffer += chunk
        }
    }

    /// Reads lines until one satisfies `predicate`.
    func readJSON(until predicate: ([String: Any]) -> Bool) throws -> [String: Any] {
        while true {
            let object = try readJSON()
            if predicate(object) { return object }
        }
    }

    func writeJSON(_ object: [String: String]) throws {
        var data = try JSONSerialization.data(withJSONObject: object)
        data.append(UInt8(ascii: "\n"))
        input.fileHandleForWriting.write(data)
    }

    func terminate() {
        if process.isRunning { process.terminate() }
    }
}
