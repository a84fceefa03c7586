import Foundation
import HTTPOrigin
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LLHLSPackager
import Logging
import NIOCore
import Recorder
import StreamHub
import TestSupport
import Testing

@testable import SluiceApp

/// `POST /api/streams/{key}/recording` through the origin's router: admin auth (token, loopback), the action in a
/// JSON body or the query, and the answers for live, not live and already-so streams; plus the command's parser.
@Suite("Recording control routes")
struct RecordingControlRouteTests {
    static func app(token: String?, live: Set<String> = ["cam"]) -> some ApplicationProtocol {
        var config = RecorderConfiguration()
        config.directory = FileManager.default.temporaryDirectory.appendingPathComponent("rc-\(UUID())").path
        let recorder = Recorder(configuration: config, logger: Logger(label: "t"))
        var options = HTTPOriginOptions()
        options.routeGroups = [
            RecorderOriginRoutes.group(
                recorder: recorder,
                admin: AdminAccess(token: token),
                isLive: { live.contains($0) }
            )
        ]
        let packager = LLHLSPackager(hub: StreamHub(), logger: Logger(label: "t"))
        return Application(router: OriginRoutes.router(packager: packager, options: options))
    }

    static func post(
        _ client: some TestClientProtocol,
        _ uri: String,
        body: String = "",
        token: String? = "s3cret"
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: body))
    }

    @Test func startAndStopAnswerTheRecordingIdAndRefuseWhatIsAlreadySo() async throws {
        try await Self.app(token: "s3cret").test(.router) { client in
            let started = try await Self.post(client, "/api/streams/cam/recording", body: #"{"action":"start"}"#)
            #expect(started.status == .ok)
            let json =
                try JSONSerialization.jsonObject(with: Data(String(buffer: started.body).utf8)) as? [String: String]
            let id = try #require(json?["recording"])
            #expect(json?["state"] == "recording" && json?["url"] == "/vod/cam/\(id)/index.m3u8")
            let again = try await Self.post(client, "/api/streams/cam/recording?action=start")
            #expect(again.status == .conflict)
            #expect(String(buffer: again.body) == "stream cam is already being recorded (recording \(id))")
            let stopped = try await Self.post(client, "/api/streams/cam/recording", body: #"{"action": "stop"}"#)
            #expect(stopped.status == .ok && String(buffer: stopped.body).contains(#""recording":"\#(id)""#))
            #expect(try await Self.post(client, "/api/streams/cam/recording?action=stop").status == .conflict)
        }
    }

    @Test func aStreamThatIsNotLiveIs404AndABadActionOrKeyIs400() async throws {
        try await Self.app(token: "s3cret").test(.router) { client in
            let r = try await Self.post(client, "/api/streams/other/recording?action=start")
            #expect(r.status == .notFound && String(buffer: r.body) == "stream other is not live")
            #expect(try await Self.post(client, "/api/streams/cam/recording?action=pause").status == .badRequest)
            #expect(try await Self.post(client, "/api/streams/cam/recording", body: "start").status == .badRequest)
            #expect(try await Self.post(client, "/api/streams/cam/recording").status == .badRequest)
            #expect(try await Self.post(client, "/api/streams/..%2Fx/recording?action=start").status == .badRequest)
        }
    }

    @Test func withATokenEveryCallerMustSendIt() async throws {
        try await Self.app(token: "s3cret").test(.router) { client in
            let none = try await Self.post(client, "/api/streams/cam/recording?action=start", token: nil)
            #expect(none.status == .unauthorized)
            #expect(none.headers[.wwwAuthenticate] == #"Bearer realm="sluice-admin""#)
            let wrong = try await Self.post(client, "/api/streams/cam/recording?action=start", token: "guess")
            #expect(wrong.status == .unauthorized)
            #expect(wrong.headers[.wwwAuthenticate] == #"Bearer realm="sluice-admin", error="invalid_token""#)
        }
    }

    @Test func withoutATokenOnlyLoopbackPeersAreAllowed() async throws {
        // Router tests have no TCP peer: not loopback, so refused with the way to allow it.
        try await Self.app(token: nil).test(.router) { client in
            let r = try await Self.post(client, "/api/streams/cam/recording?action=start", token: nil)
            #expect(r.status == .forbidden)
            #expect(String(buffer: r.body).contains("api.admin_token"))
        }
        let open = AdminAccess(token: nil)
        #expect(
            open.decide(authorization: nil, peerIP: "127.0.0.1") == .allowed(by: "loopback peer (no api.admin_token)")
        )
        #expect(open.decide(authorization: nil, peerIP: "::1") != open.decide(authorization: nil, peerIP: "10.0.0.2"))
        let guarded = AdminAccess(token: "t")
        #expect(guarded.decide(authorization: "Bearer t", peerIP: "10.0.0.2") == .allowed(by: "api.admin_token"))
        // A token, once configured, is required from loopback peers too.
        if case .refused(let status, _, _) = guarded.decide(authorization: nil, peerIP: "127.0.0.1") {
            #expect(status == 401)
        } else {
            Issue.record("loopback without the token was allowed")
        }
    }

    /// (query, body, command or problem).
    static let commands: [(String?, String, Result<RecordingCommand, RecordingCommand.Problem>)] = [
        ("start", "", .success(.start)), ("STOP", "", .success(.stop)), (nil, #"{"action":"start"}"#, .success(.start)),
        (nil, #" { "action" : "stop" } "#, .success(.stop)), ("stop", #"{"action":"start"}"#, .success(.stop)),
        (nil, "", .failure(.missing)), (nil, " \n", .failure(.missing)), (nil, "start", .failure(.notJSON)),
        (nil, #"{"action":1}"#, .failure(.notJSON)), (nil, #"["start"]"#, .failure(.notJSON)),
        ("pause", "", .failure(.unknown("pause"))), (nil, #"{"action":"go"}"#, .failure(.unknown("go"))),
    ]

    @Test(arguments: 0..<commands.count) func commandsReadFromTheQueryOrTheBody(_ i: Int) {
        let (query, body, want) = Self.commands[i]
        let got = Result { () throws(RecordingCommand.Problem) in
            try RecordingCommand(query: query, body: Array(body.utf8))
        }
        #expect(got == want, "\(query ?? "-") \(body)")
    }

    /// Fuzz: any body is a command or a problem, never a trap.
    @Test func mutatedBodiesNeverTrap() {
        var rng = SeededRandom(seed: 9)
        for _ in 0..<2_000 {
            _ = try? RecordingCommand(query: nil, body: rng.mutate(Array(#"{"action":"start"}"#.utf8)))
        }
    }
}
