import Foundation
import FoundationNetworking
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
        guard let endpoint = URL(string: url) else { return .denied(reason: "webhook URL '\(url)' is invalid") }
        let body = Body(key: request.key.rawValue, name: request.name, peer: request.peerIP ?? "", protocol: request.transport)
        let json = (try? JSONEncoder().encode(body)) ?? Data()
        let timeout = self.timeout
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        // URLSession's own timeout covers idle gaps, not the whole exchange; the race bounds the total.
        return await withTaskGroup(of: PublishAuthDecision.self) { group in
            group.addTask {
                var http = URLRequest(url: endpoint, timeoutInterval: seconds)
                http.httpMethod = "POST"
                http.setValue("application/json", forHTTPHeaderField: "Content-Type")
                http.httpBody = json
                do {
                    let (_, response) = try await URLSession.shared.data(for: http)
                    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                    return (200..<300).contains(status)
                        ? .allowed(by: "webhook (\(status))") : .denied(reason: "webhook answered \(status)")
                } catch {
                    return .denied(reason: "webhook failed: \(error.localizedDescription)")
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return .denied(reason: "webhook timed out after \(timeout)")
            }
            let first = await group.next() ?? .denied(reason: "webhook gave no answer")
            group.cancelAll()
            return first
        }
    }
}
