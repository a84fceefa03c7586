import MediaCore

/// One CMAF track: a track ID, its media timescale and the codec parameters its sample entry needs.
public struct FMP4Track: Sendable {
    /// What the track carries.
    public enum Media: Sendable {
        case video(VideoParameters)
        case audio(AudioParameters)
    }

    /// track_ID used by tkhd, trex and every tfhd.
    public var trackID: UInt32
    /// Ticks per second of the media timeline (mdhd), e.g. 90 000 or the audio sample rate.
    public var timescale: UInt32
    /// Codec parameters.
    public var media: Media

    /// Creates a track.
    public init(trackID: UInt32, timescale: UInt32, media: Media) {
        self.trackID = trackID
        self.timescale = timescale
        self.media = media
    }
}
