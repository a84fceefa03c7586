import Logging
import NIOCore
import NIOSSL
import PublishAuth
import StreamHub
import Telemetry

/// Sets up each accepted connection: the per-IP session limit, then idle timeout and the session handler.
struct SessionInitializer: Sendable {
    let hub: StreamHub
    let configuration: RTMPIngestConfiguration
    let logger: Logger
    let authorizer: PublishAuthorizer
    let sessions: SessionRegistry
    let limiter: ConnectionLimiter
    let telemetry: GatewayTelemetry?
    /// Set on the RTMPS listener: TLS is unwrapped before the session handler sees a byte.
    var tls: NIOSSLContext? = nil

    func initialize(_ channel: any Channel) -> EventLoopFuture<Void> {
        channel.eventLoop.makeCompletedFuture {
            let ip = channel.remoteAddress?.ipAddress ?? "unknown"
            guard limiter.open(ip) else {
                // Refused before the handshake: no stream key yet, so the log names the peer only.
                logger.warning(
                    "RTMP connection refused",
                    metadata: [
                        "reason": "too many sessions from \(ip) (rtmp.max_sessions_per_ip \(limiter.limit))",
                        "peer": "\(channel.remoteAddress.map { "\($0)" } ?? "?")", "stream": "-",
                    ]
                )
                channel.close(promise: nil)
                return
            }
            channel.closeFuture.whenComplete { _ in limiter.close(ip) }
            let ops = channel.pipeline.syncOperations
            if let tls { try ops.addHandler(NIOSSLServerHandler(context: tls)) }
            try ops.addHandler(IdleStateHandler(readTimeout: TimeAmount(configuration.idleTimeout)))
            let session = RTMPSessionHandler(
                hub: hub,
                configuration: configuration,
                logger: logger,
                authorizer: authorizer,
                telemetry: telemetry
            )
            session.transport = tls == nil ? .rtmp : .rtmps
            try ops.addHandler(session)
            sessions.add(channel)
        }
    }
}
