import MediaCore

/// Applies `PublishAuthConfiguration`: local methods answer at once, the webhook asynchronously.
public struct PublishAuthorizer: Sendable {
    /// The rules.
    public let configuration: PublishAuthConfiguration
    private let webhook: PublishWebhook?

    /// Creates an authorizer; the webhook client exists only when a URL is configured.
    public init(configuration: PublishAuthConfiguration) {
        self.configuration = configuration
        webhook = configuration.webhookURL.map { PublishWebhook(url: $0, timeout: configuration.webhookTimeout) }
    }

    /// True when some requests need the asynchronous webhook.
    public var needsWebhook: Bool { webhook != nil }

    /// The decision from the key list, signed keys and the anonymous rule; nil when only the webhook can tell.
    public func localDecision(_ request: PublishAuthRequest, now: Int64) -> PublishAuthDecision? {
        let name = Array(request.presentedName.utf8)
        // Every entry is compared, matching or not, so timing does not tell which prefix was right.
        var listed = false
        for key in configuration.keys where HMACSHA256.constantTimeEquals(Array(key.utf8), name) { listed = true }
        if listed { return .allowed(by: "key list") }
        var failures: [String] = []
        if !configuration.keys.isEmpty { failures.append("not in the key list") }
        if let secret = configuration.hmacSecret {
            if let (expiry, signature) = SignedToken.parseQuery(Substring(request.credential ?? "")) {
                do {
                    try SignedToken.verify(
                        key: request.key.rawValue,
                        expiry: expiry,
                        signature: signature,
                        secret: secret,
                        now: now
                    )
                    return .allowed(by: "signed key")
                } catch {
                    failures.append("signed key: \(error)")
                }
            } else {
                failures.append("no exp/sig for a signed key")
            }
        }
        switch configuration.effectiveAnonymous {
        case .any: return .allowed(by: "anonymous (any peer)")
        case .loopback where Self.isLoopback(request.peerIP): return .allowed(by: "anonymous (loopback peer)")
        case .loopback: failures.append("anonymous publishing only from loopback")
        case .none: break
        }
        if webhook != nil { return nil }
        return .denied(reason: failures.isEmpty ? "no credential" : failures.joined(separator: "; "))
    }

    /// The full decision, asking the webhook when local methods do not allow.
    public func authorize(_ request: PublishAuthRequest, now: Int64) async -> PublishAuthDecision {
        if let local = localDecision(request, now: now) { return local }
        guard let webhook else { return .denied(reason: "no credential") }
        return await webhook.decide(request)
    }

    /// The full decision now (signed keys expire against the wall clock).
    public func authorize(_ request: PublishAuthRequest) async -> PublishAuthDecision {
        await authorize(request, now: WallTime.now().nanosecondsSince1970 / 1_000_000_000)
    }

    /// 127.0.0.0/8, ::1 and their IPv4-mapped forms.
    public static func isLoopback(_ ip: String?) -> Bool {
        guard var ip else { return false }
        if ip.hasPrefix("::ffff:") { ip = String(ip.dropFirst(7)) }
        return ip == "::1" || ip.hasPrefix("127.")
    }
}
