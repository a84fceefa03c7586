/// The transcoder's shedding reaches the stream here; the state decides what it means (`LLHLSStreamState+Shedding`).
extension LLHLSStream {
    /// Whether the source and the other rungs wait for rung `name` (see `LLHLSStreamState.setKeepingUp`).
    public func setKeepingUp(_ keepingUp: Bool, rung name: String) {
        mutate { $0.setKeepingUp(keepingUp, rung: name, now: .now) }
    }

    /// Leaves a ladder rung out of the multivariant and the rendition reports (the transcoder shed it under load), or
    /// lists it again once it has a new part.
    public func setListed(_ listed: Bool, rung name: String) {
        mutate { $0.setListed(listed, rung: name, now: .now) }
    }
}
