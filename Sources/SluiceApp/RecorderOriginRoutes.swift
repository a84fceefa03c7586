import Foundation
import HTTPOrigin
import Logging
import MediaCore
import Recorder

/// Recordings on the origin: `GET /vod/{key}/{id}/index.m3u8` (and its media playlists, init sections and segments,
/// byte for byte as on disk), `GET /vod/{key}/{id}.mp4?start=&duration=` (a time range as one fragmented MP4),
/// `GET /api/recordings[?key=&from=&to=&limit=&after=]` (from/to: Unix seconds) and the admin API's
/// `POST /api/streams/{key}/recording`; the origin knows nothing of recording.
enum RecorderOriginRoutes {
    /// Whether a stream key is being published now.
    typealias IsLive = @Sendable (String) -> Bool

    /// The routes over `recorder`; recording control is guarded by `admin`.
    static func group(recorder: Recorder, admin: AdminAccess, isLive: @escaping IsLive) -> OriginRouteGroup {
        OriginRouteGroup(
            prefix: "/vod/",
            routes: [
                // One parameter name per position: Hummingbird's trie refuses `:file` beside `:rendition`.
                OriginRoute(.get, "/vod/:key/:id") { clip($0, recorder: recorder) },
                OriginRoute(.get, "/vod/:key/:id/:name") { serve($0, recorder: recorder, path: $0.parameters["name"]) },
                OriginRoute(.get, "/vod/:key/:id/:name/:file") { r in
                    serve(r, recorder: recorder, path: "\(r.parameters["name"] ?? "")/\(r.parameters["file"] ?? "")")
                },
                OriginRoute(.get, "/api/recordings") { list($0, recorder: recorder) },
                OriginRoute(.get, "/api/recordings/usage") { usage($0, recorder: recorder) },
                OriginRoute(.post, "/api/streams/:key/recording") {
                    await control($0, recorder: recorder, admin: admin, isLive: isLive)
                },
            ]
        )
    }

    /// `POST /api/streams/{key}/recording`: start or stop recording a live stream; answers the recording id.
    static func control(
        _ request: OriginRequest,
        recorder: Recorder,
        admin: AdminAccess,
        isLive: IsLive
    ) async
        -> OriginReply
    {
        let key = request.parameters["key"] ?? ""
        switch admin.decide(authorization: request.header("Authorization"), peerIP: request.peerIP) {
        case .refused(let status, let challenge, let reason):
            request.logger.notice(
                "admin API refused",
                metadata: ["peer": "\(request.peerIP ?? "?")", "reason": "\(reason)", "stream": "\(key)"]
            )
            var reply = text(status, reason)
            if let challenge { reply.headers.append(("WWW-Authenticate", challenge)) }
            return reply
        case .allowed: break
        }
        let body: [UInt8]
        do {
            body = try await request.body(upTo: 4096)
        } catch {
            return text(413, "the body is limited to 4096 bytes")
        }
        let command: RecordingCommand
        do throws(RecordingCommand.Problem) {
            command = try RecordingCommand(query: request.query["action"], body: body)
        } catch {
            return text(400, error.description)
        }
        do throws(RecorderError) {
            let live = isLive(key)
            let id =
                command == .start
                ? try recorder.start(key: key, publishing: live) : try recorder.stop(key: key, publishing: live)
            let state = command == .start ? "recording" : "stopped"
            let json =
                #"{"key":"\#(key)","recording":"\#(id)","state":"\#(state)","url":"/vod/\#(key)/\#(id)/index.m3u8"}"#
            return OriginReply(
                status: 200,
                headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                body: Array(json.utf8)
            )
        } catch {
            switch error {
            case .invalidName: return text(400, error.description)
            case .notLive: return text(404, error.description)
            case .alreadyRecording, .notRecording: return text(409, error.description)
            default: return text(500, error.description)
            }
        }
    }

    /// `GET /vod/{key}/{id}.mp4?start=&duration=` (seconds from the recording's start; both optional).
    static func clip(_ request: OriginRequest, recorder: Recorder) -> OriginReply {
        let name = request.parameters["id"] ?? ""
        guard name.hasSuffix(".mp4") else { return text(404, "a recording is /vod/{key}/{id}/index.m3u8 or {id}.mp4") }
        func seconds(_ field: String) -> Double?? {
            guard let v = request.query[field] else { return .some(nil) }
            guard let s = Double(v), s.isFinite else { return nil }
            return .some(s)
        }
        guard let start = seconds("start"), let duration = seconds("duration") else {
            return text(400, "start and duration are seconds (e.g. ?start=12.5&duration=30)")
        }
        if let start, start < 0 { return text(400, "start must be ≥ 0 seconds") }
        if let duration, duration <= 0 { return text(400, "duration must be > 0 seconds") }
        let key = request.parameters["key"] ?? ""
        let id = String(name.dropLast(".mp4".count))
        do throws(RecorderError) {
            let c = try recorder.clip(key: key, id: id, start: start ?? 0, duration: duration)
            let file = "\(key)-\(id)-\(Int(c.start))s.mp4"
            return OriginReply(
                status: 200,
                headers: [
                    ("Content-Type", "video/mp4"), ("Content-Disposition", "attachment; filename=\"\(file)\""),
                    ("Cache-Control", c.finished ? "public, max-age=31536000, immutable" : "no-cache"),
                    ("Access-Control-Allow-Origin", "*"),
                    ("X-Clip-Start", String(format: "%.3f", c.start)),
                    ("X-Clip-Duration", String(format: "%.3f", c.duration)),
                ],
                body: c.bytes
            )
        } catch {
            switch error {
            case .invalidName: return text(400, error.description)
            case .notFound: return text(404, error.description)
            case .rangeNotSatisfiable: return text(416, error.description)
            default: return text(500, error.description)
            }
        }
    }

    static func serve(_ request: OriginRequest, recorder: Recorder, path: String?) -> OriginReply {
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
            default: return text(400, error.description)
            }
        }
    }

    /// `GET /api/recordings[?key=&from=&to=&limit=&after=]`: a JSON array, oldest first; with `limit`, a `Link`
    /// header (RFC 8288, rel="next") names the next page (`after` is the last row's `key/id`).
    static func list(_ request: OriginRequest, recorder: Recorder) -> OriginReply {
        func time(_ name: String) -> WallTime?? {
            guard let v = request.query[name] else { return .some(nil) }
            guard let s = Int64(v) else { return nil }
            return .some(WallTime(millisecondsSince1970: s * 1000))
        }
        guard let from = time("from"), let to = time("to") else { return text(400, "from and to are Unix seconds") }
        var limit: Int?
        if let v = request.query["limit"] {
            guard let n = Int(v), n >= 0 else { return text(400, "limit is a count of recordings (≥ 0)") }
            limit = n
        }
        let key = request.query["key"]
        let page = recorder.listing(key: key, from: from, to: to, after: request.query["after"], limit: limit)
        var headers = [("Content-Type", "application/json"), ("Cache-Control", "no-cache")]
        if let next = page.next {
            var query = ["limit=\(limit ?? 0)", "after=\(next)"]
            if let key { query.append("key=\(key)") }
            if let v = request.query["from"] { query.append("from=\(v)") }
            if let v = request.query["to"] { query.append("to=\(v)") }
            headers.append(("Link", "</api/recordings?\(query.joined(separator: "&"))>; rel=\"next\""))
        }
        return OriginReply(status: 200, headers: headers, body: page.json)
    }

    /// `GET /api/recordings/usage`: what the pages show: recordings on disk, their bytes, the streams being recorded
    /// now (key → recording id) and the newest recordings (newest first, at most 20).
    static func usage(_ request: OriginRequest, recorder: Recorder) -> OriginReply {
        let (count, bytes) = recorder.usage
        let newest = recorder.recordings().suffix(20).reversed().map(\.jsonRow)
        let now = recorder.recordingNow.sorted { $0.key < $1.key }.map { #""\#($0.key)":"\#($0.value)""# }
        let body = """
            {"recordings":\(count),"bytes":\(bytes),"recordingNow":{\(now.joined(separator: ","))},\
            "newest":[\(newest.joined(separator: ","))]}
            """
        return OriginReply(
            status: 200,
            headers: [("Content-Type", "application/json"), ("Cache-Control", "no-cache")],
            body: Array(body.utf8)
        )
    }

    static func text(_ status: Int, _ message: String) -> OriginReply {
        OriginReply(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(message.utf8))
    }
}
