import Foundation
import HTTPOrigin
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LLHLSPackager
import Logging
import MediaCore
import NIOCore
import PublishAuth
import StreamHub
import Synchronization
import Testing

@testable import SluiceApp

/// WHIP bearer auth through the origin's router (RFC 9725 §4.5, RFC 6750 §3): what the authorizer sees, the 401
/// challenge, and CORS that lets a browser send the token and read the answer.
@Suite("WHIP auth routes")
struct WHIPAuthRouteTests {
    /// An authorizer that allows only `cam1` with token `s3cret` and records every request.
    final class Recorder: Sendable {
        let seen = Mutex<[PublishAuthRequest]>([])
        var authorizer: WHIPOriginRoutes.Authorize {
            { request in
                self.seen.withLock { $0.append(request) }
                return request.key.rawValue == "cam1" && request.credential == "s3cret"
                    ? .allowed(by: "key list") : .denied(reason: "not in the key list")
            }
        }
    }

    static func app(_ recorder: Recorder) -> some ApplicationProtocol {
        var options = HTTPOriginOptions()
        options.routeGroups = [WHIPOriginRoutes.group(whip: nil, authorize: recorder.authorizer)]
        let packager = LLHLSPackager(hub: StreamHub(), logger: Logger(label: "t"))
        return Application(router: OriginRoutes.router(packager: packager, options: options))
    }

    /// POSTs a (bogus) offer to `/whip/cam1`: auth is decided before the body is read.
    static func post(_ client: some TestClientProtocol, authorization: String?) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/sdp"]
        if let authorization { headers[.authorization] = authorization }
        return try await client.execute(
            uri: "/whip/cam1",
            method: .post,
            headers: headers,
            body: ByteBuffer(string: "v=0\r\n")
        )
    }

    @Test func missingTokenGets401WithABareBearerChallenge() async throws {
        let recorder = Recorder()
        try await Self.app(recorder).test(.router) { client in
            let r = try await Self.post(client, authorization: nil)
            #expect(r.status == .unauthorized)
            #expect(r.headers[.wwwAuthenticate] == "Bearer realm=\"sluice\"")
            #expect(String(buffer: r.body) == "publish refused: not in the key list\n")
            #expect(r.headers[HTTPField.Name("Access-Control-Allow-Origin")!] == "*")
        }
        #expect(
            recorder.seen.withLock { $0 } == [
                PublishAuthRequest(key: StreamKey("cam1")!, credential: nil, peerIP: nil, transport: .whip)
            ]
        )
    }

    @Test func wrongTokenGets401InvalidToken() async throws {
        let recorder = Recorder()
        try await Self.app(recorder).test(.router) { client in
            let r = try await Self.post(client, authorization: "Bearer nope")
            #expect(r.status == .unauthorized)
            #expect(r.headers[.wwwAuthenticate] == "Bearer realm=\"sluice\", error=\"invalid_token\"")
        }
        #expect(recorder.seen.withLock { $0.map(\.credential) } == ["nope"])
    }

    /// Allowed requests go on to the WHIP service; without one the answer is 503, not 401.
    @Test func rightTokenPassesAuthToTheService() async throws {
        let recorder = Recorder()
        try await Self.app(recorder).test(.router) { client in
            let r = try await Self.post(client, authorization: "bearer  s3cret ")
            #expect(r.status == .serviceUnavailable)
        }
        #expect(recorder.seen.withLock { $0.map(\.credential) } == ["s3cret"])
    }

    /// Another scheme is refused without asking the authorizer (it could not carry a token we understand).
    @Test func basicAuthIsRefusedAsMalformed() async throws {
        let recorder = Recorder()
        try await Self.app(recorder).test(.router) { client in
            let r = try await Self.post(client, authorization: "Basic Y2FtOnMzY3JldA==")
            #expect(r.status == .unauthorized)
            #expect(r.headers[.wwwAuthenticate]?.contains("invalid_token") == true)
            #expect(String(buffer: r.body).contains("Bearer <token>"))
        }
        #expect(recorder.seen.withLock { $0.isEmpty })
    }

    /// A browser preflight must name Authorization (`*` does not cover it) and expose what the page reads.
    @Test func preflightAllowsAuthorizationAndExposesLocation() async throws {
        try await Self.app(Recorder()).test(.router) { client in
            let r = try await client.execute(uri: "/whip/cam1", method: .options)
            #expect(r.status == .noContent)
            let allowed = r.headers[HTTPField.Name("Access-Control-Allow-Headers")!] ?? ""
            #expect(allowed.contains("Authorization") && allowed.contains("Content-Type"))
            let exposed = r.headers[HTTPField.Name("Access-Control-Expose-Headers")!] ?? ""
            for name in ["Location", "ETag", "Link", "WWW-Authenticate"] { #expect(exposed.contains(name)) }
        }
    }

    /// RFC 6750 §2.1 credentials, scheme case-insensitive.
    @Test(
        arguments: [
            (nil, BearerCredential.none), ("Bearer abc", .token("abc")), ("bearer abc", .token("abc")),
            ("BEARER   exp=1&sig=ff ", .token("exp=1&sig=ff")), ("Bearer", .malformed), ("Bearer   ", .malformed),
            ("Basic abc", .malformed), ("", .malformed),
        ] as [(String?, BearerCredential)]
    )
    func parsesBearerCredentials(header: String?, expected: BearerCredential) {
        #expect(BearerCredential(header: header) == expected)
    }
}
