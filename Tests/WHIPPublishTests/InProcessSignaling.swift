import MediaCore
import StreamHub
import Synchronization
import WHIPIngest
import WHIPPublish

/// WHIP signaling straight into a real `WHIPIngestService` (no HTTP server in this test target): POST creates the
/// session exactly as the origin's route does, DELETE ends it. The media path stays real UDP, DTLS and SRTP.
final class InProcessSignaling: WHIPSignaling {
    let ingest: WHIPIngestService
    let hub: StreamHub
    /// The hub reader attached right after the session went live.
    let reader = Mutex<StreamReader?>(nil)
    let deletes = Mutex<[String]>([])

    init(ingest: WHIPIngestService, hub: StreamHub) {
        self.ingest = ingest
        self.hub = hub
    }

    func post(offer: String, to endpoint: WHIPEndpoint) async throws(WHIPPublishError) -> WHIPHTTPResponse {
        do {
            let created = try await ingest.createSession(streamKey: endpoint.streamKey, offer: offer)
            let attached = StreamKey(endpoint.streamKey).flatMap {
                hub.subscribe(key: $0, name: "test", capacity: 4_096)
            }
            reader.withLock { $0 = attached }
            return WHIPHTTPResponse(
                status: 201,
                headers: [
                    "location": "/whip/\(endpoint.streamKey)/\(created.sessionID)", "content-type": "application/sdp",
                ],
                body: created.answer
            )
        } catch {
            return WHIPHTTPResponse(status: error.httpStatus, body: "\(error)")
        }
    }

    func delete(_ url: String, endpoint: WHIPEndpoint) async throws(WHIPPublishError) -> WHIPHTTPResponse {
        deletes.withLock { $0.append(url) }
        let id = String(url.split(separator: "/").last ?? "")
        do {
            try ingest.endSession(id: id, key: endpoint.streamKey)
            return WHIPHTTPResponse(status: 200)
        } catch {
            return WHIPHTTPResponse(status: error.httpStatus)
        }
    }
}
