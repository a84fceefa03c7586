import LLHLSPackager

/// RFC 8216bis §4.4.4.9, §4.4.5.3: the parts a media playlist lists and its preload hint, read from the tail only.
///
/// A load generator parses thousands of playlists a second next to the origin it measures, so this reads just
/// what a viewer following the live edge needs: part URIs (`…/MSN.PART.m4s`) at or after a position, and the hint.
struct LoadGeneratorPlaylist: Sendable, Equatable {
    /// A part position: media sequence number and index within its segment.
    struct Position: Sendable, Hashable, Comparable {
        var msn: Int
        var part: Int

        static func < (a: Position, b: Position) -> Bool { (a.msn, a.part) < (b.msn, b.part) }
    }

    /// Parts at or after the position asked for, oldest first, with their URIs as written.
    var parts: [(position: Position, uri: String)]
    /// The EXT-X-PRELOAD-HINT part, if any.
    var hint: Position?
    /// EXT-X-ENDLIST seen.
    var ended: Bool

    static func == (a: Self, b: Self) -> Bool {
        a.hint == b.hint && a.ended == b.ended && a.parts.map(\.position) == b.parts.map(\.position)
            && a.parts.map(\.uri) == b.parts.map(\.uri)
    }

    /// Reads `body` from its last line back until a part older than `from`.
    init(_ body: [UInt8], from: Position) {
        parts = []
        hint = nil
        ended = false
        var end = body.count
        while end > 0 {
            var start = end - 1
            while start > 0 && body[start - 1] != UInt8(ascii: "\n") { start -= 1 }
            let line = body[start..<end]
            end = start > 0 ? start - 1 : 0
            if line.starts(with: Self.partTag) || line.starts(with: Self.hintTag) {
                guard let uri = Self.uri(line), let position = Self.position(uri) else { continue }
                if line.starts(with: Self.hintTag) {
                    hint = position
                } else {
                    if position < from { break }
                    parts.append((position, String(decoding: uri, as: UTF8.self)))
                }
            } else if line.starts(with: Self.endTag) {
                ended = true
            }
        }
        parts.reverse()
    }

    private static let partTag = Array("#EXT-X-PART:".utf8)
    private static let hintTag = Array("#EXT-X-PRELOAD-HINT:".utf8)
    private static let endTag = Array("#EXT-X-ENDLIST".utf8)
    private static let uriKey = Array("URI=\"".utf8)

    /// The quoted URI attribute of a tag line.
    static func uri(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        guard let at = line.firstRange(of: uriKey) else { return nil }
        let rest = line[at.upperBound...]
        guard let close = rest.firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return rest[..<close]
    }

    /// `MSN.PART` from a URI ending in `/MSN.PART.m4s`.
    static func position(_ uri: ArraySlice<UInt8>) -> Position? {
        let name = uri.lastIndex(of: UInt8(ascii: "/")).map { uri[($0 + 1)...] } ?? uri
        guard case .part(let msn, let part) = MediaFileName(utf8: name) else { return nil }
        return Position(msn: msn, part: part)
    }
}
