import CSRT

import class Foundation.Thread

/// An SRT caller in live mode (draft-sharabayko-srt §4.2): connects with a stream id and sends MPEG-TS in messages of
/// seven 188-byte packets, as encoders do. Connecting blocks, so it runs on a thread of its own.
public final class SRTCaller: @unchecked Sendable {
    /// Where and how to connect, from `srt://HOST:PORT?streamid=...&latency=MS&passphrase=...`.
    public struct Target: Sendable, Equatable {
        /// IPv4 literal.
        public var host: String
        /// UDP port.
        public var port: Int
        /// SRTO_STREAMID.
        public var streamID: String
        /// SRTO_LATENCY, milliseconds (the URL's `latency`, as srt-live-transmit reads it).
        public var latencyMilliseconds: Int32 = 120
        /// SRTO_PASSPHRASE, if any.
        public var passphrase: String?

        /// Parses the URL.
        public init(url: String) throws(SRTPublishError) {
            guard url.hasPrefix("srt://") else { throw .invalidURL(url) }
            let rest = url.dropFirst(6)
            let (address, query) =
                rest.firstIndex(of: "?").map { (rest[..<$0], rest[rest.index(after: $0)...]) } ?? (rest, "")
            guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...])
            else { throw .invalidURL(url) }
            host = String(address[..<colon])
            self.port = port
            streamID = ""
            for item in query.split(separator: "&") {
                guard let eq = item.firstIndex(of: "=") else { continue }
                let value = String(item[item.index(after: eq)...])
                switch item[..<eq] {
                case "streamid": streamID = value
                case "latency": latencyMilliseconds = Int32(value) ?? latencyMilliseconds
                case "passphrase": passphrase = value
                default: break
                }
            }
        }
    }

    /// Live-mode payload per message: seven transport packets (SRT's default 1316-byte payload).
    public static let messageSize = 7 * 188

    private let socket: SRTSOCKET
    private var pending: [UInt8] = []

    private init(socket: SRTSOCKET) { self.socket = socket }

    // Each caller holds one libsrt start-up: the last cleanup stops the GC thread before the process exits.
    deinit {
        _ = srt_close(socket)
        _ = srt_cleanup()
    }

    /// Connects on a dedicated thread (libsrt's connect blocks up to its 3 s timeout).
    public static func connect(_ target: Target) async throws(SRTPublishError) -> SRTCaller {
        let result = await withCheckedContinuation {
            (c: CheckedContinuation<Result<SRTCaller, SRTPublishError>, Never>) in
            let thread = Thread { c.resume(returning: Result { () throws(SRTPublishError) in try open(target) }) }
            thread.name = "srt-connect"
            thread.start()
        }
        return try result.get()
    }

    private static func open(_ target: Target) throws(SRTPublishError) -> SRTCaller {
        _ = srt_startup()
        let s = srt_create_socket()
        guard s != sluice_srt_invalid_sock() else {
            let error = lastError("srt_create_socket")
            _ = srt_cleanup()
            throw error
        }
        let caller = SRTCaller(socket: s)
        try caller.set(SRTO_LATENCY, target.latencyMilliseconds, "SRTO_LATENCY")
        try caller.set(SRTO_STREAMID, target.streamID, "SRTO_STREAMID")
        if let p = target.passphrase { try caller.set(SRTO_PASSPHRASE, p, "SRTO_PASSPHRASE") }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = in_port_t(UInt16(target.port).bigEndian)
        guard inet_pton(AF_INET, target.host, &a.sin_addr) == 1 else {
            throw .invalidURL("srt://\(target.host):\(target.port)")
        }
        let ok = withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                srt_connect(s, $0, Int32(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard ok != sluice_srt_error() else {
            let reason = srt_getrejectreason(s)
            var e = lastError("srt_connect")
            if case .libsrt(let call, let code, let message) = e, reason != 0 {
                e = .libsrt(
                    call: call,
                    code: code,
                    message: "\(message): \(String(cString: srt_rejectreason_str(reason)))"
                )
            }
            throw e
        }
        return caller
    }

    /// Queues transport stream bytes and sends every whole message (seven packets) now.
    public func send(_ bytes: [UInt8]) throws(SRTPublishError) {
        pending += bytes
        var offset = 0
        while pending.count - offset >= Self.messageSize {
            try sendMessage(pending[offset..<offset + Self.messageSize])
            offset += Self.messageSize
        }
        pending.removeFirst(offset)
    }

    /// Sends what is queued, even a short message (end of stream, or a frame that should not wait).
    public func flush() throws(SRTPublishError) {
        guard !pending.isEmpty else { return }
        try sendMessage(pending[...])
        pending = []
    }

    private func sendMessage(_ message: ArraySlice<UInt8>) throws(SRTPublishError) {
        let sent = message.withUnsafeBufferPointer { b in
            b.withMemoryRebound(to: CChar.self) { srt_sendmsg2(socket, $0.baseAddress, Int32($0.count), nil) }
        }
        guard sent != sluice_srt_error() else { throw Self.lastError("srt_sendmsg2") }
    }

    private func set(_ option: SRT_SOCKOPT, _ value: Int32, _ name: String) throws(SRTPublishError) {
        var v = value
        guard srt_setsockflag(socket, option, &v, Int32(MemoryLayout<Int32>.size)) != sluice_srt_error() else {
            throw Self.lastError("srt_setsockflag(\(name))")
        }
    }

    private func set(_ option: SRT_SOCKOPT, _ value: String, _ name: String) throws(SRTPublishError) {
        let bytes = Array(value.utf8)
        let ok = bytes.withUnsafeBufferPointer { srt_setsockflag(socket, option, $0.baseAddress, Int32($0.count)) }
        guard ok != sluice_srt_error() else { throw Self.lastError("srt_setsockflag(\(name))") }
    }

    private static func lastError(_ call: String) -> SRTPublishError {
        var errno: Int32 = 0
        let code = srt_getlasterror(&errno)
        return .libsrt(call: call, code: code, message: String(cString: srt_getlasterror_str()))
    }
}
