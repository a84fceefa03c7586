import LLHLSPackager
import MediaCore
import Telemetry

/// RFC 3986 §3.3–3.4 and RFC 8216bis §6.2.5: the origin's live request targets, read from the target's UTF-8 bytes
/// in one pass (the fast path's routing, without splitting into `String`s):
/// `[/t/{token}]/live/{key}/{rendition}.m3u8[?query]` and `[/t/{token}]/live/{key}/{epoch}/{rendition}/{file}[?query]`.
///
/// Targets with `%` or `+` (they decode in the router), empty segments or other shapes are not live paths (nil).
struct LivePath: Equatable, Sendable {
    /// What the path names under its stream key.
    enum Resource: Equatable, Sendable {
        /// `{rendition}.m3u8` (the multivariant `index.m3u8` included; callers decide what to do with it).
        case playlist(rendition: String)
        /// `{epoch}/{rendition}/{file}`.
        case media(epoch: String, rendition: String, file: String)
    }

    /// The viewer token of a `/t/{token}/live/…` path.
    var token: Substring?
    /// The stream key segment, as sent.
    var key: String
    var resource: Resource
    /// The path without the query (token prefix included), as the router sees it.
    var path: Substring
    /// The query after `?`, empty without one.
    var query: Substring

    /// Parses `target`; nil when it is not one of the live forms.
    static func parse(_ target: String) -> LivePath? {
        var bytes = target
        return bytes.withUTF8 { parse($0, target) }
    }

    private static let slash = UInt8(ascii: "/")

    private static func parse(_ b: UnsafeBufferPointer<UInt8>, _ target: String) -> LivePath? {
        // Every live form has at most 7 slashes before the query: their offsets fit on the stack.
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 7) { at in
            var count = 0
            var end = b.count
            for i in 0..<b.count {
                switch b[i] {
                case UInt8(ascii: "%"), UInt8(ascii: "+"):
                    return nil
                case UInt8(ascii: "?") where end == b.count:
                    end = i
                case slash where end == b.count:
                    guard count < 7 else { return nil }
                    at[count] = i
                    count += 1
                default:
                    break
                }
            }
            guard count >= 3, at[0] == 0 else { return nil }
            return parse(b, target, slashes: UnsafeBufferPointer(rebasing: at[0..<count]), end: end)
        }
    }

    private static func parse(
        _ b: UnsafeBufferPointer<UInt8>,
        _ target: String,
        slashes at: UnsafeBufferPointer<Int>,
        end: Int
    ) -> LivePath? {
        let count = at.count
        // Segment n spans at[n] + 1 ..< at[n + 1] (or the end of the path).
        func segment(_ n: Int) -> Range<Int> { (at[n] + 1)..<(n + 1 < count ? at[n + 1] : end) }
        func equals(_ r: Range<Int>, _ text: String) -> Bool {
            UnsafeBufferPointer(rebasing: b[r]).elementsEqual(text.utf8)
        }
        func string(_ r: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: b[r]), as: UTF8.self) }
        func substring(_ r: Range<Int>) -> Substring {
            let u = target.utf8
            return target[u.index(u.startIndex, offsetBy: r.lowerBound)..<u.index(u.startIndex, offsetBy: r.upperBound)]
        }
        for n in 0..<count where segment(n).isEmpty { return nil }
        var first = 0
        var token: Substring?
        if equals(segment(0), "t") {
            guard count >= 5 else { return nil }
            token = substring(segment(1))
            first = 2
        }
        guard equals(segment(first), "live") else { return nil }
        let rest = count - first - 1
        let key = string(segment(first + 1))
        let resource: Resource
        switch rest {
        case 2:
            let name = segment(first + 2)
            guard name.count > 5, equals(name.suffix(5), ".m3u8") else { return nil }
            resource = .playlist(rendition: string(name.dropLast(5)))
        case 4:
            resource = .media(
                epoch: string(segment(first + 2)),
                rendition: string(segment(first + 3)),
                file: string(segment(first + 4))
            )
        default:
            return nil
        }
        let query = end < b.count ? substring((end + 1)..<b.count) : Substring()
        return LivePath(token: token, key: key, resource: resource, path: substring(0..<end), query: query)
    }

    /// The delivery directives (`_HLS_msn`, `_HLS_part`, `_HLS_skip`) as query items for `PlaylistRequest`; other
    /// parameters are left out (it ignores them).
    var directives: [(String, String)] {
        var items: [(String, String)] = []
        for item in query.utf8.split(separator: UInt8(ascii: "&")) {
            guard let eq = item.firstIndex(of: UInt8(ascii: "=")) else {
                if Self.directiveNames.contains(where: { $0.utf8.elementsEqual(item) }) {
                    items.append((String(Substring(item)), ""))
                }
                continue
            }
            let name = item[..<eq]
            guard Self.directiveNames.contains(where: { $0.utf8.elementsEqual(name) }) else { continue }
            items.append((String(Substring(name)), String(Substring(item[item.index(after: eq)...]))))
        }
        return items
    }

    private static let directiveNames = ["_HLS_msn", "_HLS_part", "_HLS_skip"]

    /// What telemetry names this request as (the same as `RequestTarget(path:query:)`).
    var target: RequestTarget {
        var t = RequestTarget()
        guard let stream = StreamKey(key) else { return t }
        switch resource {
        case .playlist(let rendition):
            t.classify(playlist: rendition, query: query)
        case .media(_, let rendition, let file):
            guard t.classify(rendition: rendition, file: file) else { return t }
        }
        t.stream = stream
        return t
    }
}

extension RequestTarget {
    /// Nothing classified yet (`other`).
    init() {}

    /// Classifies `{rendition}.m3u8` (`index` is the multivariant) with its raw query.
    mutating func classify(playlist rendition: String, query: some StringProtocol) {
        guard rendition != "index" else {
            kind = .multivariant
            return
        }
        self.rendition = rendition
        kind = PlaylistRequest.asksToBlock(query: query) ? .playlistBlocking : .playlist
    }

    /// The media file a segment or part request names.
    var file: MediaFileName? {
        switch (kind, msn, part) {
        case (.segment, let msn?, _): .segment(msn)
        case (.part, let msn?, let part?): .part(msn, part)
        default: nil
        }
    }

    /// Classifies `{epoch}/{rendition}/{file}`; false (left `other`) when `file` is not a media file name.
    mutating func classify(rendition: String, file: some StringProtocol) -> Bool {
        guard let name = MediaFileName(file) else { return false }
        self.rendition = rendition
        (kind, msn, part) =
            switch name {
            case .initSection: (.initSection, nil, nil)
            case .segment(let m): (.segment, m, nil)
            case .part(let m, let p): (.part, m, p)
            }
        return true
    }
}
