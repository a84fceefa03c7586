import HTTPTypes

/// Whether a request comes from an HTML media element (`<video src=…>`) rather than a script such as hls.js.
///
/// Browsers say so themselves: Fetch Metadata's `Sec-Fetch-Dest` is `video` or `audio` for a media element
/// (W3C Fetch Metadata §2.1, sent to secure and loopback origins), and a media element's first fetch of a resource
/// asks for `Range: bytes=0-` (HTML §4.8.11.5 resource fetch), which a script's playlist load never does.
/// Checked with Chromium 156: its native HLS player sends both on every playlist load; hls.js's XHR sends neither.
enum MediaElementRequest {
    static let fetchDest = HTTPField.Name("Sec-Fetch-Dest")!

    /// True for a media element's request.
    static func matches(_ fields: HTTPFields) -> Bool {
        if let dest = fields[fetchDest] { return dest == "video" || dest == "audio" }
        return fields[.range] == "bytes=0-"
    }
}
