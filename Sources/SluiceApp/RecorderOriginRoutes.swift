import HTTPOrigin
import MediaCore
import Recorder

/// Recordings on the origin: `GET /vod/{key}/{id}/index.m3u8` (and its media playlists, init sections and segments,
/// byte for byte as on disk) and `GET /api/recordings[?key=&from=&to=]` (from/to: Unix seconds); the origin knows
/// nothing of recording.
enum RecorderOriginRoutes {
    /// The routes over `recorder` (nil: recording off, every route answers 404).
    static func group(recorder: Recorder?) -> OriginRouteGroup {
        OriginRouteGroup(
            prefix: "/vod/",
            routes: [
                // One parameter name per position: Hummingbird's trie refuses `:file` beside `:rendition`.
                OriginRoute(.get, "/vod/:key/:id/:name") { serve($0, recorder: recorder, path: $0.parameters["name"]) },
                OriginRoute(.get, "/vod/:key/:id/:name/:file") { r in
                    serve(r, recorder: recorder, path: "\(r.parameters["name"] ?? "")/\(r.parameters["file"] ?? "")")
                },
                OriginRoute(.get, "/api/recordings") { list($0, recorder: recorder) },
            ]
        )
    }

    static func serve(_ request: OriginRequest, recorder: Recorder?, path: String?) -> OriginReply {
        guard let recorder else { return text(404, "recording is off (record.enabled)") }
        do throws(RecorderError) {
            let (bytes, finished) = try recorder.file(
                key: request.parameters["key"] ?? "",
                id: request.parameters["id"] ?? "",
                path: path ?? ""
            )
            let type =
                path?.hasSuffix(".m3u8") == true
                ? "application/vnd.apple.mpegurl" : path?.hasSuffix(".m4s") == true ? "video/iso.segment" : "video/mp4"
            // Segments never change once written; a finished recording's playlists neither.
            let immutable = finished || path?.hasSuffix(".m3u8") == false
            return OriginReply(
                status: 200,
                headers: [
                    ("Content-Type", type),
                    ("Cache-Control", immutable ? "public, max-age=31536000, immutable" : "no-cache"),
                    ("Access-Control-Allow-Origin", "*"),
                ],
                body: bytes
            )
        } catch {
            switch error {
            case .invalidName: return text(400, error.description)
            case .notFound: return text(404, error.description)
            case .io: return text(500, error.description)
            }
        }
    }

    static func list(_ request: OriginRequest, recorder: Recorder?) -> OriginReply {
        guard let recorder else { return text(404, "recording is off (record.enabled)") }
        func time(_ name: String) -> WallTime?? {
            guard let v = request.query[name] else { return .some(nil) }
            guard let s = Int64(v) else { return nil }
            return .some(WallTime(millisecondsSince1970: s * 1000))
        }
        guard let from = time("from"), let to = time("to") else { return text(400, "from and to are Unix seconds") }
        let rows = recorder.recordings(key: request.query["key"], from: from, to: to).map { r in
            """
            {"key":"\(r.key)","id":"\(r.id)","started":"\(r.started.iso8601)",\
            "seconds":\(r.duration.secondsDouble),\
            "bytes":\(r.bytes),"finished":\(r.finished),"url":"/vod/\(r.key)/\(r.id)/index.m3u8"}
            """
        }
        return OriginReply(
            status: 200,
            headers: [("Content-Type", "application/json"), ("Cache-Control", "no-cache")],
            body: Array("[\(rows.joined(separator: ","))]".utf8)
        )
    }

    static func text(_ status: Int, _ message: String) -> OriginReply {
        OriginReply(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(message.utf8))
    }
}
