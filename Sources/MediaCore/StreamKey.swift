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
