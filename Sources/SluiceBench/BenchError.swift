import HTTPClient

/// Why a bench step failed; each case says which step and for which host, URL or file.
public enum BenchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `url` is not an `http(s)://host[:port]/path` URL.
    case invalidURL(String)
    /// An HTTP exchange gave no response (the client's error names the URL).
    case http(HTTPClientError)
    /// The response to `url` had a status other than 200.
    case httpStatus(url: String, status: Int)
    /// The playlist at `url` could not be used (`reason` says what is missing or malformed).
    case badPlaylist(url: String, reason: String)
    /// The media at `url` could not be parsed.
    case badMedia(url: String, reason: String)
    /// Writing `path` (saved media or manifest) failed.
    case writeFailed(path: String, reason: String)
    /// The gateway a scenario runs against did not start or answer (`reason`).
    case gatewayFailed(String)
    /// The nginx-rtmp anchor could not be set up or started (`reason`).
    case anchorFailed(String)
    /// An external tool (`ffmpeg`) could not start (`status` -1) or exited with `status`; `output` is its stderr tail.
    case toolFailed(tool: String, status: Int32, output: String)
    /// Our ladder could not run over `path`.
    case transcodeFailed(path: String, reason: String)
    /// The headless browser of a real-player run could not be started or lost (`reason`).
    case browserFailed(String)
    /// No bench WHEP viewer of `url` received a frame; `reason` is the first viewer's error.
    case whepFailed(url: String, reason: String)
    /// hls.js is not where the bench serves it from; `path` is where it was looked for.
    case hlsjsMissing(path: String)

    public var description: String {
        switch self {
        case .invalidURL(let url): "invalid URL \(url) (expected http://host[:port]/path)"
        case .http(let error): error.description
        case .httpStatus(let url, let status): "GET \(url) returned \(status)"
        case .badPlaylist(let url, let reason): "playlist \(url): \(reason)"
        case .badMedia(let url, let reason): "media \(url): \(reason)"
        case .writeFailed(let path, let reason): "writing \(path) failed: \(reason)"
        case .gatewayFailed(let reason): "gateway: \(reason)"
        case .anchorFailed(let reason): "nginx-rtmp anchor: \(reason)"
        case .toolFailed(let tool, let status, let output): "\(tool) failed (\(status)): \(output)"
        case .transcodeFailed(let path, let reason): "ladder over \(path) failed: \(reason)"
        case .browserFailed(let reason): "headless browser: \(reason)"
        case .whepFailed(let url, let reason): "no WHEP viewer of \(url) received a frame: \(reason)"
        case .hlsjsMissing(let path):
            "hls.js not found at \(path); run `make hlsjs` (extracts it from the PyPI wheel gradio==6.31.0) "
                + "or pass --hlsjs PATH"
        }
    }
}
