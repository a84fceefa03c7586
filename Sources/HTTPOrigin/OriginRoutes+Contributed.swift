import HTTPTypes
import Hummingbird
import NIOCore

extension OriginRoutes {
    /// Registers the features' routes, translating to and from the origin's own request and reply types.
    static func addContributedRoutes(to router: Router<OriginRequestContext>, groups: [OriginRouteGroup]) {
        for route in groups.flatMap(\.routes) {
            router.on(RouterPath(route.path), method: HTTPRequest.Method(rawValue: route.method.rawValue)!) {
                request,
                context in
                await response(route.handle(originRequest(request, context: context, path: route.path)))
            }
        }
    }

    static func originRequest(_ request: Request, context: OriginRequestContext, path: String) -> OriginRequest {
        var parameters: [String: String] = [:]
        for component in path.split(separator: "/") where component.hasPrefix(":") {
            let name = String(component.dropFirst())
            parameters[name] = context.parameters.get(name)
        }
        var headers: [String: String] = [:]
        for field in request.headers {
            let name = field.name.canonicalName
            headers[name] = headers[name].map { "\($0), \(field.value)" } ?? field.value
        }
        var origin = OriginRequest(
            parameters: parameters,
            headers: headers,
            peerIP: context.peerIP,
            logger: context.logger,
            readBody: { limit in
                let buffer = try await request.body.collect(upTo: limit)
                return Array(buffer.readableBytesView)
            }
        )
        for (name, value) in request.uri.queryParameters { origin.query[String(name)] = String(value) }
        return origin
    }

    static func response(_ reply: OriginReply) -> Response {
        var headers = HTTPFields()
        for (name, value) in reply.headers {
            if let field = HTTPField.Name(name) { headers.append(HTTPField(name: field, value: value)) }
        }
        return Response(
            status: HTTPResponse.Status(code: reply.status),
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply.body))
        )
    }
}
