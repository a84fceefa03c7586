import CSRT
import Logging
import Synchronization

/// libsrt's own log lines, taken off stderr: handshake rejections it decides by itself (a wrong or missing passphrase,
/// SRT_REJ_BADSECRET / SRT_REJ_UNSECURE) are matched to the caller the listen callback admitted and logged with its
/// stream; everything else goes to the gateway's log at debug level.
enum SRTLibraryLog {
    private struct State {
        var listeners: [ObjectIdentifier: WeakListener] = [:]
        var logger: Logger?
        var installed = false
    }

    private struct WeakListener {
        weak var listener: SRTListener?
    }

    private static let state = Mutex(State())

    /// Routes libsrt's log to `logger` and lets `listener` claim rejections of the callers it admitted.
    static func register(_ listener: SRTListener, logger: Logger) {
        let install = state.withLock { s -> Bool in
            s.listeners[ObjectIdentifier(listener)] = WeakListener(listener: listener)
            s.logger = logger
            defer { s.installed = true }
            return !s.installed
        }
        guard install else { return }
        // Severity, time, thread name and end of line are ours to add.
        srt_setlogflags(
            Int32(
                SRT_LOGF_DISABLE_TIME | SRT_LOGF_DISABLE_THREADNAME | SRT_LOGF_DISABLE_SEVERITY | SRT_LOGF_DISABLE_EOL
            )
        )
        srt_setloglevel(LOG_WARNING)
        srt_setloghandler(nil, srtLogHandler)
    }

    /// Stops offering rejections to `listener`.
    static func unregister(_ listener: SRTListener) {
        _ = state.withLock { $0.listeners.removeValue(forKey: ObjectIdentifier(listener)) }
    }

    /// One libsrt line: a rejection of an admitted caller is claimed by its listener; the rest is logged at debug.
    static func received(level: Int32, area: String, message: String) {
        let (listeners, logger) = state.withLock { s in (s.listeners.values.compactMap(\.listener), s.logger) }
        if let (socket, reason) = rejection(in: message) {
            for listener in listeners where listener.handshakeRejected(socket, reason: reason) { return }
        }
        logger?.debug("libsrt", metadata: ["area": "\(area)", "level": "\(level)", "message": "\(message)"])
    }

    /// `@784331315:newConnection: connection rejected due to: INTERNAL REJECTION - ERROR:BADSECRET` → socket, reason.
    static func rejection(in message: String) -> (SRTSOCKET, String)? {
        guard let marker = message.firstRange(of: ":newConnection: connection rejected due to: "),
            let at = message[..<marker.lowerBound].lastIndex(of: "@"),
            let socket = SRTSOCKET(message[message.index(after: at)..<marker.lowerBound])
        else { return nil }
        let cause = String(message[marker.upperBound...])
        if cause.hasSuffix("BADSECRET") { return (socket, "wrong passphrase (libsrt: \(cause))") }
        if cause.hasSuffix("UNSECURE") { return (socket, "no passphrase, or one where none is set (libsrt: \(cause))") }
        return (socket, "handshake rejected by libsrt: \(cause)")
    }
}

/// libsrt's log hook: a C function.
private func srtLogHandler(
    _ opaque: UnsafeMutableRawPointer?,
    _ level: Int32,
    _ file: UnsafePointer<CChar>?,
    _ line: Int32,
    _ area: UnsafePointer<CChar>?,
    _ message: UnsafePointer<CChar>?
) {
    SRTLibraryLog.received(
        level: level,
        area: area.map { String(cString: $0) } ?? "",
        message: message.map { String(cString: $0) } ?? ""
    )
}
