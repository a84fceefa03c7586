/// A source that can encode its next picture as a keyframe on request (RFC 4585 §6.3.1 PLI, RFC 5104 FIR).
public protocol KeyframeRequestable: MediaSource {
    /// Makes the next video frame an IDR; files and other pre-encoded sources do not conform.
    func requestKeyframe()
}
