import MediaCore

/// The slate as encoded once for one stream's tracks: a still picture's GOP (a keyframe, then pictures that repeat
/// it) and one silent audio frame, looped while nobody is on air.
public struct SlateClip: Sendable {
    /// The tracks the slate's frames decode with.
    public var description: StreamDescription
    /// One GOP of video, the keyframe first; its timestamps are ignored (the loop places every frame).
    public var video: [MediaFrame]
    /// How long each video frame lasts.
    public var videoFrameDuration: MediaTime
    /// One frame of silence, repeated; nil when the stream has no audio.
    public var audio: MediaFrame?
    /// How long the audio frame lasts (samples per frame at the sample rate).
    public var audioFrameDuration: MediaTime?

    /// A clip; `video` must start with a keyframe when not empty.
    public init(
        description: StreamDescription,
        video: [MediaFrame],
        videoFrameDuration: MediaTime,
        audio: MediaFrame?,
        audioFrameDuration: MediaTime?
    ) {
        self.description = description
        self.video = video
        self.videoFrameDuration = videoFrameDuration
        self.audio = audio
        self.audioFrameDuration = audioFrameDuration
    }
}

/// Makes the slate for a stream's tracks (the gateway's encoder, above the hub); the hub only loops what it gets.
public protocol SlateMaker: Sendable {
    /// The slate for a stream described by `description`, at its picture size and sample rate; nil when none can be
    /// made (the hub then leaves the air without frames, as without a slate). May take a while the first time.
    func clip(matching description: StreamDescription) -> SlateClip?
}
