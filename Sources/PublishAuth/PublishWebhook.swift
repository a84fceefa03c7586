import Foundation
import HTTPClient
import MediaCore

/// Asks an HTTP endpoint whether a publish may go ahead: POST JSON, 2xx allows, anything else or no answer denies.
struct PublishWebhook: Sendable {
    let url: String
    let timeout: Duration

    /// The request body, field names as documented in Config/sluice.yaml.
    struct Body: Encodable {
        var key: String
        var name: String
        var peer: String
        var `protocol`: String
    }

    func decide(_ request: PublishAuthRequest) async -> PublishAuthDecision {
        guard let endpoint = HTTPLocation(url) else { return .denied(reason: "webhook URL '\(url)' is invalid") }
        let body = Body(
            key: request.key.rawValue,
            name: request.presentedName,
            peer: request.peerIP ?? "",
            protocol: request.transport.rawValue
        )
        let json = (try? JSONEncoder().encode(body)).map { Array($0) } ?? []
        // The client's limit covers connect and the whole answer, so a hook that never answers cannot hold a publish.
        do {
            let response = try await HTTPClient(timeout: timeout, userAgent: "sluice-auth").request(
                "POST",
                endpoint,
                headers: [("Content-Type", "application/json")],
                body: json
            )
            return (200..<300).contains(response.status)
                ? .allowed(by: "webhook (\(response.status))") : .denied(reason: "webhook answered \(response.status)")
        } catch {
            if case .timedOut = error { return .denied(reason: "webhook timed out after \(timeout)") }
            return .denied(reason: "webhook failed: \(error)")
        }
    }
}
