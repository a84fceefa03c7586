import NIOSSL

/// RTMPS: RTMP inside TLS on a port of its own (`rtmp.tls.*`), the scheme OBS and FFmpeg call `rtmps://`.
public struct RTMPTLSConfiguration: Sendable, Equatable {
    /// Port of the RTMPS listener (0 picks a free one).
    public var port: Int
    /// PEM certificate chain path.
    public var certificatePath: String
    /// PEM private key path.
    public var keyPath: String

    /// Creates a configuration.
    public init(port: Int, certificatePath: String, keyPath: String) {
        self.port = port
        self.certificatePath = certificatePath
        self.keyPath = keyPath
    }

    /// The server context; fails with the path that could not be read.
    func makeContext() throws(RTMPIngestError) -> NIOSSLContext {
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(certificatePath).map {
                NIOSSLCertificateSource.certificate($0)
            }
            let key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
            var tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
            tls.minimumTLSVersion = .tlsv12
            return try NIOSSLContext(configuration: tls)
        } catch {
            throw .tlsSetup(certificate: certificatePath, key: keyPath, reason: "\(error)")
        }
    }
}
