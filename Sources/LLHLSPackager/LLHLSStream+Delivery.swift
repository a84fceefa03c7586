import Synchronization

/// When parts were listed: the origin's router measures the deliver hop (publication → viewer has the bytes) from
/// here, and the in-process bench its delivery; a media answer carries the same instant (`HLSResponse.published`).
extension LLHLSStream {
    /// When the part a media file names was listed (for a segment, its last part), while it is retained; nil for an
    /// init section.
    public func published(rendition name: String, file: MediaFileName) -> ContinuousClock.Instant? {
        guard let msn = file.msn else { return nil }
        return state.withLock { s in
            s.pipeline(named: s.pipelineName(served: name))?.rendition.segments.last { $0.msn == msn }?
                .published(part: file.part)
        }
    }
}
