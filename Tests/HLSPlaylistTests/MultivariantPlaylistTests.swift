import HLSPlaylist
import Testing

/// RFC 8216bis §4.4.6: EXT-X-MEDIA and EXT-X-STREAM-INF (checklist V1–V3).
@Suite("MultivariantPlaylist rendering")
struct MultivariantPlaylistTests {
    /// One multivariant model and its exact text.
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var playlist: MultivariantPlaylist
        var text: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "video with an audio group: first rendition DEFAULT=YES+AUTOSELECT, CODECS joined",
            playlist: MultivariantPlaylist(
                audio: [
                    AudioRendition(groupID: "audio", name: "main", language: "en", channels: 2, uri: "audio.m3u8"),
                    AudioRendition(groupID: "audio", name: "commentary", language: nil, channels: 1, uri: "c.m3u8"),
                ],
                variants: [
                    VariantStream(
                        bandwidth: 2_500_000,
                        averageBandwidth: 2_000_000,
                        codecs: ["avc1.64001e", "mp4a.40.2"],
                        resolution: (640, 360),
                        frameRate: 29.97,
                        audioGroup: "audio",
                        uri: "video.m3u8"
                    )
                ]
            ),
            text: """
                #EXTM3U
                #EXT-X-VERSION:6
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="main",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="audio.m3u8"
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="commentary",DEFAULT=NO,AUTOSELECT=YES,CHANNELS="1",URI="c.m3u8"
                #EXT-X-STREAM-INF:BANDWIDTH=2500000,AVERAGE-BANDWIDTH=2000000,CODECS="avc1.64001e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=29.970,AUDIO="audio"
                video.m3u8

                """
        ),
        Case(
            name: "audio-only variant: no RESOLUTION, FRAME-RATE or AUDIO",
            playlist: MultivariantPlaylist(
                audio: [],
                variants: [
                    VariantStream(
                        bandwidth: 160_000,
                        averageBandwidth: nil,
                        codecs: ["mp4a.40.2"],
                        resolution: nil,
                        frameRate: nil,
                        audioGroup: nil,
                        uri: "audio.m3u8"
                    )
                ]
            ),
            text: """
                #EXTM3U
                #EXT-X-VERSION:6
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-STREAM-INF:BANDWIDTH=160000,CODECS="mp4a.40.2"
                audio.m3u8

                """
        ),
        Case(
            name: "integer frame rate keeps three decimals",
            playlist: MultivariantPlaylist(
                audio: [],
                variants: [
                    VariantStream(
                        bandwidth: 1,
                        averageBandwidth: 1,
                        codecs: ["avc1.42c01e"],
                        resolution: (1280, 720),
                        frameRate: 30,
                        audioGroup: nil,
                        uri: "v.m3u8"
                    )
                ]
            ),
            text: """
                #EXTM3U
                #EXT-X-VERSION:6
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-STREAM-INF:BANDWIDTH=1,AVERAGE-BANDWIDTH=1,CODECS="avc1.42c01e",RESOLUTION=1280x720,FRAME-RATE=30.000
                v.m3u8

                """
        ),
    ]

    @Test(arguments: cases)
    func rendersExactText(_ c: Case) {
        #expect(c.playlist.render() == c.text)
    }

    @Test func atMostOneDefaultPerGroupAndDefaultImpliesAutoselect() {
        let renditions = (0..<4).map {
            AudioRendition(groupID: "audio", name: "n\($0)", language: nil, channels: 2, uri: "\($0).m3u8")
        }
        let lines = MultivariantPlaylist(audio: renditions, variants: []).render().split(separator: "\n")
        let media = lines.filter { $0.hasPrefix("#EXT-X-MEDIA:") }
        #expect(media.count == 4)
        #expect(media.filter { $0.contains("DEFAULT=YES") }.count == 1)
        #expect(media.allSatisfy { !$0.contains("DEFAULT=YES") || $0.contains("AUTOSELECT=YES") })
    }

    @Test func variantsCompareResolutionByValue() {
        let a = VariantStream(
            bandwidth: 1,
            averageBandwidth: nil,
            codecs: [],
            resolution: (2, 3),
            frameRate: nil,
            audioGroup: nil,
            uri: "u"
        )
        var b = a
        #expect(a == b)
        b.resolution = (3, 2)
        #expect(a != b)
    }
}
