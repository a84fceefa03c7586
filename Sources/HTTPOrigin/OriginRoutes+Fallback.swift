import HTTPTypes
import Hummingbird
import LLHLSPackager
import MediaCore

extension OriginRoutes {
    /// Where a `/live/{key}/…` request is answered from.
    enum LiveSource {
        /// This origin serves the stream.
        case local(LLHLSStream)
        /// The fallback answered (another node serves it).
        case remote(Response)
    }

    /// Marks a request one node relays from another: it is answered from local streams only, never relayed again.
    static let relayedRequest = HTTPField.Name("X-Sluice-Relay")!

    /// The stream `key` served here, or the fallback's answer, waiting up to `wait` for either (a playlist asked for
    /// before its publisher arrived, here or on another node); nil when neither comes.
    static func liveSource(
        _ key: StreamKey,
        wait: Duration,
        request: Request,
        packager: LLHLSPackager,
        fallback: StreamFallback?
    ) async -> LiveSource? {
        guard let fallback, request.headers[relayedRequest] == nil else {
            return await packager.stream(for: key, waitingUpTo: wait).map { .local($0) }
        }
        let target = request.uri.path + (request.uri.query.map { "?\($0)" } ?? "")
        let deadline = ContinuousClock.now + wait
        while true {
            if let stream = packager.stream(for: key) { return .local(stream) }
            if let answer = await fallback.answer(key, target) { return .remote(response(answer)) }
            let left = deadline - .now
            guard left > .zero, !Task.isCancelled else { return nil }
            // The registry is asked again every half second while the local wait goes on.
            if let stream = await packager.stream(for: key, waitingUpTo: min(left, .milliseconds(500))) {
                return .local(stream)
            }
        }
    }

    /// A fallback's answer with the origin's CORS fields.
    static func response(_ answer: FallbackResponse) -> Response {
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let field = HTTPField.Name(name) { fields.append(HTTPField(name: field, value: value)) }
        }
        fields[OriginResponse.allowOrigin] = "*"
        fields[OriginResponse.exposeHeaders] = "Age, X-Sluice-Published"
        return Response(
            status: HTTPResponse.Status(code: answer.status),
            headers: fields,
            body: ResponseBody(byteBuffer: answer.body)
        )
    }
}
