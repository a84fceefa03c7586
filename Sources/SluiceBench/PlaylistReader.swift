/// RFC 8216bis §4: the parts of a media or multivariant playlist a bench viewer needs, parsed leniently.
public struct ReadPlaylist: Sendable, Equatable {
    /// One EXT-X-PART (§4.4.4.9).
    public struct Part: Sendable, Equatable {
        /// Media sequence number of the parent segment.
        public var msn: Int
        /// Index within the parent segment.
        public var index: Int
        /// Duration in seconds.
        public var duration: Double
        /// URI as written (relative to the playlist).
        public var uri: String
        /// INDEPENDENT=YES.
        public var independent: Bool
        /// GAP=YES.
        public var gap: Bool
    }

    /// One media segment, complete (with `uri`) or still growing (parts only, `uri` nil).
    public struct Segment: Sendable, Equatable {
        /// Media sequence number.
        public var msn: Int
        /// EXTINF duration in seconds (sum of parts while incomplete).
        public var duration: Double
        /// The segment URI; nil for the segment still being written.
        public var uri: String?
        /// Its parts, when listed.
        public var parts: [Part] = []
        /// Preceded by EXT-X-DISCONTINUITY.
        public var discontinuity = false
        /// The EXT-X-MAP URI in force.
        public var map: String?
        /// EXT-X-GAP.
        public var gap = false
    }

    /// A variant of a multivariant playlist (§4.4.6.2).
    public struct Variant: Sendable, Equatable {
        /// Its media playlist URI.
        public var uri: String
        /// BANDWIDTH.
        public var bandwidth: Int
        /// RESOLUTION height, when given.
        public var height: Int?
    }

    /// EXT-X-TARGETDURATION in seconds.
    public var targetDuration: Double = 0
    /// PART-TARGET, when the playlist has parts.
    public var partTarget: Double?
    /// SERVER-CONTROL PART-HOLD-BACK.
    public var partHoldBack: Double?
    /// SERVER-CONTROL CAN-BLOCK-RELOAD=YES.
    public var canBlockReload = false
    /// EXT-X-MEDIA-SEQUENCE.
    public var mediaSequence = 0
    /// Segments in order, the growing one last.
    public var segments: [Segment] = []
    /// EXT-X-ENDLIST.
    public var endList = false
    /// Variants, when this is a multivariant playlist.
    public var variants: [Variant] = []

    /// True for a multivariant playlist.
    public var isMultivariant: Bool { !variants.isEmpty }

    /// Every listed part in order.
    public var parts: [Part] { segments.flatMap(\.parts) }

    /// Parses playlist text; throws `badPlaylist` without #EXTM3U.
    public init(parsing text: String, url: String) throws(BenchError) {
        let lines = text.split(whereSeparator: \.isNewline).map { line in
            String(line.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        }
        guard lines.first == "#EXTM3U" else { throw .badPlaylist(url: url, reason: "no #EXTM3U") }
        var next = Segment(msn: 0, duration: 0)
        var pendingVariant: Variant?
        var map: String?
        for line in lines.dropFirst() where !line.isEmpty {
            let (tag, value) = Self.split(line)
            switch tag {
            case "#EXT-X-TARGETDURATION": targetDuration = Double(value) ?? 0
            case "#EXT-X-MEDIA-SEQUENCE": mediaSequence = Int(value) ?? 0
            case "#EXT-X-PART-INF": partTarget = Self.attributes(value)["PART-TARGET"].flatMap(Double.init)
            case "#EXT-X-SERVER-CONTROL":
                let a = Self.attributes(value)
                partHoldBack = a["PART-HOLD-BACK"].flatMap(Double.init)
                canBlockReload = a["CAN-BLOCK-RELOAD"] == "YES"
            case "#EXT-X-MAP": map = Self.attributes(value)["URI"]
            case "#EXT-X-DISCONTINUITY": next.discontinuity = true
            case "#EXT-X-GAP": next.gap = true
            case "#EXT-X-ENDLIST": endList = true
            case "#EXTINF": next.duration = Double(value.prefix { $0 != "," }) ?? 0
            case "#EXT-X-PART":
                let a = Self.attributes(value)
                guard let uri = a["URI"] else { continue }
                next.parts.append(
                    Part(
                        msn: mediaSequence + segments.count,
                        index: next.parts.count,
                        duration: a["DURATION"].flatMap(Double.init) ?? 0,
                        uri: uri,
                        independent: a["INDEPENDENT"] == "YES",
                        gap: a["GAP"] == "YES"
                    )
                )
            case "#EXT-X-STREAM-INF":
                let a = Self.attributes(value)
                pendingVariant = Variant(
                    uri: "",
                    bandwidth: a["BANDWIDTH"].flatMap { Int($0) } ?? 0,
                    height: a["RESOLUTION"].flatMap { $0.split(separator: "x").last.flatMap { Int($0) } }
                )
            case _ where !line.hasPrefix("#"):
                if var variant = pendingVariant {
                    variant.uri = line
                    variants.append(variant)
                    pendingVariant = nil
                    continue
                }
                next.msn = mediaSequence + segments.count
                next.uri = line
                next.map = map
                if next.duration == 0 { next.duration = next.parts.reduce(0) { $0 + $1.duration } }
                segments.append(next)
                next = Segment(msn: 0, duration: 0)
            default: continue
            }
        }
        if !next.parts.isEmpty {
            next.msn = mediaSequence + segments.count
            next.map = map
            next.duration = next.parts.reduce(0) { $0 + $1.duration }
            segments.append(next)
        }
    }

    /// Splits "#TAG:value" at the first colon.
    private static func split(_ line: String) -> (String, String) {
        guard let colon = line.firstIndex(of: ":") else { return (line, "") }
        return (String(line[..<colon]), String(line[line.index(after: colon)...]))
    }

    /// An attribute list (§4.2): NAME=value pairs, commas inside quoted strings kept; quotes removed.
    static func attributes(_ text: String) -> [String: String] {
        var out: [String: String] = [:]
        var name = ""
        var value = ""
        var inName = true
        var quoted = false
        func commit() {
            if !name.isEmpty { out[name] = value }
            name = ""
            value = ""
            inName = true
        }
        for c in text {
            if inName {
                if c == "=" { inName = false } else if c != "," { name.append(c) }
            } else if c == "\"" {
                quoted.toggle()
            } else if c == "," && !quoted {
                commit()
            } else {
                value.append(c)
            }
        }
        commit()
        return out
    }
}
