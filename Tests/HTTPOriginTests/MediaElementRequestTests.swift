import HTTPTypes
import Testing

@testable import HTTPOrigin

/// Which playlist loads come from a media element (Chromium's native player), as captured from Chromium 156.
@Suite struct MediaElementRequestTests {
    static func fields(_ pairs: [(String, String)]) -> HTTPFields {
        var f = HTTPFields()
        for (name, value) in pairs { f[HTTPField.Name(name)!] = value }
        return f
    }

    @Test(arguments: [
        ([("Sec-Fetch-Dest", "video"), ("Sec-Fetch-Mode", "no-cors"), ("Range", "bytes=0-")], true),  // <video src>
        ([("Sec-Fetch-Dest", "audio")], true),
        ([("Range", "bytes=0-")], true),  // no Fetch Metadata (a plain-HTTP origin that is not loopback)
        ([("Sec-Fetch-Dest", "empty"), ("Sec-Fetch-Mode", "cors")], false),  // hls.js's XHR or fetch
        ([("Sec-Fetch-Dest", "empty"), ("Range", "bytes=0-")], false),  // a script asking for a range
        ([("Range", "bytes=100-")], false),
        ([], false),  // curl, ffmpeg, an edge
    ])
    func aMediaElementIsToldFromAScript(headers: [(String, String)], mediaElement: Bool) {
        #expect(MediaElementRequest.matches(Self.fields(headers)) == mediaElement)
    }
}
