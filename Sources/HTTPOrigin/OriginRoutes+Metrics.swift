import HTTPTypes
import Hummingbird
import LLHLSPackager
import NIOCore
import Telemetry

extension OriginRoutes {
    /// `GET /metrics` (Prometheus text format 0.0.4) and the middleware that counts requests and measures deliver.
    static func addTelemetry<Context: RequestContext>(to router: Router<Context>, packager: LLHLSPackager) {
        router.middlewares.add(TelemetryMiddleware(packager: packager))
        router.get("/metrics") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = GatewayTelemetry.prometheusContentType
            headers[.cacheControl] = "no-cache"
            return Response(
                status: .ok,
                headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(string: packager.telemetry.prometheusText()))
            )
        }
    }
}
