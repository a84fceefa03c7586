/// RFC 8489 §14.1 / RFC 4291 §2.2: an IPv4 or IPv6 address and UDP port, as STUN and SDP candidates carry them.
public struct TransportAddress: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 bytes (IPv6), network order.
    public let ip: [UInt8]
    /// UDP port.
    public var port: UInt16

    /// An address from raw bytes; nil unless `ip` has 4 or 16 bytes.
    public init?(ip: [UInt8], port: UInt16) {
        guard ip.count == 4 || ip.count == 16 else { return nil }
        self.ip = ip
        self.port = port
    }

    /// Parses `192.0.2.1:3478` or `[2001:db8::1]:3478`.
    public init?(_ text: String) {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":"),
                let port = UInt16(text[text.index(close, offsetBy: 2)...]),
                let ip = Self.parseIP(String(text[text.index(after: text.startIndex)..<close]))
            else { return nil }
            self.init(ip: ip, port: port)
        } else {
            guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]),
                let ip = Self.parseIP(String(text[..<colon])), ip.count == 4
            else { return nil }
            self.init(ip: ip, port: port)
        }
    }

    /// True for IPv4.
    public var isIPv4: Bool { ip.count == 4 }

    /// The address alone in text form (dotted quad, or RFC 5952 compressed IPv6).
    public var ipText: String {
        if isIPv4 { return ip.map(String.init).joined(separator: ".") }
        let groups = (0..<8).map { Int(ip[2 * $0]) << 8 | Int(ip[2 * $0 + 1]) }
        // RFC 5952 §4.2: compress the longest run (of two or more) of zero groups.
        var best = (start: -1, length: 0)
        var i = 0
        while i < 8 {
            var j = i
            while j < 8, groups[j] == 0 { j += 1 }
            if j - i > best.length, j - i >= 2 { best = (i, j - i) }
            i = j == i ? i + 1 : j
        }
        let hex = groups.map { String($0, radix: 16) }
        if best.start < 0 { return hex.joined(separator: ":") }
        let head = hex[..<best.start].joined(separator: ":")
        let tail = hex[(best.start + best.length)...].joined(separator: ":")
        return head + "::" + tail
    }

    public var description: String { isIPv4 ? "\(ipText):\(port)" : "[\(ipText)]:\(port)" }

    /// Dotted-quad or colon-hex text to 4 or 16 bytes.
    public static func parseIP(_ text: String) -> [UInt8]? {
        if !text.contains(":") {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4 else { return nil }
            let bytes = parts.compactMap { $0.count <= 3 ? UInt8($0) : nil }
            return bytes.count == 4 ? bytes : nil
        }
        let halves = text.split(separator: "::", omittingEmptySubsequences: false).map(String.init)
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            if part.isEmpty { return [] }
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            let values = fields.compactMap { $0.count <= 4 ? UInt16($0, radix: 16) : nil }
            return values.count == fields.count ? values : nil
        }
        guard let head = groups(halves[0]) else { return nil }
        var all = head
        if halves.count == 2 {
            guard let tail = groups(halves[1]), head.count + tail.count <= 7 else { return nil }
            all += [UInt16](repeating: 0, count: 8 - head.count - tail.count) + tail
        }
        guard all.count == 8 else { return nil }
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }
}
