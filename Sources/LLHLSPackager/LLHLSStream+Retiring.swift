/// A stream that moved to another node: no longer served here, and no ENDLIST for its viewers.
extension LLHLSStream {
    /// Answers every parked request with a 503 no cache keeps (their players ask again, and reach the relay), and hands
    /// the stream's end to the recorder.
    func retire() {
        let moved = SharedResponse(.error(503, "\(key) moved to another node; ask again", maxAge: 0))
        for (_, waiters) in parked.takeAll() {
            for waiter in waiters { waiter.deliver(moved) }
        }
        if !isEnded { onEnd?(key, epoch) }
    }
}
