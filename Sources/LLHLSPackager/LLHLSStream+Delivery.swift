import Synchronization

/// When parts were listed: the in-process bench measures delivery (publication → viewer has the bytes) from here.
extension LLHLSStream {
    /// The instant part `part` of segment `msn` of a rendition was listed, while it is retained.
    public func partPublished(rendition name: String, msn: Int, part: Int) -> ContinuousClock.Instant? {
        state.withLock { s in
            guard
                let seg = s.pipeline(named: s.pipelineName(served: name))?.rendition.segments.last(where: {
                    $0.msn == msn
                }),
                part < seg.parts.count
            else { return nil }
            return seg.parts[part].published
        }
    }
}
