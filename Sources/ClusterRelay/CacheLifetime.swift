/// RFC 9111 §5.2.2: how long a shared cache may keep a response, from its `Cache-Control` (`s-maxage` over
/// `max-age`; `no-cache`, `no-store` and `private` keep nothing), at most `cap`.
enum CacheLifetime {
    /// The freshness lifetime of a response carrying `cacheControl`; zero when it must not be kept.
    static func of(_ cacheControl: String?, cap: Duration) -> Duration {
        guard let cacheControl else { return .zero }
        var maxAge: Int?
        var sharedMaxAge: Int?
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { trimmed($0).lowercased() }
            guard let name = parts.first else { continue }
            let value = parts.count == 2 ? Int(parts[1].filter { $0 != "\"" }) : nil
            switch name {
            case "no-cache", "no-store", "private": return .zero
            case "max-age": maxAge = value
            case "s-maxage": sharedMaxAge = value
            default: continue
            }
        }
        guard let seconds = sharedMaxAge ?? maxAge, seconds > 0 else { return .zero }
        return min(.seconds(seconds), cap)
    }

    /// `text` without the spaces and tabs around it (RFC 9110 §5.6.3 OWS).
    private static func trimmed(_ text: Substring) -> Substring {
        var t = text
        while let first = t.first, first == " " || first == "\t" { t.removeFirst() }
        while let last = t.last, last == " " || last == "\t" { t.removeLast() }
        return t
    }
}
