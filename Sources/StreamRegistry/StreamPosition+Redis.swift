import MediaCore

/// A stream's position as stored in Redis (`sluice:pos:<KEY>`): one line of `name=value` fields after a version tag,
/// `v1 msn=42 dsn=3 at=1732800000123 epoch=m3k2x9 node=http://10.0.0.5:8080`, readable with `redis-cli GET`.
extension StreamPosition {
    /// The version tag a stored position starts with; a record with another one is not read.
    static let redisVersion = "v1"

    /// The stored form.
    public var redisValue: String {
        let at = recordedAt.millisecondsSince1970
        return "\(Self.redisVersion) msn=\(nextMSN) dsn=\(discontinuity) at=\(at) epoch=\(epoch) node=\(node)"
    }

    /// Reads a stored position; nil for anything else (another version, a missing or malformed field, a field twice).
    public init?(redisValue: String) {
        let words = redisValue.split(separator: " ", omittingEmptySubsequences: false)
        guard words.first == Substring(Self.redisVersion), words.count == 6 else { return nil }
        var fields: [Substring: Substring] = [:]
        for word in words.dropFirst() {
            guard let equals = word.firstIndex(of: "=") else { return nil }
            let value = word[word.index(after: equals)...]
            guard !value.isEmpty, fields.updateValue(value, forKey: word[..<equals]) == nil else { return nil }
        }
        guard let msn = fields["msn"].flatMap({ Int($0) }), msn >= 0,
            let dsn = fields["dsn"].flatMap({ Int($0) }), dsn >= 0,
            let at = fields["at"].flatMap({ Int64($0) }),
            let epoch = fields["epoch"], let node = fields["node"]
        else { return nil }
        self.init(
            nextMSN: msn,
            discontinuity: dsn,
            epoch: String(epoch),
            node: String(node),
            recordedAt: WallTime(millisecondsSince1970: at)
        )
    }
}
