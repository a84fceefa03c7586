import HTTPOrigin
import Logging
import Testing

@testable import SluiceApp

/// The pages' hls.js: the gateway's own copy by default, the CDN (with a warning) only when no copy is found, and a
/// configured URL as configured.
@Suite struct PlayerLibraryTests {
    @Test func theDefaultServesTheCopyFoundOnDisk() {
        var o = HTTPOriginOptions()
        let said = SluiceConfiguration().servePlayerLibrary(into: &o) { path in
            path == nil ? ("/x/.build/hlsjs/hls-chunk.js", Array("export{}".utf8)) : nil
        }
        #expect(o.hlsjsURL == "/pages/hls.mjs")
        #expect(o.hlsjsModule == Array("export{}".utf8))
        #expect(said.level == .info && said.message.contains("/x/.build/hlsjs/hls-chunk.js"))
    }

    @Test func withoutACopyThePagesLoadTheCDNsAndTheLogSaysWhy() {
        var o = HTTPOriginOptions()
        let said = SluiceConfiguration().servePlayerLibrary(into: &o) { _ in nil }
        #expect(o.hlsjsURL == PlayerLibrary.cdnURL)
        #expect(o.hlsjsModule == nil)
        #expect(said.level == .warning && said.message.contains("make hlsjs"))
    }

    @Test func aConfiguredURLIsUsedAsIsAndNothingIsServed() {
        var c = SluiceConfiguration()
        c.hlsjsURL = "https://example.test/hls.mjs"
        var o = c.originOptions(readiness: OriginReadiness())
        _ = c.servePlayerLibrary(into: &o) { _ in ("/never", [1]) }
        #expect(o.hlsjsURL == "https://example.test/hls.mjs")
        #expect(o.hlsjsModule == nil)
    }

    /// Candidates: the `.build` folder holding the executable first, then the working folder's.
    @Test func candidatesStartBesideTheBuild() {
        let c = PlayerLibrary.candidates(executable: "/repo/.build/x86_64-unknown-linux-gnu/release/sluice")
        #expect(c.first == "/repo/.build/hlsjs/hls-chunk.js")
        #expect(c.last?.hasSuffix("/.build/hlsjs/hls-chunk.js") == true)
    }
}
