/// EXT-X-MEDIA (RFC 8216bis §4.4.6.1): an audio rendition in a group.
public struct AudioRendition: Sendable, Equatable {
    /// GROUP-ID.
    public var groupID: String
    /// NAME, unique in the group.
    public var name: String
    /// LANGUAGE (BCP 47), if known.
    public var language: String?
    /// CHANNELS count.
    public var channels: Int
    /// Media playlist URI.
    public var uri: String

    /// Creates the rendition.
    public init(groupID: String, name: String, language: String?, channels: Int, uri: String) {
        self.groupID = groupID
        self.name = name
        self.language = language
        self.channels = channels
        self.uri = uri
    }
}

/// EXT-X-STREAM-INF (RFC 8216bis §4.4.6.2): one variant.
public struct VariantStream: Sendable, Equatable {
    /// Peak segment bit rate, audio group included.
    public var bandwidth: Int
    /// Average segment bit rate, audio group included.
    public var averageBandwidth: Int?
    /// RFC 6381 codecs of every rendition in the variant.
    public var codecs: [String]
    /// Width × height.
    public var resolution: (width: Int, height: Int)?
    /// FRAME-RATE.
    public var frameRate: Double?
    /// AUDIO group.
    public var audioGroup: String?
    /// Media playlist URI.
    public var uri: String

    /// Creates the variant.
    public init(
        bandwidth: Int,
        averageBandwidth: Int?,
        codecs: [String],
        resolution: (width: Int, height: Int)?,
        frameRate: Double?,
        audioGroup: String?,
        uri: String
    ) {
        self.bandwidth = bandwidth
        self.averageBandwidth = averageBandwidth
        self.codecs = codecs
        self.resolution = resolution
        self.frameRate = frameRate
        self.audioGroup = audioGroup
        self.uri = uri
    }

    public static func == (a: VariantStream, b: VariantStream) -> Bool {
        a.bandwidth == b.bandwidth && a.averageBandwidth == b.averageBandwidth && a.codecs == b.codecs
            && a.resolution?.width == b.resolution?.width && a.resolution?.height == b.resolution?.height
            && a.frameRate == b.frameRate && a.audioGroup == b.audioGroup && a.uri == b.uri
    }
}

/// The multivariant playlist (RFC 8216bis §4.4.6).
public struct MultivariantPlaylist: Sendable, Equatable {
    /// EXT-X-MEDIA audio renditions.
    public var audio: [AudioRendition]
    /// Variants.
    public var variants: [VariantStream]
    /// EXT-X-INDEPENDENT-SEGMENTS: only when every segment of every rendition starts with an IDR (RFC 8216bis §4.4.2.1).
    public var independentSegments: Bool

    /// Creates the playlist.
    public init(audio: [AudioRendition], variants: [VariantStream], independentSegments: Bool = true) {
        self.audio = audio
        self.variants = variants
        self.independentSegments = independentSegments
    }

    /// Renders it; the first audio rendition is the DEFAULT.
    public func render() -> String {
        var out = ["#EXTM3U", "#EXT-X-VERSION:6"]
        if independentSegments { out.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        for (i, a) in audio.enumerated() {
            var line = "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\(quoted(a.groupID)),NAME=\(quoted(a.name))"
            if let l = a.language { line += ",LANGUAGE=\(quoted(l))" }
            line += i == 0 ? ",DEFAULT=YES,AUTOSELECT=YES" : ",DEFAULT=NO,AUTOSELECT=YES"
            line += ",CHANNELS=\(quoted(String(a.channels))),URI=\(quoted(a.uri))"
            out.append(line)
        }
        for v in variants {
            var line = "#EXT-X-STREAM-INF:BANDWIDTH=\(v.bandwidth)"
            if let avg = v.averageBandwidth { line += ",AVERAGE-BANDWIDTH=\(avg)" }
            line += ",CODECS=\(quoted(v.codecs.joined(separator: ",")))"
            if let r = v.resolution { line += ",RESOLUTION=\(r.width)x\(r.height)" }
            if let f = v.frameRate { line += ",FRAME-RATE=\(PlaylistDecimal.format(seconds: f, decimals: 3))" }
            if let g = v.audioGroup { line += ",AUDIO=\(quoted(g))" }
            out.append(line)
            out.append(v.uri)
        }
        return out.joined(separator: "\n") + "\n"
    }
}
