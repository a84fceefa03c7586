import Foundation
import MediaCore
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import PublishAuth

/// Publish authorization: key list, signed keys, the anonymous rule, and a webhook on a real local HTTP server.
struct PublishAuthorizerTests {
    /// The request an RTMP publish of `name` (`key` or `key?credential`) makes.
    static func request(
        _ name: String,
        ip: String? = "203.0.113.7",
        transport: PublishTransport = .rtmp
    )
        -> PublishAuthRequest
    {
        let parts = name.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return PublishAuthRequest(
            key: StreamKey(String(parts[0]))!,
            credential: parts.count > 1 ? String(parts[1]) : nil,
            peerIP: ip,
            transport: transport
        )
    }

    static func authorizer(_ configure: (inout PublishAuthConfiguration) -> Void) -> PublishAuthorizer {
        var c = PublishAuthConfiguration()
        configure(&c)
        return PublishAuthorizer(configuration: c)
    }

    /// One golden table: configuration, publish name, peer, decision.
    struct Case: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var keys: [String] = []
        var secret: String?
        var anonymous: PublishAuthConfiguration.Anonymous?
        var name: String
        var ip: String? = "203.0.113.7"
        var allowedBy: String?
    }

    static let now: Int64 = 1_800_000_000
    static let sig = SignedToken.signature(key: "cam", expiry: now + 60, secret: "k")
    static let expiredSig = SignedToken.signature(key: "cam", expiry: now - 1, secret: "k")

    static let cases: [Case] = [
        Case(
            testDescription: "default: any key from loopback",
            name: "anything",
            ip: "127.0.0.1",
            allowedBy: "anonymous (loopback peer)"
        ),
        Case(
            testDescription: "default: IPv6 loopback",
            name: "anything",
            ip: "::1",
            allowedBy: "anonymous (loopback peer)"
        ),
        Case(testDescription: "default: refused from elsewhere", name: "anything"),
        Case(testDescription: "listed bare key", keys: ["cam", "other"], name: "cam", allowedBy: "key list"),
        Case(
            testDescription: "listed key with secret",
            keys: ["cam?s3cret"],
            name: "cam?s3cret",
            allowedBy: "key list"
        ),
        Case(testDescription: "wrong secret", keys: ["cam?s3cret"], name: "cam?s3creT"),
        Case(testDescription: "keys configured: loopback needs one too", keys: ["cam"], name: "x", ip: "127.0.0.1"),
        Case(
            testDescription: "anonymous any",
            keys: ["cam"],
            anonymous: .any,
            name: "x",
            allowedBy: "anonymous (any peer)"
        ),
        Case(
            testDescription: "valid signed key",
            secret: "k",
            name: "cam?exp=\(now + 60)&sig=\(sig)",
            allowedBy: "signed key"
        ),
        Case(testDescription: "expired signed key", secret: "k", name: "cam?exp=\(now - 1)&sig=\(expiredSig)"),
        Case(testDescription: "signed key for another name", secret: "k", name: "cam2?exp=\(now + 60)&sig=\(sig)"),
        Case(testDescription: "no signature", secret: "k", name: "cam"),
    ]

    @Test(arguments: cases)
    func localRulesDecide(_ c: Case) {
        let a = Self.authorizer {
            $0.keys = c.keys
            $0.hmacSecret = c.secret
            $0.anonymous = c.anonymous
        }
        let decision = a.localDecision(Self.request(c.name, ip: c.ip), now: Self.now)
        if let by = c.allowedBy {
            #expect(decision == .allowed(by: by))
        } else {
            guard case .denied = decision else {
                Issue.record("expected a refusal, got \(String(describing: decision))")
                return
            }
        }
    }

    @Test func expiredSignedKeyNamesTheExpiryInItsReason() {
        let a = Self.authorizer { $0.hmacSecret = "k" }
        let d = a.localDecision(Self.request("cam?exp=\(Self.now - 1)&sig=\(Self.expiredSig)"), now: Self.now)
        #expect(d == .denied(reason: "signed key: expired at \(Self.now - 1) (now \(Self.now))"))
    }

    @Test func summarySaysWhenAnyKeyIsAcceptedFromLoopback() {
        #expect(PublishAuthConfiguration().anonymousSummary.contains("ANY stream key accepted from loopback"))
        #expect(PublishAuthConfiguration().methodsSummary == "none")
        var c = PublishAuthConfiguration()
        c.keys = ["a"]
        c.hmacSecret = "k"
        #expect(c.methodsSummary == "1 configured key(s), HMAC-signed keys")
        #expect(c.anonymousSummary == "no anonymous publishing")
        #expect(c.summary == "1 configured key(s), HMAC-signed keys; no anonymous publishing")
        #expect(PublishAuthConfiguration().summary.contains("ANY stream key accepted from loopback"))
    }

    // MARK: Webhook, against a real HTTP server on loopback.

    @Test func webhookTwoHundredAllowsAndReceivesKeyPeerAndProtocol() async throws {
        try await WebhookServer.with(status: 204) { server in
            let a = Self.authorizer {
                $0.webhookURL = "http://127.0.0.1:\(server.port)/auth"
                $0.webhookTimeout = .seconds(5)
            }
            let d = await a.authorize(Self.request("cam?token=1"), now: Self.now)
            #expect(d == .allowed(by: "webhook (204)"))
            let body = try #require(server.bodies.first)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String])
            #expect(json == ["key": "cam", "name": "cam?token=1", "peer": "203.0.113.7", "protocol": "rtmp"])
        }
    }

    /// A WHIP bearer token is the credential an RTMP name carries in its query: same rules, `protocol` says which.
    @Test func whipTokenIsJudgedLikeAnRTMPQuery() async throws {
        let listed = Self.authorizer { $0.keys = ["cam?s3cret"] }
        let whip = Self.request("cam?s3cret", transport: .whip)
        #expect(whip.credential == "s3cret" && whip.presentedName == "cam?s3cret")
        #expect(listed.localDecision(whip, now: Self.now) == .allowed(by: "key list"))
        #expect(
            listed.localDecision(Self.request("cam", transport: .whip), now: Self.now)
                == .denied(reason: "not in the key list")
        )
        try await WebhookServer.with(status: 200) { server in
            let hooked = Self.authorizer { $0.webhookURL = "http://127.0.0.1:\(server.port)/auth" }
            #expect(
                await hooked.authorize(Self.request("cam?tok", transport: .whip), now: Self.now)
                    == .allowed(by: "webhook (200)")
            )
            let body = try #require(server.bodies.first)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String])
            #expect(json == ["key": "cam", "name": "cam?tok", "peer": "203.0.113.7", "protocol": "whip"])
        }
    }

    @Test func webhookForbiddenDenies() async throws {
        try await WebhookServer.with(status: 403) { server in
            let a = Self.authorizer { $0.webhookURL = "http://127.0.0.1:\(server.port)/auth" }
            #expect(await a.authorize(Self.request("cam"), now: Self.now) == .denied(reason: "webhook answered 403"))
        }
    }

    @Test func webhookThatDoesNotAnswerInTimeDenies() async throws {
        try await WebhookServer.with(status: 200, delay: .seconds(3)) { server in
            let a = Self.authorizer {
                $0.webhookURL = "http://127.0.0.1:\(server.port)/auth"
                $0.webhookTimeout = .milliseconds(300)
            }
            let d = await a.authorize(Self.request("cam"), now: Self.now)
            #expect(d == .denied(reason: "webhook timed out after 0.3 seconds"))
        }
    }

    @Test func localRulesAnswerBeforeTheWebhook() {
        let a = Self.authorizer {
            $0.keys = ["cam"]
            $0.webhookURL = "http://127.0.0.1:9/never"
        }
        #expect(a.localDecision(Self.request("cam"), now: 0) == .allowed(by: "key list"))
        #expect(a.localDecision(Self.request("other"), now: 0) == nil)
    }
}

/// A minimal HTTP/1.1 server: records each request body, answers `status` after `delay`.
final class WebhookServer: Sendable {
    let port: Int
    private let recorded = Mutex<[String]>([])
    var bodies: [String] { recorded.withLock { $0 } }

    private init(port: Int) { self.port = port }

    static func with(status: Int, delay: Duration = .zero, _ body: (WebhookServer) async throws -> Void) async throws {
        let box = Mutex<WebhookServer?>(nil)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        Handler(status: status, delay: delay) { text in
                            box.withLock { $0?.recorded.withLock { $0.append(text) } }
                        }
                    )
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let server = WebhookServer(port: channel.localAddress?.port ?? 0)
        box.withLock { $0 = server }
        defer { channel.close(promise: nil) }
        try await body(server)
    }

    /// Reads one request (headers + Content-Length body), then writes the canned answer and closes.
    final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let status: Int
        let delay: Duration
        let record: @Sendable (String) -> Void
        var received = ""

        init(status: Int, delay: Duration, record: @escaping @Sendable (String) -> Void) {
            self.status = status
            self.delay = delay
            self.record = record
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            received += buffer.readString(length: buffer.readableBytes) ?? ""
            guard let split = received.range(of: "\r\n\r\n") else { return }
            let head = received[..<split.lowerBound].lowercased()
            let length =
                head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) } ?? 0
            let body = received[split.upperBound...]
            guard body.utf8.count >= length else { return }
            record(String(body))
            let answer = "HTTP/1.1 \(status) X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: TimeAmount(delay)) {
                let context = loopBound.value
                context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: answer)), promise: nil)
                context.close(promise: nil)
            }
        }
    }
}
