import Logging
import MediaCore
import NIOCore
import WebRTCWire

/// Routes datagrams on the shared UDP port to sessions (RFC 7983 demux, then USERNAME or source address) and
/// carries out what sessions return. Confined to `eventLoop` (hence unchecked Sendable): every method runs there.
final class TransportRouter: @unchecked Sendable {
    /// One session with its owner's event stream (a class, because sessions are non-copyable values).
    final class Entry {
        let id: UInt64
        var session: TransportSession
        let continuation: AsyncStream<WebRTCSessionEvent>.Continuation

        init(
            id: UInt64,
            session: consuming TransportSession,
            continuation: AsyncStream<WebRTCSessionEvent>.Continuation
        ) {
            self.id = id
            self.session = session
            self.continuation = continuation
        }
    }

    let eventLoop: any EventLoop
    let certificate: DTLSCertificate
    let timing: TransportSession.Timing
    let eventBufferLimit: Int
    let logger: Logger
    /// One bound socket per configured host address.
    var channels: [any Channel] = []
    private var sessions: [UInt64: Entry] = [:]
    private var byUfrag: [String: Entry] = [:]
    private var byAddress: [TransportAddress: Entry] = [:]
    /// Which of our sockets last heard from an address, so replies leave from the address the peer checked.
    private var channelByAddress: [TransportAddress: Int] = [:]
    private var socketAddresses: [TransportAddress: SocketAddress] = [:]
    private var nextID: UInt64 = 1
    /// Datagrams no session claimed (unknown ufrag or address, or not STUN/DTLS/RTP/RTCP).
    private(set) var unroutedDatagrams = 0

    init(
        eventLoop: any EventLoop,
        certificate: DTLSCertificate,
        timing: TransportSession.Timing,
        eventBufferLimit: Int,
        logger: Logger
    ) {
        self.eventLoop = eventLoop
        self.certificate = certificate
        self.timing = timing
        self.eventBufferLimit = eventBufferLimit
        self.logger = logger
    }

    /// Registers a session under our ufrag and, when controlling, starts its checks.
    func open(
        _ parameters: WebRTCSessionParameters
    ) throws(WebRTCTransportError)
        -> (id: UInt64, events: AsyncStream<WebRTCSessionEvent>)
    {
        guard byUfrag[parameters.local.ufrag] == nil else {
            throw .invalidState("ICE ufrag \(parameters.local.ufrag) is already in use")
        }
        let now = NIODeadline.now()
        let session = try TransportSession(parameters: parameters, certificate: certificate, timing: timing, now: now)
        let (events, continuation) = AsyncStream.makeStream(
            of: WebRTCSessionEvent.self,
            bufferingPolicy: .bufferingNewest(eventBufferLimit)
        )
        let entry = Entry(id: nextID, session: session, continuation: continuation)
        nextID += 1
        sessions[entry.id] = entry
        byUfrag[parameters.local.ufrag] = entry
        logger.debug("session opened", metadata: ["session": "\(entry.id)", "ufrag": "\(parameters.local.ufrag)"])
        perform(entry.session.start(now: now), for: entry)
        return (entry.id, events)
    }

    /// One datagram from `source` on socket `channel`.
    func receive(_ datagram: [UInt8], from source: TransportAddress, via channel: Int) {
        let now = NIODeadline.now()
        switch PacketClass(classifying: datagram) {
        case .stun:
            guard let message = try? STUNMessage(parsing: datagram) else { return unrouted() }
            let entry: Entry?
            if message.type.messageClass == .request, let fragments = message.iceUsernameFragments {
                entry = byUfrag[String(fragments.receiver)]
            } else {
                entry = byAddress[source]
            }
            guard let entry else { return unrouted() }
            channelByAddress[source] = channel
            perform(entry.session.receiveSTUN(message, from: source, now: now), for: entry)
        case .dtls:
            guard let entry = byAddress[source] else { return unrouted() }
            perform(entry.session.receiveDTLS(datagram, from: source, now: now), for: entry)
        case .rtp, .rtcp:
            guard let entry = byAddress[source] else { return unrouted() }
            let kind: SRTPPacketKind = PacketClass(classifying: datagram) == .rtp ? .rtp : .rtcp
            let actions = entry.session.receiveMedia(datagram, kind: kind, from: source, now: now, arrival: .now())
            perform(actions, for: entry)
        case .zrtp, .turnChannel, .unknown:
            unrouted()
        }
    }

    /// Runs every session's timers.
    func tick() {
        let now = NIODeadline.now()
        for entry in Array(sessions.values) { perform(entry.session.tick(now: now), for: entry) }
    }

    func sendRTP(_ packet: [UInt8], session id: UInt64) {
        guard let entry = sessions[id] else { return }
        perform(entry.session.sendRTP(packet), for: entry)
    }

    func sendRTCP(_ packet: [UInt8], session id: UInt64) {
        guard let entry = sessions[id] else { return }
        perform(entry.session.sendRTCP(packet), for: entry)
    }

    func close(session id: UInt64, reason: WebRTCTransportError? = nil) {
        guard let entry = sessions[id] else { return }
        perform(entry.session.close(reason: reason), for: entry)
    }

    func closeAll() {
        for id in Array(sessions.keys) { close(session: id) }
    }

    func statistics(session id: UInt64) -> WebRTCSessionStatistics? { sessions[id]?.session.statistics }

    /// Number of live sessions.
    var sessionCount: Int { sessions.count }

    private func unrouted() { unroutedDatagrams += 1 }

    private func perform(_ actions: [TransportSessionAction], for entry: Entry) {
        for action in actions {
            switch action {
            case .send(let bytes, let destination):
                write(bytes, to: destination)
            case .learn(let address):
                byAddress[address] = entry
            case .emit(let event):
                entry.continuation.yield(event)
                if case .closed(let reason) = event { remove(entry, reason: reason) }
            }
        }
    }

    private func remove(_ entry: Entry, reason: WebRTCTransportError?) {
        sessions[entry.id] = nil
        if byUfrag[entry.session.parameters.local.ufrag] === entry {
            byUfrag[entry.session.parameters.local.ufrag] = nil
        }
        for (address, owner) in byAddress where owner === entry {
            byAddress[address] = nil
            channelByAddress[address] = nil
            socketAddresses[address] = nil
        }
        entry.continuation.finish()
        logger.info(
            "session closed",
            metadata: ["session": "\(entry.id)", "reason": "\(reason.map { "\($0)" } ?? "closed locally")"]
        )
    }

    /// Writes from the socket that last heard `destination`, else the first one of the same IP family.
    private func write(_ bytes: [UInt8], to destination: TransportAddress) {
        let index =
            channelByAddress[destination]
            ?? channels.firstIndex { channel in
                guard let local = channel.localAddress else { return false }
                return (local.protocol == .inet) == destination.isIPv4
            }
        guard let index, index < channels.count else { return }
        let address: SocketAddress
        if let cached = socketAddresses[destination] {
            address = cached
        } else {
            guard let made = try? destination.socketAddress() else { return }
            socketAddresses[destination] = made
            address = made
        }
        let envelope = AddressedEnvelope(remoteAddress: address, data: ByteBuffer(bytes: bytes))
        channels[index].writeAndFlush(envelope, promise: nil)
    }
}
