/// The name a publisher pushes to and viewers play, e.g. `demo` in `rtmp://host/live/demo`.
public struct StreamKey: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The validated key text.
    public let rawValue: String

    /// Characters allowed in a key: they appear in URL paths and file-like names.
    public static let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")

    /// Validates `rawValue`: 1…128 characters from `allowed`, not starting with a dot.
    public init?(_ rawValue: String) {
        guard !rawValue.isEmpty, rawValue.count <= 128, rawValue.first != ".",
            rawValue.allSatisfy({ StreamKey.allowed.contains($0) })
        else { return nil }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public static func < (lhs: StreamKey, rhs: StreamKey) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension StreamKey {
    /// Separates a source key from a rendition name; never valid in a publisher's key, so no collision.
    public static let renditionSeparator: Character = "~"

    /// The hub key a transcoded rendition of this stream is published under, e.g. `demo~480p`.
    public func rendition(_ name: String) -> StreamKey {
        StreamKey(trusted: "\(rawValue)\(StreamKey.renditionSeparator)\(name)")
    }

    /// The publisher's key this one derives from (itself for a source key).
    public var sourceKey: StreamKey {
        guard let i = rawValue.firstIndex(of: StreamKey.renditionSeparator) else { return self }
        return StreamKey(trusted: String(rawValue[..<i]))
    }

    /// The rendition name for a derived key, nil for a source key.
    public var renditionName: String? {
        guard let i = rawValue.firstIndex(of: StreamKey.renditionSeparator) else { return nil }
        return String(rawValue[rawValue.index(after: i)...])
    }

    private init(trusted: String) { self.rawValue = trusted }
}
