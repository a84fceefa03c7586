import Foundation
import HTTPTypes
import Hummingbird
import LLHLSPackager
import Logging
import MediaCore

/// The origin's URL space: `/live/{key}/index.m3u8`, `/live/{key}/{video|audio}.m3u8`,
/// `/live/{key}/{epoch}/{video|audio}/{init-N.mp4|MSN.m4s|MSN.PART.m4s}`, `/healthz`, `/api/streams`, plus the
/// routes features contribute (`HTTPOriginOptions.routeGroups`).
public enum OriginRoutes {
    /// Builds the router over a packager.
    public static func router(
        packager: LLHLSPackager,
        options: HTTPOriginOptions = .init()
    ) -> Router<OriginRequestContext> {
        router(packager: packager, options: options, waiting: BlockingCounter())
    }

    /// The router, counting held playlist requests in `waiting`.
    static func router(
        packager: LLHLSPackager,
        options: HTTPOriginOptions,
        waiting: BlockingCounter
    ) -> Router<OriginRequestContext> {
        // HEAD answers like GET without the body (players and CDNs probe playlists and parts with it).
        let router = Router(context: OriginRequestContext.self, options: .autoGenerateHeadEndpoints)
        // Every request at debug level: what a player fetched, and in what order, is the first question when one fails.
        router.middlewares.add(AccessLogMiddleware())
        router.middlewares.add(PreflightMiddleware(groups: options.routeGroups))
        addAccessControl(to: router, access: options.access, waiting: waiting) { key in
            StreamKey(key).flatMap(packager.stream(for:)) != nil
        }
        addTelemetry(to: router, packager: packager)
        router.get("/healthz") { _, _ in
            OriginResponse.text(200, "ok", maxAge: 0)
        }
        addOpsRoutes(to: router, readiness: options.readiness)
        addPageRoutes(to: router, options: options)
        addContributedRoutes(to: router, groups: options.routeGroups)
        router.get("/api/streams") { _, _ in
            let summaries = packager.summaries()
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let body = (try? encoder.encode(summaries)) ?? Data("[]".utf8)
            return OriginResponse.make(
                HLSResponse(status: 200, contentType: "application/json", maxAge: 0, body: Array(body))
            )
        }
        router.get("/live/:key/:name") { request, context in
            let file = context.parameters.get("name") ?? ""
            // A playlist asked for before its publisher arrived is held (fast start); a 404 would cost a retry.
            let wait = file.hasSuffix(".m3u8") ? packager.configuration.startWait : .zero
            guard let key = StreamKey(context.parameters.get("key") ?? ""),
                let source = await liveSource(
                    key,
                    wait: wait,
                    request: request,
                    packager: packager,
                    fallback: options.streamFallback
                )
            else {
                return OriginResponse.text(404, "unknown stream", maxAge: 1)
            }
            let stream: LLHLSStream
            switch source {
            case .local(let local): stream = local
            case .remote(let relayed): return relayed
            }
            switch file {
            case "index.m3u8":
                return OriginResponse.make(await stream.multivariantPlaylist())
            case _ where file.hasSuffix(".m3u8") && stream.hasRendition(String(file.dropLast(5))):
                let query = request.uri.queryParameters.map { (String($0.key), String($0.value)) }
                var directives: PlaylistRequest
                do {
                    directives = try PlaylistRequest(query: query)
                } catch {
                    return OriginResponse.text(400, "\(error)", maxAge: 1)
                }
                directives.fromMediaElement = MediaElementRequest.matches(request.headers)
                directives.client = context.peerIP
                return OriginResponse.make(
                    await stream.mediaPlaylist(rendition: String(file.dropLast(5)), request: directives)
                )
            default:
                return OriginResponse.text(404, "unknown playlist", maxAge: 1)
            }
        }
        // The epoch shares the `name` slot: Hummingbird requires one parameter name per path level.
        router.get("/live/:key/:name/:rendition/:file") { request, context in
            guard let key = StreamKey(context.parameters.get("key") ?? ""),
                let source = await liveSource(
                    key,
                    wait: .zero,
                    request: request,
                    packager: packager,
                    fallback: options.streamFallback
                )
            else {
                return OriginResponse.text(404, "unknown stream", maxAge: 1)
            }
            let stream: LLHLSStream
            switch source {
            case .local(let local): stream = local
            case .remote(let relayed): return relayed
            }
            let rendition = context.parameters.get("rendition") ?? ""
            guard stream.hasRendition(rendition) else {
                return OriginResponse.text(404, "unknown rendition", maxAge: 1)
            }
            let file = context.parameters.get("file") ?? ""
            let epoch = context.parameters.get("name") ?? ""
            let answer = await stream.media(epoch: epoch, rendition: rendition, file: file)
            var response = OriginResponse.make(answer)
            if let published = Self.publishedHeader(answer, RequestTarget(path: request.uri.path, query: "")) {
                response.headers[OriginResponse.published] = published
            }
            return response
        }
        return router
    }
}
