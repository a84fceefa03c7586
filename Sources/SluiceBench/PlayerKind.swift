/// Who plays the stream in a latency scenario.
public enum PlayerKind: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// The bench's own viewers (several, joining at random phases) and its hls.js-like player model: fast, no browser.
    case model
    /// hls.js 1.6 in headless Chromium with the watch page's settings and live-edge keeper (`sluice-player.js`).
    case hlsjs
    /// hls.js 1.6 with only `lowLatencyMode: true` and no keeper: what a third-party page that embeds it gets.
    case hlsjsStock = "hlsjs-stock"
    /// Chromium's own HLS player (`<video src>`), which plays whole segments and ignores parts.
    case native

    public var description: String { rawValue }

    /// True for the players that run in a browser.
    public var isBrowser: Bool { self != .model }

    /// True for the hls.js players (they need the chunk from `make hlsjs`).
    public var usesHLSJS: Bool { self == .hlsjs || self == .hlsjsStock }
}
