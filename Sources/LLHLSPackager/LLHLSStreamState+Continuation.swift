import MediaCore

/// Numbering across nodes: where this stream stands (recorded in the cluster's registry), and where a stream that
/// continues another node's starts.
extension LLHLSStreamState {
    /// MSN of the stream's first segment.
    var startMSN: Int { continuation?.firstMSN ?? PublishedRendition.firstMSN }

    /// The next MSN and the newest segment's discontinuity number over every rendition; nil before any is described.
    var numbering: (nextMSN: Int, discontinuity: Int)? {
        let renditions = pipelineNames.compactMap { pipeline(named: $0)?.rendition }
        guard let next = renditions.map(\.nextMSN).max(),
            let discontinuity = renditions.map(\.newestDiscontinuity).max()
        else { return nil }
        return (next, discontinuity)
    }
}
