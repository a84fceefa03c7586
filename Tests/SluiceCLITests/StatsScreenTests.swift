import Foundation
import Testing

@testable import sluice

/// `sluice stats` renders the `/api/streams` JSON: the source codec line and a codec column wide enough for HEVC/AV1.
struct StatsScreenTests {
    /// One stream as `/api/streams` writes it: an HEVC source (E-RTMP), its passthrough and one H.264 rung.
    static let hevcStream = """
        [{"key":"cam","state":"live","partTarget":0.2,"lastMSN":9,"viewers":1,"framesDropped":0,
          "source":{"videoFormat":"hevc","video":"hvc1.2.4.L93.90","audioFormat":"aac","audio":"mp4a.40.2"},
          "renditions":[
            {"name":"video","kind":"video","codec":"hvc1.2.4.L93.90","width":1280,"height":720,"fps":30,"bitRate":2000000,
             "framesDropped":0,"framesDroppedBy":{},"hops":{}},
            {"name":"480p","kind":"video","codec":"avc1.64001f","width":854,"height":480,"fps":30,"bitRate":1000000,
             "framesDropped":0,"framesDroppedBy":{},"hops":{}}]}]
        """

    static func render(_ json: String) throws -> [String] {
        let streams = try JSONDecoder().decode([StatsStream].self, from: Data(json.utf8))
        return StatsScreen.render(streams, source: "http://127.0.0.1:8080/api/streams").split(separator: "\n").map(
            String.init
        )
    }

    @Test func sourceCodecLineNamesFormatAndCodecsString() throws {
        let lines = try Self.render(Self.hevcStream)
        #expect(lines.contains("  source: hevc hvc1.2.4.L93.90 + aac mp4a.40.2"))
    }

    @Test func codecColumnKeepsHEVCApartFromTheSize() throws {
        let lines = try Self.render(Self.hevcStream)
        let row = try #require(lines.first { $0.hasPrefix("  video ") })
        let columns = row.split(separator: " ", omittingEmptySubsequences: true)
        #expect(columns.prefix(3) == ["video", "hvc1.2.4.L93.90", "1280x720"])
    }

    @Test func av1AndVideoOnlySourcesRenderTheirParts() throws {
        let av1 = Self.hevcStream.replacingOccurrences(
            of: #""source":{"videoFormat":"hevc","video":"hvc1.2.4.L93.90","audioFormat":"aac","audio":"mp4a.40.2"}"#,
            with: #""source":{"videoFormat":"av1","video":"av01.0.05M.08"}"#
        )
        #expect(try Self.render(av1).contains("  source: av1 av01.0.05M.08"))
    }

    @Test func olderGatewaysWithoutSourceRenderNoLine() throws {
        let old = Self.hevcStream.replacingOccurrences(
            of: #""source":{"videoFormat":"hevc","video":"hvc1.2.4.L93.90","audioFormat":"aac","audio":"mp4a.40.2"},"#,
            with: ""
        )
        #expect(old != Self.hevcStream)
        #expect(!(try Self.render(old)).contains { $0.contains("source:") })
    }

    @Test func otherMultitrackVideoTracksAreListedWithTheirCodec() throws {
        let multitrack = Self.hevcStream.replacingOccurrences(
            of: #""renditions":["#,
            with: #""otherVideoTracks":[{"trackID":1,"codec":"hvc1"},{"trackID":2,"codec":"av01"}],"renditions":["#
        )
        #expect(multitrack != Self.hevcStream)
        #expect(try Self.render(multitrack).contains("  other video tracks (not served): track 1 hvc1, track 2 av01"))
        #expect(!(try Self.render(Self.hevcStream)).contains { $0.contains("other video tracks") })
    }
}
