import HTTPClient

/// Why a relay fetch got no answer from the owner; logged, and the request is answered as for a stream not live.
public enum ClusterRelayError: Error, Sendable, CustomStringConvertible {
    /// The registry names an owner whose URL does not parse.
    case badOwnerURL(String)
    /// The owner could not be reached or did not answer in time.
    case ownerUnreachable(owner: String, target: String, HTTPClientError)

    public var description: String {
        switch self {
        case .badOwnerURL(let url): "cluster relay: owner URL \(url) is not an http(s) URL"
        case .ownerUnreachable(let owner, let target, let error): "cluster relay: \(owner)\(target): \(error)"
        }
    }
}
