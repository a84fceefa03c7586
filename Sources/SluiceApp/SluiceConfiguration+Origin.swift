import Foundation
import HTTPOrigin
import LLHLSPackager
import Logging

extension SluiceConfiguration {
    /// HTTPS and page rules: certificate and key come together and are readable; the hls.js URL is http(s) or a path.
    func validateOrigin() throws {
        switch (tlsCertificate, tlsKey) {
        case (nil, nil): break
        case (let cert?, let key?):
            for (k, path) in [("http.tls.cert", cert), ("http.tls.key", key)]
            where !FileManager.default.isReadableFile(atPath: path) {
                throw ConfigurationError(key: k, allowed: "a readable PEM file", found: "\(path) (not readable)")
            }
        case (nil, _):
            throw ConfigurationError(
                key: "http.tls.cert",
                allowed: "a PEM certificate path when http.tls.key is set",
                found: "nothing"
            )
        case (_, nil):
            throw ConfigurationError(
                key: "http.tls.key",
                allowed: "a PEM private key path when http.tls.cert is set",
                found: "nothing"
            )
        }
        let url = hlsjsURL.lowercased()
        guard url.hasPrefix("https://") || url.hasPrefix("http://") || (url.hasPrefix("/") && !url.hasPrefix("//"))
        else {
            throw ConfigurationError(
                key: "pages.hlsjs_url",
                allowed: "an http:// or https:// URL or a path starting with /",
                found: hlsjsURL
            )
        }
    }

    /// hls.js for the pages: with `pages.hlsjs_url` at the served path, the copy `find` finds is served there; without
    /// one the pages load the CDN's and the returned warning says why (nil when nothing needs saying).
    func servePlayerLibrary(
        into o: inout HTTPOriginOptions,
        find: (String?) -> (path: String, bytes: [UInt8])? = PlayerLibrary.load
    ) -> (level: Logger.Level, message: String) {
        guard hlsjsURL == PlayerLibrary.servedPath else {
            return (.info, "the pages load hls.js from \(hlsjsURL) (pages.hlsjs_url)")
        }
        if let copy = find(nil) {
            o.hlsjsURL = PlayerLibrary.servedPath
            o.hlsjsModule = copy.bytes
            return (.info, "the pages load hls.js from this gateway (\(PlayerLibrary.servedPath), from \(copy.path))")
        }
        o.hlsjsURL = PlayerLibrary.cdnURL
        return (
            .warning,
            "hls.js not found (looked in \(PlayerLibrary.candidates().joined(separator: ", ")); `make hlsjs` puts it "
                + "there): the pages load it from \(PlayerLibrary.cdnURL), which needs the internet"
        )
    }

    /// Whether the origin speaks HTTPS.
    public var usesTLS: Bool { tlsCertificate != nil && tlsKey != nil }
}

extension SluiceConfiguration {
    /// What the origin needs from `http.*`, `pages.*` and, for the pages, `rtmp.port`.
    public func originOptions(readiness: OriginReadiness) -> HTTPOriginOptions {
        var o = HTTPOriginOptions()
        o.http2 = http2
        if let tlsCertificate, let tlsKey { o.tls = (tlsCertificate, tlsKey) }
        o.hlsjsURL = hlsjsURL == PlayerLibrary.servedPath ? PlayerLibrary.cdnURL : hlsjsURL
        o.readiness = readiness
        o.access = security.origin
        // The streams page shows OBS the RTMP server URL with the port really listened on.
        o.pageValues["rtmpPort"] = "\(rtmpPort)"
        // The watch page shows a seek bar when the live playlists keep a DVR window.
        o.pageValues["dvrWindowS"] = "\(hls.dvrWindow?.components.seconds ?? 0)"
        return o
    }
}
