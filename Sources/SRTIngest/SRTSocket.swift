import CSRT
import Telemetry

/// One libsrt socket (draft-sharabayko-srt §3: UDT-derived, live mode): the only type here calling libsrt besides the
/// listen callback. libsrt is thread-safe per socket; its blocking calls run on SRT ingest's own threads, never on
/// Swift's cooperative pool.
struct SRTSocket: Sendable, Hashable {
    /// libsrt's socket id.
    let id: SRTSOCKET

    /// What one blocking receive gave.
    enum Received {
        /// `count` bytes of one message; `sinceDue` is how long ago its TSBPD delivery time passed
        /// (SRT_MSGCTRL.srctime), nil when libsrt gave none.
        case message(count: Int, sinceDue: Duration?)
        /// Nothing within SRTO_RCVTIMEO: look at the stop flag and come back.
        case timeout
        /// The connection is over, with libsrt's reason.
        case ended(String)
    }

    /// libsrt's process-wide start-up; it counts, and each call needs its `cleanup()`. True when this call started
    /// libsrt (its GC thread) rather than joining a running start-up.
    @discardableResult static func startup() -> Bool { srt_startup() == 0 }

    /// Undoes one `startup()`. The last one stops libsrt's GC thread: left running, it walks the socket map while
    /// libsrt's static destructor frees it at process exit (a SIGSEGV in `CUDTUnited::checkBrokenSockets`).
    static func cleanup() { _ = srt_cleanup() }

    /// The last libsrt error of this thread as an `SRTIngestError`.
    static func lastError(_ call: String) -> SRTIngestError {
        var errno: Int32 = 0
        let code = srt_getlasterror(&errno)
        let message = String(cString: srt_getlasterror_str())
        return .libsrt(call: call, code: code, message: message)
    }

    /// A new live-mode socket.
    static func make() throws(SRTIngestError) -> SRTSocket {
        let id = srt_create_socket()
        guard id != sluice_srt_invalid_sock() else { throw lastError("srt_create_socket") }
        return SRTSocket(id: id)
    }

    /// Sets an integer (or boolean) option.
    func set(_ option: SRT_SOCKOPT, _ value: Int32, name: String) throws(SRTIngestError) {
        var v = value
        guard srt_setsockflag(id, option, &v, Int32(MemoryLayout<Int32>.size)) != sluice_srt_error() else {
            throw Self.lastError("srt_setsockflag(\(name))")
        }
    }

    /// Sets a string option (passphrase, stream id).
    func set(_ option: SRT_SOCKOPT, _ value: String, name: String) throws(SRTIngestError) {
        let bytes = Array(value.utf8)
        let ok = bytes.withUnsafeBufferPointer { srt_setsockflag(id, option, $0.baseAddress, Int32($0.count)) }
        guard ok != sluice_srt_error() else { throw Self.lastError("srt_setsockflag(\(name))") }
    }

    /// An integer option, nil when libsrt refuses.
    func int(_ option: SRT_SOCKOPT) -> Int32? {
        var v: Int32 = 0
        var size = Int32(MemoryLayout<Int32>.size)
        return srt_getsockflag(id, option, &v, &size) == sluice_srt_error() ? nil : v
    }

    /// Binds to `host:port` (IPv4 or IPv6 literal) and listens.
    func listen(host: String, port: Int) throws(SRTIngestError) {
        var storage = sockaddr_storage()
        let size: Int32
        if host.contains(":") {
            var a = sockaddr_in6()
            a.sin6_family = sa_family_t(AF_INET6)
            a.sin6_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET6, host, &a.sin6_addr) == 1 else {
                throw .libsrt(call: "inet_pton", code: 0, message: "not an IPv6 address: \(host)")
            }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: a, as: sockaddr_in6.self) }
            size = Int32(MemoryLayout<sockaddr_in6>.size)
        } else {
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET, host, &a.sin_addr) == 1 else {
                throw .libsrt(call: "inet_pton", code: 0, message: "not an IPv4 address: \(host)")
            }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: a, as: sockaddr_in.self) }
            size = Int32(MemoryLayout<sockaddr_in>.size)
        }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { srt_bind(id, $0, size) }
        }
        guard bound != sluice_srt_error() else { throw Self.lastError("srt_bind(\(host):\(port))") }
        guard srt_listen(id, 64) != sluice_srt_error() else { throw Self.lastError("srt_listen") }
    }

    /// The locally bound port.
    var localPort: Int {
        var storage = sockaddr_storage()
        var size = Int32(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p in
                srt_getsockname(id, p, &size) == sluice_srt_error() ? 0 : Int(sluice_srt_address_port(p))
            }
        }
    }

    /// Accepts a caller already through the handshake (never blocks: the listener is non-blocking).
    func accept() -> SRTSocket? {
        var storage = sockaddr_storage()
        var size = Int32(MemoryLayout<sockaddr_storage>.size)
        let ns = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { srt_accept(id, $0, &size) }
        }
        return ns == sluice_srt_invalid_sock() ? nil : SRTSocket(id: ns)
    }

    /// Waits up to SRTO_RCVTIMEO for one message into `buffer`.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> Received {
        var control = srt_msgctrl_default
        let n = srt_recvmsg2(id, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(buffer.count), &control)
        if n > 0 {
            // On receive, srctime is the message's TSBPD delivery instant on the srt_time_now clock (µs), measured
            // here: the sender's instant plus the latency window.
            let late = control.srctime > 0 ? srt_time_now() - control.srctime : -1
            return .message(count: Int(n), sinceDue: (0..<10_000_000).contains(late) ? .microseconds(late) : nil)
        }
        var errno: Int32 = 0
        let code = srt_getlasterror(&errno)
        if code == SRT_EASYNCRCV.rawValue || code == SRT_ETIMEOUT.rawValue { return .timeout }
        if n == 0 { return .ended("peer closed") }
        return .ended(String(cString: srt_getlasterror_str()))
    }

    /// Receiver-side statistics since the connection started.
    func stats() -> SRTLinkStats? {
        var perf = SRT_TRACEBSTATS()
        guard srt_bstats(id, &perf, 0) != sluice_srt_error() else { return nil }
        var s = SRTLinkStats()
        s.roundTrip = .microseconds(Int64(perf.msRTT * 1000))
        s.latency = .milliseconds(Int64(perf.msRcvTsbPdDelay))
        s.receiveBitsPerSecond = perf.mbpsRecvRate * 1_000_000
        s.packetsReceived = perf.pktRecvTotal
        s.packetsLost = Int64(perf.pktRcvLossTotal)
        // Never cleared (clear = 0), the interval counter holds the total.
        s.packetsRetransmitted = Int64(perf.pktRcvRetrans)
        s.packetsDropped = Int64(perf.pktRcvDropTotal)
        return s
    }

    /// The caller's stream id (SRTO_STREAMID), empty when none.
    var streamID: String {
        var buffer = [CChar](repeating: 0, count: 1024)
        var size = Int32(buffer.count)
        guard srt_getsockflag(id, SRTO_STREAMID, &buffer, &size) != sluice_srt_error() else { return "" }
        return String(decoding: buffer.prefix(Int(size)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Closes the socket; a blocked receive on it returns.
    func close() { _ = srt_close(id) }
}
