import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import HummingbirdTLS

extension HTTPOriginOptions {
    /// The listener for these options: HTTP/1.1 (+ h2c), or HTTPS with HTTP/1.1 (+ ALPN h2).
    func serverBuilder() throws -> HTTPServerBuilder {
        guard let tls else {
            return http2 ? HTTPServerBuilder { responder in CleartextHTTP2Channel(responder: responder) } : .http1()
        }
        let certificates = try NIOSSLCertificate.fromPEMFile(tls.certificate)
        let key = try NIOSSLPrivateKey(file: tls.key, format: .pem)
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: certificates.map { .certificate($0) },
            privateKey: .privateKey(key)
        )
        return http2
            ? try .http2Upgrade(tlsConfiguration: configuration)
            : try .tls(.http1(), tlsConfiguration: configuration)
    }
}
