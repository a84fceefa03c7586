import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import HummingbirdTLS
import NIOCore

extension HTTPOriginOptions {
    /// The listener for these options: HTTP/1.1 (+ h2c), or HTTPS with HTTP/1.1 (+ ALPN h2); with `fastPath`, every
    /// HTTP/1.1 connection and HTTP/2 stream gets its `LiveFastPathHandler` in front of the router.
    func serverBuilder(fastPath: LiveFastPath? = nil) throws -> HTTPServerBuilder {
        let handlers: @Sendable () -> [any RemovableChannelHandler] = {
            fastPath.map { [LiveFastPathInstaller($0)] } ?? []
        }
        let stream = HTTP1Channel.Configuration(additionalChannelHandlers: handlers())
        guard let tls else {
            return http2
                ? HTTPServerBuilder { responder in CleartextHTTP2Channel(responder: responder, configuration: stream) }
                : .http1(configuration: stream)
        }
        let certificates = try NIOSSLCertificate.fromPEMFile(tls.certificate)
        let key = try NIOSSLPrivateKey(file: tls.key, format: .pem)
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: certificates.map { .certificate($0) },
            privateKey: .privateKey(key)
        )
        return http2
            ? try .http2Upgrade(tlsConfiguration: configuration, configuration: .init(streamConfiguration: stream))
            : try .tls(.http1(configuration: stream), tlsConfiguration: configuration)
    }
}
