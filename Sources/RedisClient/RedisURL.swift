/// Where Redis is and how to log in: `redis://[[user]:password@]host[:port][/db]` (the provisional `redis` URI
/// scheme, https://www.iana.org/assignments/uri-schemes/prov/redis).
public struct RedisURL: Hashable, Sendable, CustomStringConvertible {
    /// Host name or IP address (an IPv6 address without its brackets).
    public var host: String
    /// TCP port.
    public var port: Int
    /// Database number sent with SELECT after connecting; nil keeps the server's default (0).
    public var database: Int?
    /// ACL user for `AUTH user password` (Redis 6+); nil sends `AUTH password`.
    public var username: String?
    /// Password for AUTH; nil sends no AUTH.
    public var password: String?

    /// Redis's well-known port.
    public static let defaultPort = 6379

    /// A URL from its parts.
    public init(
        host: String,
        port: Int = RedisURL.defaultPort,
        database: Int? = nil,
        username: String? = nil,
        password: String? = nil
    ) {
        self.host = host
        self.port = port
        self.database = database
        self.username = username
        self.password = password
    }

    /// Parses `redis://[[user]:password@]host[:port][/db]`; user and password may be percent-encoded.
    public init(parsing text: String) throws(RedisClientError) {
        func invalid(_ reason: String) -> RedisClientError { .invalidURL(text, reason: reason) }
        let parts = text.split(separator: "://", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw invalid("expected redis://host[:port][/db]") }
        let scheme = parts[0].lowercased()
        guard scheme == "redis" else {
            throw invalid(scheme == "rediss" ? "TLS (rediss://) is not supported" : "scheme must be redis://")
        }
        var rest = parts[1]
        guard !rest.contains("?"), !rest.contains("#") else { throw invalid("query and fragment are not supported") }
        var path = Substring("")
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        // The last '@' ends the user info: a password may hold an unencoded '@'.
        var hostPort = rest
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            hostPort = rest[rest.index(after: at)...]
            guard let colon = userInfo.firstIndex(of: ":") else {
                throw invalid("user info needs ':' (redis://:password@host or redis://user:password@host)")
            }
            let user = userInfo[..<colon]
            guard let name = Self.percentDecoded(user),
                let secret = Self.percentDecoded(userInfo[userInfo.index(after: colon)...])
            else { throw invalid("bad percent-encoding in user info") }
            username = user.isEmpty ? nil : name
            password = secret
        }
        var portText: Substring?
        if hostPort.first == "[" {
            guard let close = hostPort.firstIndex(of: "]") else { throw invalid("unclosed '[' in host") }
            host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { throw invalid("expected ':' after ']'") }
                portText = after.dropFirst()
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = String(hostPort[..<colon])
            portText = hostPort[hostPort.index(after: colon)...]
        } else {
            host = String(hostPort)
        }
        guard !host.isEmpty else { throw invalid("no host") }
        port = Self.defaultPort
        if let portText {
            guard let n = Int(portText), (1...65535).contains(n), portText.allSatisfy({ $0.isASCII && $0.isNumber })
            else {
                throw invalid("port '\(portText)' is not 1…65535")
            }
            port = n
        }
        if !path.isEmpty {
            guard let n = Int(path), n >= 0, path.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw invalid("database '\(path)' is not a number")
            }
            database = n
        }
    }

    /// `host:port`, for error messages.
    public var endpoint: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The URL with the password masked, safe to log.
    public var description: String {
        let user = password == nil ? "" : "\(username ?? ""):***@"
        return "redis://\(user)\(endpoint)" + (database.map { "/\($0)" } ?? "")
    }

    /// `%XX` sequences decoded as UTF-8; nil when one is malformed.
    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(value)
            utf8 = utf8.dropFirst(2)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
