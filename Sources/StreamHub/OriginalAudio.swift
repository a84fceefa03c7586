import MediaCore
import Synchronization

/// Audio as the publisher sent it, beside the hub's own track: WHIP ingest turns Opus into AAC for HLS, and WHEP
/// sends the Opus untouched from here (never transcoding it twice). Bounded like every hub reader.
public final class OriginalAudio: Sendable {
    private struct Track {
        var parameters: AudioParameters
        var readers: [StreamReader] = []
    }

    private let tracks = Mutex<[StreamKey: Track]>([:])

    /// An empty registry.
    public init() {}

    /// The publisher of `key` starts sending audio in its own codec (`parameters`).
    public func begin(key: StreamKey, parameters: AudioParameters) {
        tracks.withLock { $0[key] = Track(parameters: parameters) }
    }

    /// One frame as the publisher sent it (timestamps on the stream's timeline).
    public func send(_ frame: MediaFrame, key: StreamKey) {
        let readers = tracks.withLock { $0[key]?.readers ?? [] }
        for reader in readers { reader.push(.frame(frame)) }
    }

    /// The publisher left: readers get `.ended`.
    public func end(key: StreamKey) {
        let readers = tracks.withLock { $0.removeValue(forKey: key)?.readers ?? [] }
        for reader in readers {
            reader.push(.ended)
            reader.finish()
        }
    }

    /// A reader of `key`'s original audio, starting with its description; nil when the publisher sends none.
    public func subscribe(key: StreamKey, name: String, capacity: Int = 256) -> StreamReader? {
        let reader = StreamReader(name: name, capacity: capacity)
        let parameters = tracks.withLock { t -> AudioParameters? in
            guard t[key] != nil else { return nil }
            t[key]?.readers.append(reader)
            return t[key]?.parameters
        }
        guard let parameters else { return nil }
        reader.push(.description(StreamDescription(audio: parameters)))
        return reader
    }

    /// Stops a reader early.
    public func unsubscribe(_ reader: StreamReader, from key: StreamKey) {
        tracks.withLock { $0[key]?.readers.removeAll { $0 === reader } }
        reader.finish()
    }
}
