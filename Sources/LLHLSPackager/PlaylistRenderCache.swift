import HLSPlaylist
import NIOCore
import Synchronization

/// Media playlists rendered once per change: every viewer woken by the same part gets the same bytes.
///
/// An entry is valid while the stream's `version` is unchanged. Every mutation that changes a playlist
/// bumps `version` (blocked requests rely on the same rule to wake up), so a hit can never be stale.
struct PlaylistRenderCache: Sendable {
    /// What one rendered body depends on besides the state version.
    struct Key: Hashable, Sendable {
        /// Rendition name.
        var rendition: String
        /// `_HLS_skip` was asked for (delta update).
        var skip: Bool
    }

    private var entries: [Key: (version: UInt64, body: ByteBuffer)] = [:]
    /// Playlists rendered since the stream began (a hit does not count).
    private(set) var renders = 0

    /// The body rendered for `key` at `version`, if any.
    func body(_ key: Key, version: UInt64) -> ByteBuffer? {
        guard let e = entries[key], e.version == version else { return nil }
        return e.body
    }

    /// Keeps a freshly rendered body for `key` at `version`.
    mutating func store(_ text: String, _ key: Key, version: UInt64) -> ByteBuffer {
        renders += 1
        let body = ByteBuffer(string: text)
        entries[key] = (version, body)
        return body
    }
}

extension LLHLSStreamState {
    /// The rendered media playlist of a rendition (a delta update when `skip`), shared until the next change.
    mutating func renderedMediaPlaylist(named name: String, skip: Bool) -> ByteBuffer? {
        let key = PlaylistRenderCache.Key(rendition: name, skip: skip)
        if let body = playlistCache.body(key, version: version) { return body }
        guard let playlist = mediaPlaylist(named: name) else { return nil }
        let text = playlist.render(skipping: skip ? playlist.skippableSegmentCount() : 0)
        return playlistCache.store(text, key, version: version)
    }
}

extension LLHLSStream {
    /// Media playlists rendered so far (a response served from the render cache does not count).
    public var playlistRenders: Int { state.withLock { $0.playlistCache.renders } }
}
