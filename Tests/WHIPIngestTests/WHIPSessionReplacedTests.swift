import MediaCore
import StreamHub
import TestSupport
import Testing
import WHIPIngest
import WebRTCTransport
import WebRTCWire

/// A WHIP publisher that went silent loses its seat to a newer publish of the key (OBS reconnecting with a new
/// session before the old one timed out): the gateway closes the old session, so it neither lingers in the session
/// table nor counts against `webrtc.max_sessions`.
@Suite struct WHIPSessionReplacedTests {
    @Test func aSessionWhoseSeatANewerPublishTookIsClosed() async throws {
        let transport = try await LoopbackTransport.started()
        var onAir = OnAirConfiguration()
        onAir.failoverAfter = .milliseconds(50)
        let hub = StreamHub(onAir: onAir)
        let service = WHIPIngestService(transport: transport, hub: hub)
        _ = try await service.createSession(streamKey: "cam", offer: GoldenPublisher.offer().description.text)
        #expect(service.sessionCount == 1)
        // A seat that never sent media is replaced only after the hub's limit for silence before media.
        try await Task.sleep(for: .seconds(5.2))
        let newer = try hub.publish(key: try #require(StreamKey("cam")), origin: "rtmp")
        #expect(
            await eventually(within: .seconds(2)) { service.sessionCount == 0 },
            "the replaced session stays listed"
        )
        newer.end()
        service.closeAll()
        await transport.shutdown()
    }
}
