import NIOCore

/// The owner's handle on one transport session: its events, and sending RTP/RTCP back through it.
public struct WebRTCSession: Sendable {
    /// Unique within the service.
    public let id: UInt64
    /// ICE, DTLS and media events in arrival order; finishes after `.closed`. One consumer only.
    public let events: AsyncStream<WebRTCSessionEvent>
    let router: TransportRouter

    /// Protects and sends an RTP packet (our publisher); dropped and counted before DTLS connected.
    public func sendRTP(_ packet: [UInt8]) {
        let router = self.router
        let id = self.id
        router.eventLoop.execute { router.sendRTP(packet, session: id) }
    }

    /// Protects and sends packets in order in one event-loop turn, then calls `done` (a sender's queue accounting).
    public func sendRTP(_ packets: [[UInt8]], then done: @escaping @Sendable () -> Void) {
        let router = self.router
        let id = self.id
        router.eventLoop.execute {
            for packet in packets { router.sendRTP(packet, session: id) }
            done()
        }
    }

    /// Protects and sends an RTCP compound packet (receiver report, NACK, PLI).
    public func sendRTCP(_ packet: [UInt8]) {
        let router = self.router
        let id = self.id
        router.eventLoop.execute { router.sendRTCP(packet, session: id) }
    }

    /// Ends the session (DTLS close_notify when connected); `events` then yields `.closed(nil)` and finishes.
    public func close() {
        let router = self.router
        let id = self.id
        router.eventLoop.execute { router.close(session: id) }
    }

    /// Current counters; nil once the session ended.
    public func statistics() async -> WebRTCSessionStatistics? {
        let router = self.router
        let id = self.id
        return try? await router.eventLoop.submit { router.statistics(session: id) }.get()
    }
}
