import MediaCore
import NIOCore
import WebRTCWire

/// What a `TransportSession` asks its router to do.
enum TransportSessionAction: Sendable {
    /// Write this datagram to that address from our UDP port.
    case send([UInt8], to: TransportAddress)
    /// Route datagrams from this address to this session from now on.
    case learn(TransportAddress)
    /// Hand this to the session's owner.
    case emit(WebRTCSessionEvent)
}

/// One peer connection on the shared port: ICE checks, then DTLS over the nominated pair, then SRTP (RFC 8834 §3).
///
/// A value that returns actions: the router feeds it datagrams it already classified (RFC 7983) and the time, and
/// carries out what comes back. Time is a parameter, so tests drive it without sockets or sleeps.
struct TransportSession: ~Copyable {
    /// Where the session is in its life.
    enum Phase: Sendable, Hashable {
        /// Waiting for an authenticated check (and, when controlled, USE-CANDIDATE).
        case checking
        /// ICE chose a pair; DTLS is shaking hands over it.
        case securing
        /// SRTP keyed: media flows.
        case connected
        /// Ended; everything is ignored.
        case closed
    }

    /// Knobs shared by every session of a service.
    struct Timing: Sendable {
        /// End the session when nothing authenticated arrived for this long (RFC 7675 consent).
        var consentTimeout: Duration = .seconds(10)
        /// Controlling: resend unanswered checks this often before nomination (RFC 8445 §14.2 pacing, one pair).
        var checkInterval: Duration = .milliseconds(100)
        /// Controlling: refresh consent this often once nominated (RFC 7675 §5.1 uses ~5 s with a 30 s timeout).
        var consentInterval: Duration = .seconds(2)
    }

    let parameters: WebRTCSessionParameters
    let timing: Timing
    var phase: Phase = .checking
    var statistics = WebRTCSessionStatistics()
    /// The remote address ICE nominated (or, before nomination, where DTLS came from).
    var selected: TransportAddress?
    var dtls: DTLSEndpoint
    private var inbound: SRTPContext?
    private var outbound: SRTPContext?
    /// Addresses whose checks carried valid MESSAGE-INTEGRITY; only they may speak DTLS or media.
    var authenticated: Set<TransportAddress> = []
    var lastHeard: NIODeadline
    /// Whether `iceConnected` went out (once per session, for the first nominated address).
    var announcedICE = false
    // Controlling side: outstanding checks by transaction, and when to send the next round.
    var pendingChecks: [STUNTransactionID: TransportAddress] = [:]
    private var nextCheck: NIODeadline
    let tieBreaker = UInt64.random(in: 1...UInt64.max)

    init(
        parameters: WebRTCSessionParameters,
        certificate: DTLSCertificate,
        timing: Timing,
        now: NIODeadline
    )
        throws(WebRTCTransportError)
    {
        self.parameters = parameters
        self.timing = timing
        self.dtls = try DTLSEndpoint(
            role: parameters.dtlsRole,
            certificate: certificate,
            remoteFingerprint: parameters.remoteFingerprint
        )
        self.lastHeard = now
        self.nextCheck = now
    }

    /// The controlling side's first actions: learn the candidates and send the first checks.
    mutating func start(now: NIODeadline) -> [TransportSessionAction] {
        guard parameters.iceRole == .controlling else { return [] }
        return parameters.remoteCandidates.map { .learn($0) } + tick(now: now)
    }

    /// Timers: consent expiry, DTLS retransmission, and (controlling) check pacing and consent refresh.
    mutating func tick(now: NIODeadline) -> [TransportSessionAction] {
        guard phase != .closed else { return [] }
        if now - lastHeard > TimeAmount(timing.consentTimeout) {
            return close(reason: .consentExpired(after: timing.consentTimeout))
        }
        var actions: [TransportSessionAction] = []
        if let due = dtls.timeout(), due <= .zero { actions += carryOut(dtls.handleTimeout()) }
        if parameters.iceRole == .controlling, now >= nextCheck {
            actions += sendChecks()
            nextCheck = now + TimeAmount(selected == nil ? timing.checkInterval : timing.consentInterval)
        }
        return actions
    }

    /// Ends the session (DTLS close_notify when connected) and tells the owner why.
    mutating func close(reason: WebRTCTransportError?) -> [TransportSessionAction] {
        guard phase != .closed else { return [] }
        let goodbye = carryOut(dtls.close())
        phase = .closed
        inbound = nil
        outbound = nil
        return goodbye + [.emit(.closed(reason))]
    }

    /// Protects and sends one RTP packet to the selected address (publisher media, retransmissions).
    mutating func sendRTP(_ packet: [UInt8]) -> [TransportSessionAction] {
        protectAndSend(packet) { (context: SRTPContext, bytes: [UInt8]) throws(WebRTCTransportError) in
            try context.protectRTP(bytes)
        }
    }

    /// Protects and sends one RTCP compound packet (receiver reports, NACK, PLI).
    mutating func sendRTCP(_ packet: [UInt8]) -> [TransportSessionAction] {
        protectAndSend(packet) { (context: SRTPContext, bytes: [UInt8]) throws(WebRTCTransportError) in
            try context.protectRTCP(bytes)
        }
    }

    private mutating func protectAndSend(
        _ packet: [UInt8],
        _ protect: (SRTPContext, [UInt8]) throws(WebRTCTransportError) -> [UInt8]
    ) -> [TransportSessionAction] {
        guard phase == .connected, let outbound, let selected, let bytes = try? protect(outbound, packet) else {
            statistics.sendsDropped += 1
            return []
        }
        return [countSend(bytes, to: selected)]
    }

    /// A DTLS record from `source` (RFC 7983: first byte 20...63).
    mutating func receiveDTLS(
        _ datagram: [UInt8],
        from source: TransportAddress,
        now: NIODeadline
    )
        -> [TransportSessionAction]
    {
        guard phase == .checking || phase == .securing || phase == .connected, authenticated.contains(source) else {
            return []
        }
        countReceive(datagram, now: now)
        // A DTLS client may start as soon as its check succeeded, before it nominates: answer where it speaks from.
        if selected == nil { selected = source }
        if phase == .checking { phase = .securing }
        return carryOut(dtls.receive(datagram))
    }

    /// An SRTP or SRTCP packet from `source`; dropped (and counted) unless it authenticates.
    mutating func receiveMedia(
        _ datagram: [UInt8],
        kind: SRTPPacketKind,
        from source: TransportAddress,
        now: NIODeadline,
        arrival: WallTime
    ) -> [TransportSessionAction] {
        guard phase == .connected, let inbound, authenticated.contains(source) else { return [] }
        countReceive(datagram, now: now)
        do {
            switch kind {
            case .rtp:
                let packet = try inbound.unprotectRTP(datagram)
                statistics.rtpPacketsReceived += 1
                return [.emit(.rtp(packet, receivedAt: arrival))]
            case .rtcp:
                let packet = try inbound.unprotectRTCP(datagram)
                statistics.rtcpPacketsReceived += 1
                return [.emit(.rtcp(packet, receivedAt: arrival))]
            }
        } catch {
            statistics.srtpRejected += 1
            return []
        }
    }

    /// Turns what DTLS returned into sends and events; keys SRTP when the handshake completes.
    mutating func carryOut(_ actions: [DTLSAction]) -> [TransportSessionAction] {
        var result: [TransportSessionAction] = []
        for action in actions {
            switch action {
            case .send(let datagram):
                if let selected { result.append(countSend(datagram, to: selected)) }
            case .connected(let material):
                do {
                    inbound = try SRTPContext(material: material, direction: .inbound)
                    outbound = try SRTPContext(material: material, direction: .outbound)
                } catch {
                    return result + close(reason: error)
                }
                phase = .connected
                result.append(.emit(.connected(material.profile)))
            case .failed(let error):
                return result + close(reason: error)
            case .closed:
                return result + close(reason: .closedByPeer)
            }
        }
        return result
    }

    mutating func countReceive(_ datagram: [UInt8], now: NIODeadline) {
        statistics.datagramsReceived += 1
        statistics.bytesReceived += datagram.count
        lastHeard = now
    }

    mutating func countSend(_ datagram: [UInt8], to address: TransportAddress) -> TransportSessionAction {
        statistics.datagramsSent += 1
        statistics.bytesSent += datagram.count
        return .send(datagram, to: address)
    }
}
