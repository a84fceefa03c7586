import CSRT
import Logging
import MediaCore
import SRTWire
import StreamHub
import Synchronization

import class Foundation.Thread

/// The listening socket, its listen callback (admission before any media) and the accept loop on its own thread.
final class SRTListener: Sendable {
    /// A caller the callback let through, waiting for `srt_accept`.
    struct Admitted: Sendable {
        var id: SRTStreamID
        var auth: String?
        var peer: String
        var since: ContinuousClock.Instant
    }

    let socket: SRTSocket
    let configuration: SRTIngestConfiguration
    let admission: SRTAdmission
    let hub: StreamHub
    let logger: Logger
    let sessions: SRTSessionRegistry
    let startSession: @Sendable (SRTSocket, Admitted) -> Void
    private let admitted = Mutex<[SRTSOCKET: Admitted]>([:])
    private let stopped = Atomic<Bool>(false)

    /// Opens, configures and binds the listener (libsrt started by the caller); the listen callback is installed before
    /// `srt_listen`.
    init(
        host: String,
        configuration: SRTIngestConfiguration,
        admission: SRTAdmission,
        hub: StreamHub,
        logger: Logger,
        sessions: SRTSessionRegistry,
        startSession: @escaping @Sendable (SRTSocket, Admitted) -> Void
    ) throws(SRTIngestError) {
        let socket = try SRTSocket.make()
        self.socket = socket
        self.configuration = configuration
        self.admission = admission
        self.hub = hub
        self.logger = logger
        self.sessions = sessions
        self.startSession = startSession
        do throws(SRTIngestError) {
            // Accepted sockets inherit these: the latency window, encryption, and non-blocking accept.
            try socket.set(SRTO_RCVLATENCY, Int32(configuration.latency.milliseconds), name: "SRTO_RCVLATENCY")
            try socket.set(SRTO_PEERLATENCY, Int32(configuration.latency.milliseconds), name: "SRTO_PEERLATENCY")
            if let passphrase = configuration.passphrase {
                try socket.set(SRTO_PASSPHRASE, passphrase, name: "SRTO_PASSPHRASE")
                try socket.set(SRTO_PBKEYLEN, Int32(configuration.keyLength), name: "SRTO_PBKEYLEN")
            }
            try socket.set(SRTO_RCVSYN, 0, name: "SRTO_RCVSYN")
            let opaque = Unmanaged.passUnretained(self).toOpaque()
            guard srt_listen_callback(socket.id, srtListenCallback, opaque) != sluice_srt_error() else {
                throw SRTSocket.lastError("srt_listen_callback")
            }
            try socket.listen(host: host, port: configuration.port)
        } catch {
            socket.close()
            throw error
        }
    }

    /// Runs the accept loop on a new thread until `stop()`.
    func start() {
        SRTLibraryLog.register(self, logger: logger)
        sessions.threadStarted()
        let thread = Thread { [self] in
            acceptLoop()
            sessions.threadEnded()
        }
        thread.name = "srt-accept"
        thread.start()
    }

    /// Ends the accept loop and closes the listener (sessions are closed through the registry).
    func stop() {
        stopped.store(true, ordering: .releasing)
    }

    /// Called by libsrt's receiver thread for each caller's conclusion handshake: 0 accepts, -1 rejects.
    fileprivate func admit(_ ns: SRTSOCKET, version: Int32, peer: UnsafePointer<sockaddr>?, streamID: String) -> Int32 {
        var text = [CChar](repeating: 0, count: 64)
        sluice_srt_format_address(peer, &text, text.count)
        let ip = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let peerText = "\(ip):\(sluice_srt_address_port(peer))"
        let decision = admission.decide(
            streamID: streamID,
            handshakeVersion: version,
            peerIP: ip,
            sessions: sessions.count,
            seats: { hub.admits($0.seat, on: $0.key) },
            now: WallTime.now().nanosecondsSince1970 / 1_000_000_000
        )
        switch decision {
        case .reject(let code, let reason):
            _ = srt_setrejectreason(ns, code)
            logger.warning(
                "SRT caller refused",
                metadata: ["peer": "\(peerText)", "streamid": "\(streamID)", "code": "\(code)", "reason": "\(reason)"]
            )
            return -1
        case .accept(let id, let auth):
            admitted.withLock {
                $0[ns] = Admitted(id: id, auth: auth, peer: peerText, since: .now)
            }
            return 0
        }
    }

    private func acceptLoop() {
        let eid = srt_epoll_create()
        var events = Int32(SRT_EPOLL_IN.rawValue | SRT_EPOLL_ERR.rawValue)
        _ = srt_epoll_add_usock(eid, socket.id, &events)
        defer {
            _ = srt_epoll_release(eid)
            socket.close()
            SRTLibraryLog.unregister(self)
        }
        while !stopped.load(ordering: .acquiring) {
            var ready = [SRTSOCKET](repeating: 0, count: 4)
            var count = Int32(ready.count)
            let n = srt_epoll_wait(eid, &ready, &count, nil, nil, 250, nil, nil, nil, nil)
            // One accept per ready caller: another would fail, and libsrt would log that as an error.
            if n > 0, let caller = socket.accept() { accepted(caller) }
            sweep()
        }
    }

    private func accepted(_ caller: SRTSocket) {
        guard let entry = admitted.withLock({ $0.removeValue(forKey: caller.id) }) else {
            logger.warning("SRT caller accepted without admission: closed")
            caller.close()
            return
        }
        startSession(caller, entry)
    }

    /// libsrt refused a caller after the callback admitted it (its encryption check): true when it was ours.
    func handshakeRejected(_ ns: SRTSOCKET, reason: String) -> Bool {
        guard let entry = admitted.withLock({ $0.removeValue(forKey: ns) }) else { return false }
        logger.warning(
            "SRT caller refused",
            metadata: ["peer": "\(entry.peer)", "stream": "\(entry.id.key)", "reason": "\(reason)"]
        )
        return true
    }

    /// A caller the callback admitted that never reaches accept failed later in the handshake: with a passphrase
    /// set, that is the encryption check (libsrt rejects a wrong or missing passphrase after the callback).
    private func sweep() {
        let now = ContinuousClock.now
        let stale = admitted.withLock { a -> [Admitted] in
            let old = a.filter { now - $0.value.since > .seconds(3) }
            for k in old.keys { a[k] = nil }
            return Array(old.values)
        }
        for entry in stale {
            let reason =
                configuration.passphrase != nil
                ? "handshake failed after the stream id was accepted: wrong or missing passphrase"
                : "handshake did not complete"
            logger.warning(
                "SRT caller refused",
                metadata: ["peer": "\(entry.peer)", "stream": "\(entry.id.key)", "reason": "\(reason)"]
            )
        }
    }
}

/// libsrt's listen hook: a C function, so the listener travels in the opaque pointer.
private func srtListenCallback(
    _ opaque: UnsafeMutableRawPointer?,
    _ ns: SRTSOCKET,
    _ version: Int32,
    _ peer: UnsafePointer<sockaddr>?,
    _ streamID: UnsafePointer<CChar>?
) -> Int32 {
    guard let opaque else { return -1 }
    let listener = Unmanaged<SRTListener>.fromOpaque(opaque).takeUnretainedValue()
    return listener.admit(ns, version: version, peer: peer, streamID: streamID.map { String(cString: $0) } ?? "")
}
