/// Who plays the stream in a latency scenario.
public enum PlayerKind: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// The bench's own viewers (several, joining at random phases) and its hls.js-like player model: fast, no browser.
    case model
    /// hls.js 1.6 in low-latency mode in headless Chromium.
    case hlsjs
    /// Chromium's own HLS player (`<video src>`), which plays whole segments and ignores parts.
    case native

    public var description: String { rawValue }

    /// True for the players that run in a browser.
    public var isBrowser: Bool { self != .model }
}
