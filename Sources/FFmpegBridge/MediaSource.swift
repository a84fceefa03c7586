import MediaCore

/// Something that yields encoded frames in decode order, audio and video interleaved.
public protocol MediaSource: AnyObject {
    /// The tracks this source produces; valid from construction.
    var streamDescription: StreamDescription { get }
    /// The next frame by decode time, or nil at the end.
    func nextFrame() throws(FFmpegError) -> MediaFrame?
    /// Starts again from the beginning (timestamps restart at zero); sources that cannot rewind throw.
    func rewind() throws(FFmpegError)
}
