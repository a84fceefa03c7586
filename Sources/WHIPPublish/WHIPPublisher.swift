import FFmpegBridge
import Logging
import MediaCore
import MediaSources
import WebRTCTransport
import WebRTCWire

/// Publishes a source to a WHIP endpoint (RFC 9725) in real time: the thin I/O loop around
/// `WHIPClientStateMachine` (HTTP + transport) and `WHIPMediaSender` (RTP/RTCP), on our own WebRTC transport
/// (ICE controlling, DTLS client, SRTP via libsrtp2).
public struct WHIPPublisher: Sendable {
    /// Knobs of one publish.
    public struct Options: Sendable {
        /// `Authorization: Bearer` token for the POST and DELETE (RFC 9725 §4.5).
        public var bearer: String?
        /// Start a file over when it ends.
        public var loop = false
        /// Stop after this much media; nil runs until the source ends or the task is cancelled.
        public var duration: Duration?
        /// Limit for ICE + DTLS after the answer.
        public var connectTimeout: Duration = .seconds(10)
        /// Limit for each HTTP exchange.
        public var httpTimeout: Duration = .seconds(10)
        /// Opus bit rate.
        public var opusBitRate = 96_000
        /// How the offer and DELETE travel; nil uses HTTP with `bearer` and `httpTimeout`.
        public var signaling: (any WHIPSignaling)?

        public init(bearer: String? = nil, loop: Bool = false, duration: Duration? = nil) {
            self.bearer = bearer
            self.loop = loop
            self.duration = duration
        }
    }

    let endpoint: WHIPEndpoint
    let options: Options
    let logger: Logger
    let signaling: any WHIPSignaling

    /// A publisher to `url` (`http://HOST:PORT/whip/KEY`); throws for any other URL.
    public init(
        url: String,
        options: Options = Options(),
        logger: Logger = Logger(label: "sluice.whip.publish")
    )
        throws(WHIPPublishError)
    {
        endpoint = try WHIPEndpoint(url)
        self.options = options
        self.logger = logger
        signaling = options.signaling ?? WHIPHTTPSignaling(bearer: options.bearer, timeout: options.httpTimeout)
    }

    /// Opens `input` (as `sluice publish` does for RTMP), tells `announce` its tracks, and publishes it.
    public func publish(
        input: PublishInput,
        announce: (StreamDescription) -> Void = { _ in }
    ) async throws(WHIPPublishError)
        -> WHIPPublishReport
    {
        let source: any MediaSource
        do { source = try input.open(duration: options.duration) } catch { throw .source("\(error)") }
        announce(source.streamDescription)
        return try await publish(source: source)
    }

    /// Publishes an open source until it ends, `options.duration` passes, or the task is cancelled.
    public func publish(source: sending any MediaSource) async throws(WHIPPublishError) -> WHIPPublishReport {
        let description = source.streamDescription
        guard let video = description.video, video.codec == .h264 else {
            throw .source("WHIP publishing needs an H.264 video track")
        }
        var opus: OpusTranscoder?
        if let audio = description.audio {
            do {
                opus = try OpusTranscoder(input: audio, bitRate: options.opusBitRate)
            } catch {
                throw .source("cannot encode the source's \(audio.codecString) audio as Opus: \(error)")
            }
        }
        let certificate: DTLSCertificate
        do { certificate = try DTLSCertificate(commonName: "sluice-publish") } catch { throw .transport(error) }
        let local = ICECredentials.random()
        let videoSSRC = UInt32.random(in: 1...UInt32.max)
        var offer = WHIPPublisherOffer(
            iceUfrag: local.ufrag,
            icePwd: local.password,
            fingerprint: certificate.fingerprint,
            videoSSRC: videoSSRC,
            audioSSRC: opus == nil ? nil : videoSSRC &+ 1,
            cname: ICECredentials.random().ufrag,
            sessionID: UInt64.random(in: 1...UInt64(Int64.max))
        )
        // Announce the profile the source really encodes (avcC bytes 1–3), so a strict receiver decodes it.
        if video.decoderConfiguration.count >= 4 {
            offer.profileLevelID = video.decoderConfiguration[1...3].map {
                ($0 < 16 ? "0" : "") + String($0, radix: 16)
            }.joined()
        }
        let pump = WHIPMediaPump(source: source, opus: opus, loop: options.loop, duration: options.duration)
        var run = WHIPPublishRun(
            publisher: self,
            machine: WHIPClientStateMachine(
                endpoint: endpoint,
                offer: offer.description.text,
                connectTimeout: options.connectTimeout
            ),
            certificate: certificate,
            local: local,
            offer: offer,
            avcC: video.decoderConfiguration,
            pump: pump
        )
        return try await run.run()
    }
}

/// The inputs of a run's single owner loop, in arrival order.
enum WHIPRunInput: Sendable {
    case transport(WebRTCSessionEvent)
    case pump(WHIPPumpOutput)
    case tick
}
