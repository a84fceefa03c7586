import Synchronization

/// One answer handed to every request that asked the same thing at the same state: the HTTP edge keeps the response
/// it builds from it here, so headers and body are built once and written to every waiter.
public final class SharedResponse: Sendable {
    /// The answer.
    public let response: HLSResponse
    private let built = Mutex<(any Sendable)?>(nil)

    /// Wraps an answer.
    public init(_ response: HLSResponse) { self.response = response }

    /// What `make` builds from the answer, built by the first caller and kept for the others.
    public func built<Built: Sendable>(_ make: (HLSResponse) -> Built) -> Built {
        built.withLock { kept in
            if let done = kept as? Built { return done }
            let done = make(response)
            kept = done
            return done
        }
    }
}
